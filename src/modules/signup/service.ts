import { createHash, randomBytes } from 'node:crypto';
import { withTx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { badRequest, GuestError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { hashPassword } from '../../lib/passwords.js';
import { iso } from '../../lib/time.js';
import { findAccount, type AccountRow, createAccount } from '../accounts/index.js';
import * as repo from './repo.js';
import type { SignupLinkRow } from './repo.js';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export function assertKnownPms(deps: Deps, pms: string, field: string): void {
  if (!deps.config.pmsNames.includes(pms)) {
    throw badRequest(`${field}: must be 'api' or a configured PMS name (${deps.config.pmsNames.join(', ')})`);
  }
}

/**
 * A single-use link that lets someone create a child account of the reseller. The token is
 * 32 random bytes; only its hash is stored, so the database alone cannot be used to sign up.
 */
export async function createSignupLink(deps: Deps, reseller: AccountRow, opts: { pms: string; redirect?: string | undefined; hidePassword: boolean }): Promise<{ url: string; expiry: string }> {
  assertKnownPms(deps, opts.pms, 'query.pms');
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock();
  const expiry = iso(new Date(now.getTime() + deps.config.signupTtlHours * 3600_000));
  const id = newId('sgn');
  await withTx(
    deps.db,
    (tx) =>
      repo.insertSignupLink(tx, {
        id,
        token_hash: hashToken(token),
        reseller_id: reseller.id,
        pms: opts.pms,
        redirect: opts.redirect ?? null,
        hide_password: opts.hidePassword,
        expires_at: expiry,
        used_at: null,
        account_id: null,
        created_at: iso(now),
      }),
    { subject: id },
  );
  return { url: `${deps.config.publicUrl}/signup/${token}`, expiry };
}

export interface OpenLink {
  link: SignupLinkRow;
  reseller: AccountRow;
}

/** The link behind a token, or a 404/410 the signup page shows as a readable error. */
export async function openSignupLink(deps: Deps, token: string): Promise<OpenLink> {
  const link = /^[A-Za-z0-9_-]{43}$/.test(token) ? await repo.findSignupLinkByTokenHash(deps.db, hashToken(token)) : undefined;
  if (!link) throw new GuestError('not_found', 'error.signup.not_found', 'This signup link is not valid. Check that you copied the whole address.');
  if (link.used_at) throw new GuestError('gone', 'error.signup.used', 'This signup link has already been used. Ask for a new one.');
  if (Date.parse(link.expires_at) <= deps.clock().getTime()) {
    throw new GuestError('gone', 'error.signup.expired', 'This signup link has expired. Ask for a new one.');
  }
  const reseller = await findAccount(deps.db, link.reseller_id);
  if (!reseller || !reseller.is_active || reseller.is_suspended) {
    throw new GuestError('gone', 'error.signup.inactive', 'This signup link is no longer active.');
  }
  return { link, reseller };
}

export interface SignupForm {
  name: string;
  email: string;
  phone?: string | undefined;
  company?: string | undefined;
  password?: string | undefined;
}

export async function completeSignup(deps: Deps, token: string, form: SignupForm) {
  const { link, reseller } = await openSignupLink(deps, token);
  const passwordHash = !link.hide_password && form.password ? await hashPassword(form.password) : null;
  return withTx(deps.db, async (tx) => {
    const created = await createAccount(
      deps,
      tx,
      {
        parent: reseller,
        name: form.name,
        email: form.email,
        phone: form.phone,
        company: form.company ? { name: form.company } : undefined,
        passwordHash,
        pms: link.pms,
      },
      null,
    );
    if (!(await repo.claimSignupLink(tx, link.id, created.account.id, iso(deps.clock())))) {
      throw new GuestError('gone', 'error.signup.used', 'This signup link has already been used. Ask for a new one.');
    }
    return { ...created, redirect: link.redirect };
  });
}
