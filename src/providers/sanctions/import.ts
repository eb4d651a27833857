import { parse } from 'csv-parse';
import countries from 'i18n-iso-countries';
import { createReadStream } from 'node:fs';
import type { Insertable } from 'kysely';
import { withTx } from '../../db/connection.js';
import type { SanctionsNamesTable } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { iso } from '../../lib/time.js';
import { enqueue } from '../../jobs/queue.js';
import { entryContents, forgetSanctionsIndex } from './index.js';

export interface SanctionsFiles {
  /** The primary records (OFAC sdn.csv or cons_prim.csv). */
  primary: string;
  /** Aliases (alt.csv), addresses (add.csv) and remarks continued (sdn_comments.csv). */
  aliases?: string | undefined;
  addresses?: string | undefined;
  comments?: string | undefined;
  source?: string | undefined;
  /** The list's date; defaults to a YYYY-MM-DD in the file's name, then today. */
  date?: string | undefined;
}

/** Rows of an OFAC legacy CSV: no header, "-0- " for empty, a Ctrl-Z line at the end. */
async function* ofacRows(file: string): AsyncGenerator<(string | null)[]> {
  const parser = createReadStream(file).pipe(parse({ relax_quotes: true, relax_column_count: true, skip_empty_lines: true, trim: true }));
  for await (const row of parser as AsyncIterable<string[]>) {
    if (row.length === 1 && (row[0] ?? '').replace(/\x1a/g, '').trim() === '') continue;
    yield row.map((v) => (v === '-0-' || v === '' ? null : v));
  }
}

const KINDS: Record<string, string> = { individual: 'individual', vessel: 'vessel', aircraft: 'aircraft' };

/** Years of birth in OFAC remarks: "DOB 10 Dec 1948", "DOB 1946", "DOB circa 1960", "DOB 1960 to 1962". */
export function birthYears(remarks: string | null): number[] {
  const years = new Set<number>();
  for (const m of (remarks ?? '').matchAll(/DOB ([^;]*)/g)) for (const y of (m[1] ?? '').matchAll(/\b(1[89]\d\d|20\d\d)\b/g)) years.add(Number(y[1]));
  return [...years].sort();
}

/** Countries named as nationality or citizenship in the remarks, as ISO alpha-2 codes. */
function remarkCountries(remarks: string | null): string[] {
  const out = new Set<string>();
  for (const m of (remarks ?? '').matchAll(/(?:nationality|citizen) ([A-Z][A-Za-z ,.'-]+?)(?:;|\.|$)/g)) {
    const code = countries.getAlpha2Code((m[1] ?? '').trim(), 'en');
    if (code) out.add(code);
  }
  return [...out];
}

/**
 * Imports an OFAC list in the legacy CSV format (SDN or consolidated), with its aliases,
 * addresses and remarks when given: one row per name, the aliases beside the primary name.
 * Importing a source again replaces it, in one transaction.
 */
export async function importSanctions(deps: Deps, files: SanctionsFiles) {
  const source = files.source ?? (/cons/i.test(files.primary) ? 'OFAC Consolidated (non-SDN)' : 'OFAC SDN');
  const date = files.date ?? /\d{4}-\d{2}(-\d{2})?/.exec(files.primary)?.[0] ?? iso(deps.clock()).slice(0, 10);
  const at = iso(deps.clock());
  const entries = new Map<string, { name: string; kind: string; programs: string[]; remarks: string | null; countries: Set<string> }>();
  const rejected: { line: number; problem: string }[] = [];
  let line = 0;
  for await (const r of ofacRows(files.primary)) {
    line++;
    const [id, name, type, program] = r;
    if (!id || !name || !/^\d+$/.test(id)) {
      rejected.push({ line, problem: 'not an OFAC record (ent_num, name, type, program, ...)' });
      continue;
    }
    entries.set(id, { name, kind: KINDS[type ?? ''] ?? 'entity', programs: (program ?? '').split(/\]\s*\[|;/).map((p) => p.replace(/[[\]]/g, '').trim()).filter(Boolean), remarks: r[11] ?? null, countries: new Set() });
  }
  if (files.comments) {
    for await (const [id, more] of ofacRows(files.comments)) {
      const e = id ? entries.get(id) : undefined;
      if (e && more) e.remarks = `${e.remarks ?? ''}${more}`;
    }
  }
  if (files.addresses) {
    for await (const r of ofacRows(files.addresses)) {
      const e = r[0] ? entries.get(r[0]) : undefined;
      const code = r[4] ? countries.getAlpha2Code(r[4], 'en') : undefined;
      if (e && code) e.countries.add(code);
    }
  }
  const aliases = new Map<string, string[]>();
  if (files.aliases) {
    for await (const r of ofacRows(files.aliases)) {
      const [id, , , alias] = r;
      if (id && alias && entries.has(id)) aliases.set(id, [...(aliases.get(id) ?? []), alias]);
    }
  }
  const rows: Insertable<SanctionsNamesTable>[] = [];
  for (const [id, e] of entries) {
    for (const c of remarkCountries(e.remarks)) e.countries.add(c);
    const shared = {
      source,
      entry_id: id,
      primary_name: e.name,
      kind: e.kind,
      programs: JSON.stringify(e.programs),
      birth_years: JSON.stringify(birthYears(e.remarks)),
      countries: JSON.stringify([...e.countries].sort()),
      remarks: e.remarks,
      data_date: date,
      imported_at: at,
    };
    rows.push({ ...shared, name: e.name, is_alias: deps.dialect.kind === 'sqlite' ? 0 : false });
    for (const a of aliases.get(id) ?? []) rows.push({ ...shared, name: a, is_alias: deps.dialect.kind === 'sqlite' ? 1 : true });
  }
  // What the import changes, read before its transaction: one that began with a read would, on
  // SQLite, deadlock with another process importing at the same moment (two nodes starting on a
  // new database); racing imports then re-screen a little more than they need to, never less.
  const before = entryContents(await deps.db.selectFrom('sanctions_names').select(['entry_id', 'name', 'kind', 'programs', 'birth_years', 'countries']).where('source', '=', source).execute());
  const after = entryContents(rows.map((r) => ({ entry_id: r.entry_id, name: r.name, kind: r.kind, programs: r.programs, birth_years: r.birth_years, countries: r.countries })));
  const changed = [...after].filter(([id, content]) => before.get(id) !== content).map(([id]) => id);
  await withTx(deps.db, async (tx) => {
    await tx.deleteFrom('sanctions_names').where('source', '=', source).execute();
    for (let i = 0; i < rows.length; i += 500) await tx.insertInto('sanctions_names').values(rows.slice(i, i + 500)).execute();
    // Stays that have not ended are matched against what changed, in the background (in this
    // transaction, so a crash right after the import still re-screens).
    if (changed.length) await enqueue(tx, deps, 'sanctions.rescreen', { source, entry_ids: changed.length === after.size && before.size === 0 ? null : changed });
  });
  // Every process sees the new lists from its next search (searchSanctions reads their version).
  forgetSanctionsIndex(deps);
  if (changed.length) deps.wakeWorker();
  return { source, date, entries: entries.size, imported: rows.length, changed: changed.length, rejected };
}
