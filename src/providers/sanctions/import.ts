import type { Insertable } from 'kysely';
import { withTx } from '../../db/connection.js';
import type { SanctionsNamesTable } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { iso } from '../../lib/time.js';
import { enqueue } from '../../jobs/repo.js';
import { detectFormat, type ListFile, type ListFormat, type OfacFiles, readEu, readOfac, readUk, readUn } from './formats.js';
import { entryContents, forgetSanctionsIndex } from './index.js';
import * as store from './store.js';

export interface SanctionsFiles extends OfacFiles {
  /** ofac, un, eu or uk; read from the file when not given (detectFormat). */
  format?: ListFormat | undefined;
  source?: string | undefined;
  /** The list's date; defaults to the date the file gives, then a YYYY-MM-DD in its name, then today. */
  date?: string | undefined;
}

const READERS: Record<ListFormat, (files: SanctionsFiles) => Promise<ListFile>> = {
  ofac: readOfac,
  un: (f) => readUn(f.primary),
  eu: (f) => readEu(f.primary),
  uk: (f) => readUk(f.primary),
};

/**
 * Imports a sanctions list: OFAC's legacy CSV (SDN or consolidated, with its aliases, addresses
 * and remarks files), the UN Security Council's consolidated XML, the EU's financial sanctions
 * XML or the UK Sanctions List XML. One row per name, the aliases beside the primary name.
 * Importing a source again replaces it, in one transaction, and re-screens what it changed.
 */
export async function importSanctions(deps: Deps, files: SanctionsFiles) {
  const format = files.format ?? (await detectFormat(files.primary));
  if (format !== 'ofac' && (files.aliases || files.addresses || files.comments))
    throw new Error(`--aliases, --addresses and --comments are files of OFAC's CSV lists; a ${format.toUpperCase()} list carries its aliases and addresses in the one file`);
  const read = await READERS[format](files);
  const source = files.source ?? read.source;
  const date = files.date ?? read.date ?? /\d{4}-\d{2}(-\d{2})?/.exec(files.primary)?.[0] ?? iso(deps.clock()).slice(0, 10);
  const at = iso(deps.clock());
  const rows: Insertable<SanctionsNamesTable>[] = [];
  for (const e of read.entries) {
    const shared = {
      source,
      entry_id: e.id,
      primary_name: e.name,
      kind: e.kind,
      programs: JSON.stringify(e.programs),
      birth_years: JSON.stringify(e.birthYears),
      countries: JSON.stringify(e.countries),
      remarks: e.remarks,
      data_date: date,
      imported_at: at,
    };
    rows.push({ ...shared, name: e.name, is_alias: deps.dialect.kind === 'sqlite' ? 0 : false });
    for (const a of e.aliases) rows.push({ ...shared, name: a, is_alias: deps.dialect.kind === 'sqlite' ? 1 : true });
  }
  // What the import changes, read before its transaction: one that began with a read would, on
  // SQLite, deadlock with another process importing at the same moment (two nodes starting on a
  // new database); racing imports then re-screen a little more than they need to, never less.
  const before = entryContents(await store.sourceEntries(deps.db, source));
  const after = entryContents(rows.map((r) => ({ entry_id: r.entry_id, name: r.name, kind: r.kind, programs: r.programs, birth_years: r.birth_years, countries: r.countries })));
  const changed = [...after].filter(([id, content]) => before.get(id) !== content).map(([id]) => id);
  await withTx(deps.db, async (tx) => {
    await store.replaceSource(tx, source, rows);
    // Stays that have not ended and finished background checks are matched against what changed,
    // in the background (queued in this transaction, so a crash right after the import still re-screens).
    if (changed.length) {
      const payload = { source, entry_ids: changed.length === after.size && before.size === 0 ? null : changed };
      await enqueue(tx, deps, 'sanctions.rescreen', payload);
      await enqueue(tx, deps, 'check.rematch', payload);
    }
  });
  // Every process sees the new lists from its next search (searchSanctions reads their version).
  forgetSanctionsIndex(deps);
  if (changed.length) deps.wakeWorker();
  return { source, format, date, entries: read.entries.length, imported: rows.length, changed: changed.length, rejected: read.rejected };
}
