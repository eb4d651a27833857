import type { Compilable } from 'kysely';
import { readersOf, readProcedure } from './sqlite/readers.js';
import { ftsPhrase } from './sqlite/search-index.js';
import type { CheckInAnswer } from './sqlite/text-search.js';
import type { Db } from './types.js';

/**
 * The door to the heavy reads, for repositories: where SQLite has reader threads they answer on
 * one of them, in one snapshot; elsewhere (PostgreSQL, a transaction, readers switched off) on
 * the handle itself. What lies behind is in sqlite/ (docs/storage.md).
 */

/** Each query's rows, the queries read together. */
export async function readRows(db: Db, queries: Compilable<unknown>[]): Promise<unknown[][]> {
  const compiled = queries.map((q) => q.compile());
  const readers = readersOf(db);
  if (readers) return readers.run(compiled);
  return Promise.all(compiled.map(async (q) => (await db.executeQuery(q)).rows));
}

/**
 * SQLite only: an account's reservations whose text holds `term` (three characters or more),
 * newest check-in first, answered from the full-text index's keys (sqlite/text-search.ts);
 * `general` when some rows lie outside the keyed range and only the general search finds them.
 */
export function searchTextByCheckIn(db: Db, a: { accountId: string; term: string; offset: number; limit: number; columns: string }): Promise<CheckInAnswer> {
  return readProcedure(db, 'searchByCheckIn', { accountId: a.accountId, phrase: ftsPhrase(a.term), offset: a.offset, limit: a.limit, columns: a.columns });
}
