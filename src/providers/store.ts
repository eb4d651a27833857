import type { Db } from '../db/connection.js';

/** Counts one paid call of the account's on this day (UTC); the day's count so far. */
export async function countCall(db: Db, accountId: string, day: string): Promise<number> {
  const row = await db
    .insertInto('lookup_usage')
    .values({ account_id: accountId, day, calls: 1 })
    .onConflict((oc) => oc.columns(['account_id', 'day']).doUpdateSet((eb) => ({ calls: eb('lookup_usage.calls', '+', 1) })))
    .returning('calls')
    .executeTakeFirstOrThrow();
  return row.calls;
}
