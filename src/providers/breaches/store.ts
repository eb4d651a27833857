import type { Insertable } from 'kysely';
import type { Db, Tx } from '../../db/connection.js';
import type { BreachRecordsTable } from '../../db/schema.js';

export async function hasRecords(db: Db): Promise<boolean> {
  return Boolean(await db.selectFrom('breach_records').select('id').limit(1).executeTakeFirst());
}

/** The breaches recorded for an address (found by its keyed digest), newest first. */
export function breachesOf(db: Db, emailDigest: string) {
  return db.selectFrom('breach_records').select(['name', 'domain', 'breach_date', 'source', 'imported_at']).where('email_digest', '=', emailDigest).orderBy('breach_date', 'desc').execute();
}

export async function deleteSource(tx: Tx, source: string): Promise<void> {
  await tx.deleteFrom('breach_records').where('source', '=', source).execute();
}

export async function insertRecords(tx: Tx, rows: Insertable<BreachRecordsTable>[]): Promise<void> {
  await tx.insertInto('breach_records').values(rows).execute();
}
