import { sql, type Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

/**
 * PostgreSQL only. A search answers the newest date first, and reservations with no date
 * (check-in and check-out are optional) last. SQLite sorts NULL below every date, so its
 * indexes on (account, …, date, id) read backwards give exactly that. PostgreSQL's indexes sort
 * NULL above every date by default, so read backwards they gave the undated reservations first,
 * and a query asking for `desc nulls last` could not use them. With the date column `nulls
 * first`, the same backward read answers `desc nulls last` on both databases.
 */
const INDEXES: [name: string, columns: string][] = [
  ['reservations_check_in_date_idx', 'account_id, check_in_date nulls first, id'],
  ['reservations_check_out_date_idx', 'account_id, check_out_date nulls first, id'],
  ['reservations_status_date_idx', 'account_id, status, check_in_date nulls first, id'],
  ['reservations_status_source_date_idx', 'account_id, status, source, check_in_date nulls first, id'],
  ['reservations_source_date_idx', 'account_id, source, check_in_date nulls first, id'],
];

export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  if (d.kind !== 'postgres') return;
  for (const [name, columns] of INDEXES) {
    await sql`drop index ${sql.ref(name)}`.execute(db);
    await sql`create index ${sql.ref(name)} on reservations (${sql.raw(columns)})`.execute(db);
  }
}
