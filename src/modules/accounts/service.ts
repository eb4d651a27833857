import { withTx, type Db } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { generateApiKey, hashApiKey } from '../../lib/api-keys.js';
import { AppError, badRequest, conflict as conflictError, forbidden, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { hashPassword } from '../../lib/passwords.js';
import { iso } from '../../lib/time.js';
import type { Actor } from '../../lib/actor.js';
import { audit } from '../audit/index.js';
import { setOwnerPassword } from '../users/index.js';
import { emitWebhook } from '../events/index.js';
import { newWebhookSecret } from '../webhooks/index.js';
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

/** Hours before check-in at which a guest portal still unfinished is told to the account's people, unless the account says otherwise. */
export const DEFAULT_PORTAL_ALERT_HOURS = 48;

const keyAad = (keyId: string, accountId: string) => `api_key:${keyId}:${accountId}`;

/** Creates an account with its first API key and webhook signing secret, in the caller's transaction if any. */
export async function createAccount(deps: Deps, db: Db, input: NewAccount, actor: Actor | null): Promise<{ account: AccountRow; apiKey: string }> {
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
    company_name: input.company?.name ?? null,
    company_email: input.company?.email ?? null,
    company_phone: input.company?.phone ?? null,
    pms: input.pms ?? 'api',
    is_reseller: input.isReseller ?? false,
    is_active: true,
    is_suspended: false,
    require_two_factor: false,
    portal_alert_hours: DEFAULT_PORTAL_ALERT_HOURS,
    webhook_secret_enc: newWebhookSecret(deps, id).sealed,
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
    await audit(tx, { account_id: row.parent_id, actor, action: 'account.created', subject_id: id, at: now });
    // The console password of the API's `password` (and of the command line) is the first owner's.
    if (input.passwordHash) await setOwnerPassword(deps, tx, row, input.passwordHash, actor);
    if (row.parent_id) {
      await emitWebhook(tx, deps, 'account_webhook_url', { accountId: row.parent_id, type: 'account.created', subjectId: id, body: toAccountView(row) });
    }
  });
  return { account: row, apiKey };
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

export async function registerChild(deps: Deps, caller: AccountRow, actor: Actor, input: ProfileInput & { name: string; email: string }) {
  const { password, ...rest } = input;
  const passwordHash = password ? await hashPassword(password) : null;
  return createAccount(deps, deps.db, { ...rest, passwordHash, parent: caller }, actor);
}

export interface StatusChange {
  status?: 'active' | 'disabled' | undefined;
  suspended?: boolean | undefined;
}

