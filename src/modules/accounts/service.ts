import { withTx, type Db } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { generateApiKey, hashApiKey } from '../../lib/api-keys.js';
import { AppError, forbidden, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { hashPassword } from '../../lib/passwords.js';
import { iso } from '../../lib/time.js';
import { randomBytes } from 'node:crypto';
import { audit } from '../audit/repo.js';
import { emitWebhook } from '../events/service.js';
import * as repo from './repo.js';
import type { AccountRow } from './repo.js';

export type { AccountRow };

export interface AccountView {
  id: string;
  name: string;
  email: string;
  phone: string;
  is_active: boolean;
  is_suspended: boolean;
  is_reseller: boolean;
  last_login: string | null;
  created_at: string;
  company: { name: string; email: string; phone: string };
  billing: { parent_account: string | null };
}

export function toAccountView(row: AccountRow): AccountView {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone ?? '',
    is_active: Boolean(row.is_active),
    is_suspended: Boolean(row.is_suspended),
    is_reseller: Boolean(row.is_reseller),
    last_login: row.last_login,
    created_at: row.created_at,
    company: { name: row.company_name ?? '', email: row.company_email ?? '', phone: row.company_phone ?? '' },
    billing: { parent_account: row.parent_id },
  };
}

export interface ProfileInput {
  name?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  password?: string | undefined;
  company?: { name?: string | undefined; email?: string | undefined; phone?: string | undefined } | undefined;
}

export interface NewAccount {
  parent: AccountRow | null;
  name: string;
  email: string;
  phone?: string | undefined;
  /** From hashPassword(), computed before any transaction opens: scrypt is slow by design. */
  passwordHash?: string | null | undefined;
  company?: ProfileInput['company'];
  isReseller?: boolean;
  pms?: string;
  /** A key to install instead of a generated one (the operator's GUESTSCREEN_ROOT_KEY). */
  apiKey?: string;
}

const keyAad = (keyId: string, accountId: string) => `api_key:${keyId}:${accountId}`;
const webhookSecretAad = (accountId: string) => `webhook_secret:${accountId}`;

/** Creates an account with its first API key and webhook signing secret, in the caller's transaction if any. */
export async function createAccount(deps: Deps, db: Db, input: NewAccount, actorId: string | null): Promise<{ account: AccountRow; apiKey: string }> {
  const id = newId('acc');
  const now = iso(deps.clock());
  const apiKey = input.apiKey ?? generateApiKey();
  const row: AccountRow = {
    id,
    parent_id: input.parent?.id ?? null,
    path: `${input.parent?.path ?? '/'}${id}/`,
    name: input.name,
    email: input.email,
    phone: input.phone ?? null,
    password_hash: input.passwordHash ?? null,
    company_name: input.company?.name ?? null,
    company_email: input.company?.email ?? null,
    company_phone: input.company?.phone ?? null,
    pms: input.pms ?? 'api',
    is_reseller: input.isReseller ?? false,
    is_active: true,
    is_suspended: false,
    webhook_secret_enc: deps.secrets.seal(`whsec_${randomBytes(32).toString('base64')}`, webhookSecretAad(id)),
    webhook_secret_prev_enc: null,
    webhook_secret_rotated_at: null,
    last_login: null,
    created_at: now,
    updated_at: now,
  };
  const keyId = newId('key');
  await withTx(db, async (tx) => {
    await repo.insertAccount(tx, row);
    await repo.insertApiKey(tx, {
      id: keyId,
      account_id: id,
      key_hash: hashApiKey(apiKey),
      key_enc: deps.secrets.seal(apiKey, keyAad(keyId, id)),
      created_at: now,
      revoked_at: null,
    });
    await audit(tx, { account_id: row.parent_id, actor_id: actorId, action: 'account.created', subject_id: id, at: now });
    if (row.parent_id) {
      await emitWebhook(tx, deps, 'account_webhook_url', { accountId: row.parent_id, type: 'account.created', subjectId: id, body: toAccountView(row) });
    }
  });
  return { account: row, apiKey };
}

export function webhookSecret(deps: Deps, account: AccountRow): string {
  return deps.secrets.open(account.webhook_secret_enc, webhookSecretAad(account.id));
}

/** Creates the operator's root account on first start; returns its key only when it was just made. */
export async function bootstrapRoot(deps: Deps): Promise<{ account: AccountRow; apiKey: string | null }> {
  return withTx(deps.db, async (tx) => {
    const existing = await repo.findRootAccount(tx);
    if (existing) return { account: existing, apiKey: null };
    const created = await createAccount(
      deps,
      tx,
      {
        parent: null,
        name: 'Operator',
        email: 'operator@localhost',
        isReseller: true,
        ...(deps.config.rootKey ? { apiKey: deps.config.rootKey } : {}),
      },
      null,
    );
    return created;
  });
}

