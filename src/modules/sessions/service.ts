import { createHash, randomBytes } from 'node:crypto';
import { withTx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { newId } from '../../lib/ids.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { iso } from '../../lib/time.js';
import type { AccountRow } from '../accounts/repo.js';
import * as repo from './repo.js';

/** Failed sign-ins are counted over this window; past a limit, sign-in waits until it ends. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Failures for one e-mail before it is locked for the rest of the window. */
export const FAILURES_PER_EMAIL = 5;
/** Failures from one client address, whatever the e-mail (someone trying many). */
export const FAILURES_PER_ADDRESS = 30;
/** Accounts sharing one e-mail that a sign-in tries the password against. */
const SHARED_EMAIL_LIMIT = 10;

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

// A hash to verify against when no account has the e-mail, so an unknown e-mail takes as long
// to refuse as a wrong password: the answer's time says nothing about which accounts exist.
let decoy: Promise<string> | undefined;

async function lockedUntil(deps: Deps, email: string, address: string, now: Date): Promise<Date | undefined> {
  const since = iso(new Date(now.getTime() - SIGN_IN_WINDOW_MS));
  const counts = await repo.countSignInFailures(deps.db, email, address, since);
  const over = counts.email >= FAILURES_PER_EMAIL ? 'email' : counts.address >= FAILURES_PER_ADDRESS ? 'address' : undefined;
  if (!over) return undefined;
  const oldest = await repo.oldestSignInFailure(deps.db, over, over === 'email' ? email : address, since);
  return new Date(Date.parse(oldest ?? iso(now)) + SIGN_IN_WINDOW_MS);
}

/**
 * Signs a host in with the account's e-mail and password: a new session's token (the cookie's
 * value; only its digest is stored) and the account. Accounts may share an e-mail (a reseller's
 * children often do): the oldest whose password matches is signed in. After
 * FAILURES_PER_EMAIL failures for an e-mail in SIGN_IN_WINDOW_MS, or FAILURES_PER_ADDRESS from one
 * address, sign-in is refused until the window has passed, even with the right password.
 */
export type SignIn = { ok: true; token: string; account: AccountRow } | { ok: false; status: 401 | 429; message: string; retryAfterSeconds?: number };

export async function signIn(deps: Deps, input: { email: string; password: string; address: string }): Promise<SignIn> {
  const email = input.email.trim().toLowerCase();
  const now = deps.clock();
  const until = await lockedUntil(deps, email, input.address, now);
  if (until) {
    const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60_000));
    return { ok: false, status: 429, message: `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, retryAfterSeconds: minutes * 60 };
  }
  const candidates = email && input.password ? await repo.accountsWithPassword(deps.db, email, SHARED_EMAIL_LIMIT) : [];
  let account: AccountRow | undefined;
  for (const c of candidates) {
    if (await verifyPassword(input.password, c.password_hash)) {
      account = c;
      break;
    }
  }
  if (!candidates.length) await verifyPassword(input.password, await (decoy ??= hashPassword(randomBytes(16).toString('hex'))));
  if (!account) {
    await repo.insertSignInFailure(deps.db, { id: newId('sif'), email, address: input.address, created_at: iso(now) });
    return { ok: false, status: 401, message: 'That e-mail and password do not match an account. Check both and try again.' };
  }
  if (!account.is_active) return { ok: false, status: 401, message: 'This account is disabled. Ask whoever manages your account to enable it.' };
  const token = `gss_${randomBytes(32).toString('base64url')}`;
  const expires = new Date(now.getTime() + deps.config.consoleSessionHours * 3_600_000);
  const signedIn = account;
  await withTx(deps.db, async (tx) => {
    await repo.clearSignInFailures(tx, email);
    await repo.deleteExpiredSessions(tx, iso(now));
    await repo.deleteOldSignInFailures(tx, iso(new Date(now.getTime() - SIGN_IN_WINDOW_MS)));
    await repo.insertSession(tx, { token_hash: digest(token), account_id: signedIn.id, created_at: iso(now), expires_at: iso(expires) });
  });
  return { ok: true, token, account };
}

/** The signed-in account, or undefined when the session is unknown, signed out or expired. */
export async function sessionAccount(deps: Deps, token: string): Promise<AccountRow | undefined> {
  return repo.findSessionAccount(deps.db, digest(token), iso(deps.clock()));
}

export async function signOut(deps: Deps, token: string): Promise<void> {
  await repo.deleteSession(deps.db, digest(token));
}