export async function updateManagedAccount(deps: Deps, caller: AccountRow, actor: Actor, id: string, profile: ProfileInput, change: StatusChange): Promise<AccountRow> {
  const target = await getManagedAccount(deps, caller, id);
  if (target.id === caller.id && (change.status !== undefined || change.suspended !== undefined)) {
    throw forbidden('an account cannot change its own status or suspension; its parent can');
  }
  const now = iso(deps.clock());
  const patch: Parameters<typeof repo.updateAccount>[2] = { updated_at: now };
  if (profile.name !== undefined) patch.name = profile.name;
  if (profile.email !== undefined) patch.email = profile.email;
  if (profile.phone !== undefined) patch.phone = profile.phone;
  const passwordHash = profile.password !== undefined ? await hashPassword(profile.password) : undefined;
  if (profile.company?.name !== undefined) patch.company_name = profile.company.name;
  if (profile.company?.email !== undefined) patch.company_email = profile.company.email;
  if (profile.company?.phone !== undefined) patch.company_phone = profile.company.phone;
  if (change.status !== undefined) patch.is_active = change.status === 'active';
  if (change.suspended !== undefined) patch.is_suspended = change.suspended;
  const result = await withTx(deps.db, async (tx) => {
    await repo.updateAccount(tx, target.id, patch);
    if (passwordHash) await setOwnerPassword(deps, tx, target, passwordHash, actor);
    await audit(tx, {
      account_id: target.parent_id,
      actor,
      action: 'account.updated',
      subject_id: target.id,
      detail: {
        fields: [...Object.keys(patch).filter((k) => k !== 'updated_at'), ...(passwordHash ? ['password'] : [])],
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

/** Named keys live beside the account's own key: for one integration each, optionally read-only. */
export const GRACE_HOURS = { min: 1, max: 7 * 24 };

export async function listNamedKeys(deps: Deps, account: AccountRow) {
  const rows = await repo.listNamedKeys(deps.db, account.id);
  const now = iso(deps.clock());
  return rows.filter((k) => !k.expires_at || k.expires_at > now).map((k) => ({ ...k, read_only: Boolean(k.read_only) }));
}

/** A new named key; its value is shown once and only its hash and sealed copy are kept. */
export async function createNamedKey(deps: Deps, account: AccountRow, actor: Actor, input: { name: string; readOnly: boolean }): Promise<{ id: string; value: string }> {
  const name = input.name.trim();
  if (!name || name.length > 100) throw badRequest('give the key a name (up to 100 characters), such as the integration that uses it');
  const value = generateApiKey();
  const id = newId('key');
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    await repo.insertApiKey(tx, {
      id,
      account_id: account.id,
      key_hash: hashApiKey(value),
      key_enc: deps.secrets.seal(value, keyAad(id, account.id)),
      created_at: now,
      revoked_at: null,
      name,
      read_only: input.readOnly,
      created_by: actor.id,
    });
    await audit(tx, { account_id: account.id, actor, action: 'key.created', subject_id: id, detail: { name, read_only: input.readOnly }, at: now });
  });
  return { id, value };
}

export async function revokeNamedKey(deps: Deps, account: AccountRow, actor: Actor, id: string): Promise<void> {
  const key = await repo.findNamedKey(deps.db, account.id, id);
  if (!key) throw notFound(`key ${id}`);
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    await repo.updateApiKey(tx, id, { revoked_at: now });
    await audit(tx, { account_id: account.id, actor, action: 'key.revoked', subject_id: id, detail: { name: key.name }, at: now });
  });
  deps.keyCache.clear();
}

/**
 * Rolls a named key: a new key with the same name and access, shown once, while the old one keeps
 * working for the grace period so integrations move over without a gap.
 */
export async function rollNamedKey(deps: Deps, account: AccountRow, actor: Actor, id: string, graceHours: number): Promise<{ id: string; value: string; oldUntil: string }> {
  if (!Number.isInteger(graceHours) || graceHours < GRACE_HOURS.min || graceHours > GRACE_HOURS.max) throw badRequest(`the grace period must be ${GRACE_HOURS.min} to ${GRACE_HOURS.max} hours`);
  const key = await repo.findNamedKey(deps.db, account.id, id);
  if (!key || (key.expires_at && key.expires_at <= iso(deps.clock()))) throw notFound(`key ${id}`);
  if (key.expires_at) throw conflictError('this key was rolled already; roll its successor instead');
  const now = deps.clock();
  const oldUntil = iso(new Date(now.getTime() + graceHours * 3_600_000));
  const value = generateApiKey();
  const newKeyId = newId('key');
  await withTx(deps.db, async (tx) => {
    await repo.updateApiKey(tx, id, { expires_at: oldUntil });
    await repo.insertApiKey(tx, {
      id: newKeyId,
      account_id: account.id,
      key_hash: hashApiKey(value),
      key_enc: deps.secrets.seal(value, keyAad(newKeyId, account.id)),
      created_at: iso(now),
      revoked_at: null,
      name: key.name,
      read_only: key.read_only,
      created_by: actor.id,
    });
    await audit(tx, { account_id: account.id, actor, action: 'key.rolled', subject_id: id, detail: { name: key.name, successor: newKeyId, old_until: oldUntil }, at: iso(now) });
  });
  deps.keyCache.clear();
  return { id: newKeyId, value, oldUntil };
}

/** Whether every person of the account must sign in with a second factor. */
export async function setRequireTwoFactor(deps: Deps, account: AccountRow, by: Actor, on: boolean): Promise<void> {
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    await repo.updateAccount(tx, account.id, { require_two_factor: on, updated_at: now });
    await audit(tx, { account_id: account.id, actor: by, action: on ? 'account.two_factor_required' : 'account.two_factor_optional', subject_id: account.id, at: now });
  });
}