export function manages(caller: AccountRow, target: AccountRow): boolean {
  return target.path.startsWith(caller.path);
}

/** The account, if it is the caller or one of its descendants; otherwise 404 (never 403: no existence leaks). */
export async function getManagedAccount(deps: Deps, caller: AccountRow, id: string): Promise<AccountRow> {
  const target = id === caller.id ? caller : await repo.findAccount(deps.db, id);
  if (!target || !manages(caller, target)) throw notFound(`account ${id}`);
  return target;
}

/** The account a request with `user_id` acts on: that managed account, or the caller without one. */
export const accountFor = (deps: Deps, caller: AccountRow, userId: string | undefined): Promise<AccountRow> =>
  userId === undefined ? Promise.resolve(caller) : getManagedAccount(deps, caller, userId);

export async function listChildren(deps: Deps, caller: AccountRow, from: number, size: number) {
  const { total, rows } = await repo.listChildren(deps.db, caller.id, from, size);
  return {
    from,
    size,
    total,
    // The API's schema shows the first four; the console shows each account's state too.
    items: rows.map((r) => ({
      id: r.id,
      name: r.name,
      email: r.email,
      phone: r.phone ?? '',
      is_active: Boolean(r.is_active),
      is_suspended: Boolean(r.is_suspended),
      is_reseller: Boolean(r.is_reseller),
      created_at: r.created_at,
    })),
  };
}

export async function listKeys(deps: Deps, caller: AccountRow) {
  const rows = await repo.listSubtreeKeys(deps.db, caller.path);
  return rows.map((r) => ({
    user_id: r.account_id,
    user_name: r.account_name,
    value: deps.secrets.open(r.key_enc, keyAad(r.key_id, r.account_id)),
  }));
}

export async function registerChild(deps: Deps, caller: AccountRow, input: ProfileInput & { name: string; email: string }) {
  const { password, ...rest } = input;
  const passwordHash = password ? await hashPassword(password) : null;
  return createAccount(deps, deps.db, { ...rest, passwordHash, parent: caller }, caller.id);
}

export interface StatusChange {
  status?: 'active' | 'disabled' | undefined;
  suspended?: boolean | undefined;
}

export async function updateManagedAccount(deps: Deps, caller: AccountRow, id: string, profile: ProfileInput, change: StatusChange): Promise<AccountRow> {
  const target = await getManagedAccount(deps, caller, id);
  if (target.id === caller.id && (change.status !== undefined || change.suspended !== undefined)) {
    throw forbidden('an account cannot change its own status or suspension; its parent can');
  }
  const now = iso(deps.clock());
  const patch: Parameters<typeof repo.updateAccount>[2] = { updated_at: now };
  if (profile.name !== undefined) patch.name = profile.name;
  if (profile.email !== undefined) patch.email = profile.email;
  if (profile.phone !== undefined) patch.phone = profile.phone;
  if (profile.password !== undefined) patch.password_hash = await hashPassword(profile.password);
  if (profile.company?.name !== undefined) patch.company_name = profile.company.name;
  if (profile.company?.email !== undefined) patch.company_email = profile.company.email;
  if (profile.company?.phone !== undefined) patch.company_phone = profile.company.phone;
  if (change.status !== undefined) patch.is_active = change.status === 'active';
  if (change.suspended !== undefined) patch.is_suspended = change.suspended;
  const result = await withTx(deps.db, async (tx) => {
    await repo.updateAccount(tx, target.id, patch);
    await audit(tx, {
      account_id: target.parent_id,
      actor_id: caller.id,
      action: 'account.updated',
      subject_id: target.id,
      detail: {
        fields: Object.keys(patch)
          .filter((k) => k !== 'updated_at')
          .map((k) => k.replace('_hash', '')),
        ...change,
      },
      at: now,
    });
    const updated = await repo.findAccount(tx, target.id);
    if (!updated) throw new AppError('internal', 'account vanished during update');
    if (updated.parent_id) {
      await emitWebhook(tx, deps, 'account_webhook_url', { accountId: updated.parent_id, type: 'account.updated', subjectId: updated.id, body: toAccountView(updated) });
    }
    return updated;
  });
  // After the commit, so no request caches the row as it was.
  deps.keyCache.clear();
  return result;
}
