import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../db/connection.js';
import { countAll } from '../../db/dialect.js';
import type { AccountRow, UsersTable, UserTokensTable } from '../../db/schema.js';

export type UserRow = Selectable<UsersTable>;

export async function insertUser(db: Db, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function updateUser(db: Db, id: string, patch: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(patch).where('id', '=', id).execute();
}

export function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A person of the account, not removed. */
export function findAccountUser(db: Db, accountId: string, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).where('account_id', '=', accountId).where('removed_at', 'is', null).executeTakeFirst();
}

export function findAccountUserByEmail(db: Db, accountId: string, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where(sql<string>`lower(email)`, '=', email.trim().toLowerCase())
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

/** The account's first owner: the one the operator's command line and the API's `password` set. */
export function firstOwner(db: Db, accountId: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .where('removed_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** The account's people, removed ones left out; owners first, then by name. */
export function listUsers(db: Db, accountId: string): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('account_id', '=', accountId).where('removed_at', 'is', null).orderBy('created_at').orderBy('id').execute();
}

/** Everyone who ever belonged to the account, removed people too (the audit page's filter). */
export function everyUser(db: Db, accountId: string): Promise<Pick<UserRow, 'id' | 'name' | 'email' | 'removed_at'>[]> {
  return db.selectFrom('users').select(['id', 'name', 'email', 'removed_at']).where('account_id', '=', accountId).orderBy('name').execute();
}

export async function countOwners(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select(countAll().as('n'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .where('removed_at', 'is', null)
    .where('password_hash', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** People with a password whose e-mail is this one, in any account, oldest first, with their account's state. */
export function usersWithPassword(db: Db, email: string, limit: number) {
  return db
    .selectFrom('users')
    .innerJoin('accounts', 'accounts.id', 'users.account_id')
    .selectAll('users')
    .select(['accounts.is_active as account_active', 'accounts.require_two_factor'])
    .where(sql<string>`lower(users.email)`, '=', email)
    .where('users.password_hash', 'is not', null)
    .where('users.removed_at', 'is', null)
    .orderBy('users.created_at')
    .orderBy('users.id')
    .limit(limit)
    .execute();
}

export async function insertToken(db: Db, row: Insertable<UserTokensTable>): Promise<void> {
  await db.insertInto('user_tokens').values(row).execute();
}

export function findToken(db: Db, tokenHash: string): Promise<Selectable<UserTokensTable> | undefined> {
  return db.selectFrom('user_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Marks a token used; false when another request used it first. */
export async function useToken(db: Db, tokenHash: string, at: string): Promise<boolean> {
  const r = await db.updateTable('user_tokens').set({ used_at: at }).where('token_hash', '=', tokenHash).where('used_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Ends a user's unused tokens of one purpose (a new invitation replaces the old link). */
export async function retireTokens(db: Db, userId: string, purpose: UserTokensTable['purpose'], at: string): Promise<void> {
  await db.updateTable('user_tokens').set({ used_at: at }).where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
}

/** The latest invitation of each invited person: when it was sent and until when it works. */
export function pendingInvitations(db: Db, accountId: string) {
  return db
    .selectFrom('user_tokens')
    .innerJoin('users', 'users.id', 'user_tokens.user_id')
    .select(['user_tokens.user_id', 'user_tokens.created_at', 'user_tokens.expires_at'])
    .where('users.account_id', '=', accountId)
    .where('user_tokens.purpose', '=', 'invite')
    .where('user_tokens.used_at', 'is', null)
    .execute();
}

export async function replaceRecoveryCodes(db: Db, userId: string, hashes: string[]): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  if (hashes.length)
    await db
      .insertInto('recovery_codes')
      .values(hashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null })))
      .execute();
}

/** Uses a recovery code; false when it is unknown or was used before. */
export async function useRecoveryCode(db: Db, userId: string, codeHash: string, at: string): Promise<boolean> {
  const r = await db.updateTable('recovery_codes').set({ used_at: at }).where('user_id', '=', userId).where('code_hash', '=', codeHash).where('used_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function unusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom('recovery_codes').select(countAll().as('n')).where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Accepts a TOTP time step once: false when this step (or a later one) was accepted already. */
export async function acceptTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const r = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The account a person belongs to, as a link they open names it (people sit below the accounts module: their sessions read the same row). */
export function findAccountOf(db: Db, accountId: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}
