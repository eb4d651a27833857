import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { countAll } from '../../db/dialect.js';
import type { AccountsTable, ConsoleSessionsTable } from '../../db/schema.js';
import type { AccountRow } from '../accounts/repo.js';

/** Accounts with a password whose e-mail is this one, in any case, oldest first. */
export async function accountsWithPassword(db: Db, email: string, limit: number): Promise<(AccountRow & { password_hash: string })[]> {
  const rows = await db
    .selectFrom('accounts')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email)
    .where('password_hash', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows as (AccountRow & { password_hash: NonNullable<AccountsTable['password_hash']> })[];
}

export async function insertSession(db: Db, row: ConsoleSessionsTable): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute();
}

/** The account behind a session that has not expired. */
export async function findSessionAccount(db: Db, tokenHash: string, now: string): Promise<AccountRow | undefined> {
  return db
    .selectFrom('console_sessions')
    .innerJoin('accounts', 'accounts.id', 'console_sessions.account_id')
    .selectAll('accounts')
    .where('console_sessions.token_hash', '=', tokenHash)
    .where('console_sessions.expires_at', '>', now)
    .executeTakeFirst();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
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
