import { sql } from 'kysely';
import { type Insertable, type Updateable } from 'kysely';
import type { Db } from '../../db/connection.js';
import { countAll, startsWithLike } from '../../db/dialect.js';
import type { AccountRow, AccountsTable, ApiKeysTable } from '../../db/schema.js';

export type { AccountRow };

export async function insertAccount(db: Db, row: Insertable<AccountsTable>): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function insertApiKey(db: Db, row: Insertable<ApiKeysTable>): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findRootAccount(db: Db): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('parent_id', 'is', null).orderBy('created_at').executeTakeFirst();
}

/** What a request knows of the key it came with. */
export interface KeyInfo {
  id: string;
  /** Null for the account's own key. */
  name: string | null;
  readOnly: boolean;
  /** A rolled key's end (ISO), or null. */
  expiresAt: string | null;
}

export async function findAccountByKeyHash(db: Db, keyHash: string): Promise<{ account: AccountRow; key: KeyInfo } | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .selectAll('accounts')
    .select(['api_keys.id as key_id', 'api_keys.name as key_name', 'api_keys.read_only as key_read_only', 'api_keys.expires_at as key_expires_at'])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const { key_id, key_name, key_read_only, key_expires_at, ...account } = row;
  return { account, key: { id: key_id, name: key_name, readOnly: Boolean(key_read_only), expiresAt: key_expires_at } };
}

/** Moves a key's last use forward only. */
export async function touchKeyUsed(db: Db, id: string, at: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
    .execute();
}

/** Accounts whose e-mail is this one, in any case, oldest first. */
export function accountsByEmail(db: Db, email: string): Promise<AccountRow[]> {
  return db
    .selectFrom('accounts')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email.trim().toLowerCase())
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Every account, oldest first (the command line's list; an installation holds a few thousand at most). */
export function allAccounts(db: Db): Promise<AccountRow[]> {
  return db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function listChildren(db: Db, parentId: string, from: number, size: number): Promise<{ total: number; rows: AccountRow[] }> {
  const [count, rows] = await Promise.all([
    db.selectFrom('accounts').select(countAll().as('n')).where('parent_id', '=', parentId).executeTakeFirstOrThrow(),
    db.selectFrom('accounts').selectAll().where('parent_id', '=', parentId).orderBy('created_at').orderBy('id').offset(from).limit(size).execute(),
  ]);
  return { total: Number(count.n), rows };
}

export interface SubtreeKeyRow {
  key_id: string;
  key_enc: string;
  account_id: string;
  account_name: string;
}

/** Every active key of every account whose path starts with the given one (the account itself included). */
export async function listSubtreeKeys(db: Db, path: string): Promise<SubtreeKeyRow[]> {
  return (
    db
      .selectFrom('accounts')
      .innerJoin('api_keys', 'api_keys.account_id', 'accounts.id')
      .select(['api_keys.id as key_id', 'api_keys.key_enc', 'accounts.id as account_id', 'accounts.name as account_name'])
      .where(startsWithLike('accounts.path', path))
      .where('api_keys.revoked_at', 'is', null)
      // The spec's one key per account; the named keys made in the console are the account's own.
      .where('api_keys.name', 'is', null)
      .orderBy('accounts.path')
      .orderBy('api_keys.created_at')
      .execute()
  );
}

export async function updateAccount(db: Db, id: string, patch: Updateable<AccountsTable>): Promise<void> {
  await db.updateTable('accounts').set(patch).where('id', '=', id).execute();
}

/** Moves last_login forward only; a slower writer never puts it back. */
export async function touchLastLogin(db: Db, id: string, at: string): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ last_login: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_login', 'is', null), eb('last_login', '<', at)]))
    .execute();
}

/** The named keys of an account (made in the console), newest first, revoked ones left out. */
export function listNamedKeys(db: Db, accountId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'name', 'read_only', 'created_at', 'expires_at', 'last_used_at', 'created_by'])
    .where('account_id', '=', accountId)
    .where('name', 'is not', null)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .execute();
}

export function findNamedKey(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'name', 'read_only', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('name', 'is not', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function updateApiKey(db: Db, id: string, patch: Updateable<ApiKeysTable>): Promise<void> {
  await db.updateTable('api_keys').set(patch).where('id', '=', id).execute();
}
