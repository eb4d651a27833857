import type { Insertable } from 'kysely';
import type { Db, Tx } from '../../db/connection.js';
import type { DialectKind } from '../../db/dialect.js';
import type { SanctionsNamesTable } from '../../db/schema.js';

/** When the last import wrote the lists ('' before any): one read of an index's end (migration 0016). */
export async function lastImported(db: Db): Promise<string> {
  const row = await db
    .selectFrom('sanctions_names')
    .select((eb) => eb.fn.max('imported_at').as('at'))
    .executeTakeFirst();
  return String(row?.at ?? '');
}

/** Each imported list: its source, data date and how many names (aliases included) it holds. */
export async function listCounts(db: Db): Promise<{ source: string; dataDate: string; names: number }[]> {
  const rows = await db
    .selectFrom('sanctions_names')
    .select((eb) => ['source', 'data_date', eb.fn.countAll().as('names')])
    .groupBy(['source', 'data_date'])
    .orderBy('source')
    .execute();
  return rows.map((r) => ({ source: r.source, dataDate: r.data_date, names: Number(r.names) }));
}

/** Every listed name, primary and alias, for the in-memory index. */
export function allNames(db: Db) {
  return db.selectFrom('sanctions_names').select(['source', 'entry_id', 'name', 'primary_name', 'kind', 'programs', 'birth_years', 'countries', 'data_date']).execute();
}

/** Up to `limit` names of individuals written "FAMILY, Given", in list order, with their remarks. */
export function individualNames(db: Db, limit: number) {
  return db.selectFrom('sanctions_names').select(['primary_name', 'remarks']).where('kind', '=', 'individual').where('primary_name', 'like', '%, %').orderBy('id').limit(limit).execute();
}

/** Every row (primary name and aliases) of a source's entries. */
export function entryRows(db: Db, source: string, entryIds: string[]) {
  return db
    .selectFrom('sanctions_names')
    .select(['entry_id', 'name', 'primary_name', 'is_alias', 'kind', 'programs', 'birth_years', 'countries', 'remarks', 'data_date'])
    .where('source', '=', source)
    .where('entry_id', 'in', entryIds)
    .orderBy('id')
    .execute();
}

/** The remarks of a source's entries (their primary names' rows). */
export function entryRemarks(db: Db, dialect: DialectKind, source: string, entryIds: string[]) {
  return db
    .selectFrom('sanctions_names')
    .select(['entry_id', 'remarks'])
    .where('source', '=', source)
    .where('entry_id', 'in', entryIds)
    .where('is_alias', '=', dialect === 'sqlite' ? 0 : false)
    .execute();
}

/** What a source lists now, to compare with a new import. */
export function sourceEntries(db: Db, source: string) {
  return db.selectFrom('sanctions_names').select(['entry_id', 'name', 'kind', 'programs', 'birth_years', 'countries']).where('source', '=', source).execute();
}

/** Replaces a source's names, 500 to a statement. */
export async function replaceSource(tx: Tx, source: string, rows: Insertable<SanctionsNamesTable>[]): Promise<void> {
  await tx.deleteFrom('sanctions_names').where('source', '=', source).execute();
  for (let i = 0; i < rows.length; i += 500)
    await tx
      .insertInto('sanctions_names')
      .values(rows.slice(i, i + 500))
      .execute();
}
