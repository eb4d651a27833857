import { createHash, randomBytes } from 'node:crypto';
import { withTx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { iso } from '../../lib/time.js';
import type { AccountRow } from '../../db/schema.js';
import { audit } from '../audit/index.js';
import { usersWithPassword, type UserRow } from './repo.js';
import { checkSecondFactor, userActor } from './service.js';
import * as repo from './sessions-repo.js';
import type { SessionRow } from './sessions-repo.js';

export type { SessionRow };

/** Failed sign-ins are counted over this window; past a limit, sign-in waits until it ends. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Failures for one e-mail (wrong passwords and wrong second-factor codes) before it is locked for the rest of the window. */
export const FAILURES_PER_EMAIL = 5;
/** Failures from one client address, whatever the e-mail (someone trying many). */
export const FAILURES_PER_ADDRESS = 30;
/** People sharing one e-mail (in several accounts) that a sign-in tries the password against. */
const SHARED_EMAIL_LIMIT = 10;
/** How long a session waits for the second factor after the password. */
const SECOND_FACTOR_MS = 10 * 60_000;
/** A session's last use is written at most this often. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

// A hash to verify against when no one has the e-mail, so an unknown e-mail takes as long
// to refuse as a wrong password: the answer's time says nothing about who exists.
let decoy: Promise<string> | undefined;

async function lockedUntil(deps: Deps, email: string, address: string, now: Date): Promise<Date | undefined> {
  const since = iso(new Date(now.getTime() - SIGN_IN_WINDOW_MS));
  const counts = await repo.countSignInFailures(deps.db, email, address, since);
  const over = counts.email >= FAILURES_PER_EMAIL ? 'email' : counts.address >= FAILURES_PER_ADDRESS ? 'address' : undefined;
  if (!over) return undefined;
  const oldest = await repo.oldestSignInFailure(deps.db, over, over === 'email' ? email : address, since);
  return new Date(Date.parse(oldest ?? iso(now)) + SIGN_IN_WINDOW_MS);
}

function lockout(until: Date, now: Date) {
  const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60_000));
  return { ok: false as const, status: 429 as const, message: `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, retryAfterSeconds: minutes * 60 };
}

/** Where a new session stands: signed in, waiting for the second factor, or to set one up first. */
export type Stage = 'in' | 'code' | 'enrol';

export type SignIn = { ok: true; token: string; stage: Stage; user: UserRow } | { ok: false; status: 401 | 429; message: string; retryAfterSeconds?: number };

/**
 * Signs a person in with their e-mail and password: a new session's token (the cookie's value;
 * only its digest is stored). People may share an e-mail across accounts (a reseller's children
 * often do): the oldest whose password matches is signed in. With two-factor sign-in on, the
 * session waits for a code (stage 'code'); in an account that requires it, a person without it
 * sets it up first ('enrol'). After FAILURES_PER_EMAIL failures for an e-mail in
 * SIGN_IN_WINDOW_MS, or FAILURES_PER_ADDRESS from one address, sign-in is refused until the
 * window has passed, even with the right password.
 */
export async function signIn(deps: Deps, input: { email: string; password: string; address: string; userAgent?: string | undefined }): Promise<SignIn> {
  const email = input.email.trim().toLowerCase();
  const now = deps.clock();
  const until = await lockedUntil(deps, email, input.address, now);
  if (until) return lockout(until, now);
  const candidates = email && input.password ? await usersWithPassword(deps.db, email, SHARED_EMAIL_LIMIT) : [];
  let user: (typeof candidates)[number] | undefined;
  for (const c of candidates) {
    if (c.password_hash && (await verifyPassword(input.password, c.password_hash))) {
      user = c;
      break;
    }
  }
  if (!candidates.length) await verifyPassword(input.password, await (decoy ??= hashPassword(randomBytes(16).toString('hex'))));
  if (!user) {
    await repo.insertSignInFailure(deps.db, { id: newId('sif'), email, address: input.address, created_at: iso(now) });
    return { ok: false, status: 401, message: 'That e-mail and password do not match an account. Check both and try again.' };
  }
  if (!user.account_active) return { ok: false, status: 401, message: 'This account is disabled. Ask whoever manages your account to enable it.' };
  const stage: Stage = user.totp_enabled_at ? 'code' : user.require_two_factor ? 'enrol' : 'in';
  const token = `gss_${randomBytes(32).toString('base64url')}`;
  const expires = stage === 'code' ? new Date(now.getTime() + SECOND_FACTOR_MS) : new Date(now.getTime() + deps.config.consoleSessionHours * 3_600_000);
  const { account_active: _active, require_two_factor: _required, ...signedIn } = user;
  await withTx(deps.db, async (tx) => {
    if (stage !== 'code') await repo.clearSignInFailures(tx, email);
    await repo.deleteExpiredSessions(tx, iso(now));
    await repo.deleteOldSignInFailures(tx, iso(new Date(now.getTime() - SIGN_IN_WINDOW_MS)));
    await repo.insertSession(tx, {
      token_hash: digest(token),
      id: newId('ses'),
      account_id: signedIn.account_id,
      user_id: signedIn.id,
      stage,
      address: input.address,
      user_agent: input.userAgent?.slice(0, 400) ?? null,
      last_seen_at: iso(now),
      created_at: iso(now),
      expires_at: iso(expires),
    });
    if (stage !== 'code') await audit(tx, { account_id: signedIn.account_id, actor: userActor(signedIn), action: 'session.signed_in', subject_id: signedIn.id, at: iso(now) });
  });
  return { ok: true, token, stage, user: signedIn };
}

/**
 * The second factor of a session waiting for one: a right code signs it in for the session's
 * full time; a wrong one counts as a failed sign-in, so guessing codes meets the same lockout
 * as guessing passwords.
 */
export async function completeSignIn(
  deps: Deps,
  token: string,
  code: string,
  address: string,
): Promise<{ ok: true; via: 'totp' | 'recovery' } | { ok: false; status: 401 | 429; message: string; retryAfterSeconds?: number }> {
  const now = deps.clock();
  const found = await repo.findLiveSession(deps.db, digest(token), iso(now));
  if (!found || found.session.stage !== 'code' || found.user.removed_at) return { ok: false, status: 401, message: 'Your sign-in has timed out. Sign in again.' };
  const email = found.user.email.toLowerCase();
  const until = await lockedUntil(deps, email, address, now);
  if (until) return lockout(until, now);
  const via = await checkSecondFactor(deps, found.user, code);
  if (!via) {
    await repo.insertSignInFailure(deps.db, { id: newId('sif'), email, address, created_at: iso(now) });
    return { ok: false, status: 401, message: 'That code is not right, or was used already. Enter the 6 digits your app shows now, or a recovery code.' };
  }
  await withTx(deps.db, async (tx) => {
    await repo.clearSignInFailures(tx, email);
    await repo.updateSession(tx, digest(token), { stage: 'in', last_seen_at: iso(now), expires_at: iso(new Date(now.getTime() + deps.config.consoleSessionHours * 3_600_000)) });
    await audit(tx, { account_id: found.account.id, actor: userActor(found.user), action: 'session.signed_in', subject_id: found.user.id, detail: { second_factor: via }, at: iso(now) });
  });
  return { ok: true, via };
}

/** A session that requires enrolment moves on once the person has set up a second factor. */
export async function enrolled(deps: Deps, token: string): Promise<void> {
  await repo.updateSession(deps.db, digest(token), { stage: 'in' });
}

export interface LiveSession {
  session: SessionRow;
  user: UserRow;
  account: AccountRow;
}

/** The session behind a cookie, or undefined when it is unknown, signed out, expired or its person removed. */
export async function sessionFor(deps: Deps, token: string): Promise<LiveSession | undefined> {
  const now = deps.clock();
  const found = await repo.findLiveSession(deps.db, digest(token), iso(now));
  if (!found || found.user.removed_at || found.user.account_id !== found.account.id) return undefined;
  if (!found.session.last_seen_at || now.getTime() - Date.parse(found.session.last_seen_at) >= LAST_SEEN_RESOLUTION_MS) {
    found.session.last_seen_at = iso(now);
    await repo.updateSession(deps.db, digest(token), { last_seen_at: iso(now) });
  }
  return found;
}

export const tokenDigest = digest;

export async function signOut(deps: Deps, token: string): Promise<void> {
  await repo.deleteSession(deps.db, digest(token));
}

/** A person's own sessions; an owner's view holds everyone's in the account. */
export const userSessions = (deps: Deps, user: UserRow) => repo.userSessions(deps.db, user.id, iso(deps.clock()));
export const accountSessions = (deps: Deps, account: AccountRow) => repo.accountSessions(deps.db, account.id, iso(deps.clock()));

/** Ends a session: one's own, or (an owner) anyone's in the account. */
export async function endSession(deps: Deps, by: UserRow, sessionId: string, anyone: boolean): Promise<void> {
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    if (!(await repo.deleteSessionById(tx, by.account_id, sessionId, anyone ? undefined : by.id))) throw notFound(`session ${sessionId}`);
    await audit(tx, { account_id: by.account_id, actor: userActor(by), action: 'session.ended', subject_id: sessionId, at: now });
  });
}
