import type { Db } from '../../db/connection.js';
import { countAll } from '../../db/dialect.js';
import type { Selectable, Updateable } from 'kysely';
import type { ConsoleSessionsTable } from '../../db/schema.js';
import type { AccountRow } from '../../db/schema.js';
import type { UserRow } from './repo.js';

export async function insertSession(db: Db, row: ConsoleSessionsTable): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute();
}

export type SessionRow = Selectable<ConsoleSessionsTable>;

/** A session that has not expired, with its user and account (either may be gone or closed: the caller decides). */
export async function findLiveSession(db: Db, tokenHash: string, now: string): Promise<{ session: SessionRow; user: UserRow; account: AccountRow } | undefined> {
  const session = await db.selectFrom('console_sessions').selectAll().where('token_hash', '=', tokenHash).where('expires_at', '>', now).executeTakeFirst();
  if (!session) return undefined;
  const [user, account] = await Promise.all([
    db.selectFrom('users').selectAll().where('id', '=', session.user_id).executeTakeFirst(),
    db.selectFrom('accounts').selectAll().where('id', '=', session.account_id).executeTakeFirst(),
  ]);
  return user && account ? { session, user, account } : undefined;
}

export async function updateSession(db: Db, tokenHash: string, patch: Updateable<ConsoleSessionsTable>): Promise<void> {
  await db.updateTable('console_sessions').set(patch).where('token_hash', '=', tokenHash).execute();
}

/** A user's live sessions, latest first. */
export function userSessions(db: Db, userId: string, now: string): Promise<SessionRow[]> {
  return db.selectFrom('console_sessions').selectAll().where('user_id', '=', userId).where('expires_at', '>', now).orderBy('created_at', 'desc').execute();
}

/** The live sessions of an account's people, latest first (an owner's view). */
export function accountSessions(db: Db, accountId: string, now: string): Promise<SessionRow[]> {
  return db.selectFrom('console_sessions').selectAll().where('account_id', '=', accountId).where('expires_at', '>', now).orderBy('created_at', 'desc').execute();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Ends one session by its id, if it belongs to the account; false when there was none. */
export async function deleteSessionById(db: Db, accountId: string, id: string, userId?: string): Promise<boolean> {
  let q = db.deleteFrom('console_sessions').where('id', '=', id).where('account_id', '=', accountId);
  if (userId) q = q.where('user_id', '=', userId);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Ends every session of a user, but the one kept (the user's own, after a password change). */
export async function deleteUserSessions(db: Db, userId: string, keepTokenHash?: string): Promise<void> {
  let q = db.deleteFrom('console_sessions').where('user_id', '=', userId);
  if (keepTokenHash) q = q.where('token_hash', '<>', keepTokenHash);
  await q.execute();
}

export async function deleteExpiredSessions(db: Db, now: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('expires_at', '<=', now).execute();
}

export async function insertSignInFailure(db: Db, row: { id: string; email: string; address: string; created_at: string }): Promise<void> {
  await db.insertInto('sign_in_failures').values(row).execute();
}

/** Failed sign-ins since a time, for an e-mail and for a client address. */
export async function countSignInFailures(db: Db, email: string, address: string, since: string): Promise<{ email: number; address: number }> {
  const [byEmail, byAddress] = await Promise.all([
    db.selectFrom('sign_in_failures').select(countAll().as('n')).where('email', '=', email).where('created_at', '>', since).executeTakeFirstOrThrow(),
    db.selectFrom('sign_in_failures').select(countAll().as('n')).where('address', '=', address).where('created_at', '>', since).executeTakeFirstOrThrow(),
  ]);
  return { email: Number(byEmail.n), address: Number(byAddress.n) };
}

/** The oldest failure since a time for an e-mail or an address: the lockout ends a window after it. */
export async function oldestSignInFailure(db: Db, column: 'email' | 'address', value: string, since: string): Promise<string | undefined> {
  const row = await db.selectFrom('sign_in_failures').select('created_at').where(column, '=', value).where('created_at', '>', since).orderBy('created_at').limit(1).executeTakeFirst();
  return row?.created_at;
}

export async function clearSignInFailures(db: Db, email: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('email', '=', email).execute();
}

export async function deleteOldSignInFailures(db: Db, before: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('created_at', '<=', before).execute();
}
