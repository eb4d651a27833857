import type { Insertable, Selectable } from 'kysely';
import type { Db, Tx } from '../db/connection.js';
import type { IdempotencyKeysTable } from '../db/schema.js';

/** States of a key: held by a running request, its work committed (answer not yet stored), answered. */
export type KeyState = 'in_flight' | 'applied' | 'done';

const byKey = (db: Db, accountId: string, key: string) => db.updateTable('idempotency_keys').where('account_id', '=', accountId).where('key', '=', key);
const changed = (r: { numUpdatedRows: bigint }) => Number(r.numUpdatedRows) === 1;

export function findKey(db: Db, accountId: string, key: string): Promise<Selectable<IdempotencyKeysTable> | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', accountId).where('key', '=', key).executeTakeFirst();
}

export async function deleteKey(db: Db, accountId: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('key', '=', key).execute();
}

/** Takes a free key; throws the unique violation when another request took it first. */
export async function insertKey(db: Db, row: Insertable<IdempotencyKeysTable>): Promise<void> {
  await db.insertInto('idempotency_keys').values(row).execute();
}

/** In the work's transaction: the key is `applied`, if `owner` still holds it; false when it does not. */
export async function markApplied(tx: Tx, accountId: string, key: string, owner: string, resourceId: string | null): Promise<boolean> {
  const applied: KeyState = 'applied';
  const r = await byKey(tx, accountId, key)
    .where('owner', '=', owner)
    .set(resourceId ? { state: applied, resource_id: resourceId } : { state: applied })
    .executeTakeFirst();
  return changed(r);
}

/** Takes over a key whose holder's lock (`lockedUntil` as read) ran out; false when another attempt just did. */
export async function takeOver(db: Db, accountId: string, key: string, readLockedUntil: string, lock: { lockedUntil: string; owner: string }): Promise<boolean> {
  const r = await byKey(db, accountId, key).where('locked_until', '=', readLockedUntil).set({ locked_until: lock.lockedUntil, owner: lock.owner }).executeTakeFirst();
  return changed(r);
}

/**
 * Lets go of a key after a failed answer: an applied key's lock ends now (a retry recovers its
 * answer at once), a key still in flight is deleted (a retry runs the work again).
 */
export async function releaseKey(db: Db, accountId: string, key: string, owner: string, now: string): Promise<void> {
  await byKey(db, accountId, key)
    .where('owner', '=', owner)
    .where('state', '=', 'applied' satisfies KeyState)
    .set({ locked_until: now })
    .execute();
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .where('owner', '=', owner)
    .where('state', '=', 'in_flight' satisfies KeyState)
    .execute();
}

export async function storeAnswer(db: Db, accountId: string, key: string, owner: string, answer: { status: number; body: string; resourceId: string | null }): Promise<void> {
  await byKey(db, accountId, key)
    .where('owner', '=', owner)
    .set({ state: 'done' satisfies KeyState, response_status: answer.status, response_body: answer.body, resource_id: answer.resourceId, owner: null })
    .execute();
}
