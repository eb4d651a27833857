import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { withTx, type Db } from '../../db/connection.js';
import type { AccountRow, Role } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { iso } from '../../lib/time.js';
import type { Actor } from '../../lib/actor.js';
import { audit } from '../audit/index.js';
import { outboxFile, sendPeopleEmail, type Via, type MessageParts } from '../mail/index.js';
import { deleteUserSessions } from './sessions-repo.js';
import * as repo from './repo.js';
import type { UserRow } from './repo.js';

export type { UserRow };

export const ROLES = ['owner', 'manager', 'reviewer', 'viewer'] as const satisfies readonly Role[];

/** Each role can do all that the roles below it can. */
export const ROLE_RANK: Record<Role, number> = { viewer: 0, reviewer: 1, manager: 2, owner: 3 };

export const ROLE_WORDS: Record<Role, string> = { owner: 'Owner', manager: 'Manager', reviewer: 'Reviewer', viewer: 'Viewer' };

export const ROLE_HELP: Record<Role, string> = {
  owner: 'everything, including people, API keys and who did what',
  manager: 'all the work: reservations, rules, blocklist, settings, webhooks and checks',
  reviewer: 'the review queue: approve, decline, notes and adding to the blocklist',
  viewer: 'reads everything, changes nothing',
};

export const can = (user: Pick<UserRow, 'role'>, needed: Role) => ROLE_RANK[user.role] >= ROLE_RANK[needed];

export const userActor = (u: Pick<UserRow, 'id' | 'name'>): Actor => ({ type: 'user', id: u.id, name: u.name });

/** An invitation link works this long. */
export const INVITATION_DAYS = 7;
/** A password reset link works this long. */
export const RESET_MINUTES = 60;
export const RECOVERY_CODES = 10;

const PASSWORD_MIN = 8;
const PASSWORD_MAX = 256;

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) throw badRequest(`the password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
}

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

async function issueToken(db: Db, userId: string, purpose: 'invite' | 'reset', now: Date, ttlMs: number): Promise<string> {
  const token = `gst_${randomBytes(32).toString('base64url')}`;
  await repo.insertToken(db, { token_hash: digest(token), user_id: userId, purpose, created_at: iso(now), expires_at: iso(new Date(now.getTime() + ttlMs)), used_at: null });
  return token;
}

/** A person as first stored: an owner made by the operator or at sign-up, or someone invited. */
function newUser(accountId: string, who: Pick<UserRow, 'email' | 'name' | 'role'> & Partial<Pick<UserRow, 'password_hash' | 'invited_by' | 'joined_at'>>, now: string): UserRow {
  return {
    id: newId('usr'),
    account_id: accountId,
    password_hash: null,
    totp_secret_enc: null,
    totp_enabled_at: null,
    totp_last_step: null,
    invited_by: null,
    joined_at: null,
    removed_at: null,
    created_at: now,
    updated_at: now,
    alerts: 'each',
    last_digest_at: null,
    ...who,
  };
}

/**
 * The account's console password, as the operator's command line and the API's `password` set
 * it: the first owner's. An account without people gets its first owner, named and addressed as
 * the account.
 */
export async function setOwnerPassword(deps: Deps, db: Db, account: AccountRow, passwordHash: string, actor: Actor | null): Promise<UserRow> {
  const now = iso(deps.clock());
  const owner = await repo.firstOwner(db, account.id);
  if (owner) {
    await repo.updateUser(db, owner.id, { password_hash: passwordHash, joined_at: owner.joined_at ?? now, updated_at: now });
    await audit(db, { account_id: account.id, actor, action: 'user.password_set', subject_id: owner.id, at: now });
    return { ...owner, password_hash: passwordHash };
  }
  const row = newUser(account.id, { email: account.email, name: account.name, role: 'owner', password_hash: passwordHash, joined_at: now }, now);
  await repo.insertUser(db, row);
  await audit(db, { account_id: account.id, actor, action: 'user.created', subject_id: row.id, detail: { role: 'owner' }, at: now });
  return row;
}

/** A person's state as the people page shows it. */
export interface PersonView {
  user: UserRow;
  /** 'active', or 'invited' with the invitation's end ('expired' once it has passed). */
  state: 'active' | 'invited' | 'expired';
  invitationExpires: string | null;
}

export async function listPeople(deps: Deps, account: AccountRow): Promise<PersonView[]> {
  const [users, invitations] = await Promise.all([repo.listUsers(deps.db, account.id), repo.pendingInvitations(deps.db, account.id)]);
  const now = iso(deps.clock());
  return users.map((user) => {
    if (user.password_hash) return { user, state: 'active', invitationExpires: null };
    const latest = invitations.filter((i) => i.user_id === user.id).sort((a, b) => b.expires_at.localeCompare(a.expires_at))[0];
    return { user, state: latest && latest.expires_at > now ? 'invited' : 'expired', invitationExpires: latest?.expires_at ?? null };
  });
}

/**
 * A link sent to one person (an invitation, or a password reset an owner asked for them), as the
 * owner is told of it: how it went and, unless it was e-mailed, the link to pass on themselves.
 */
export interface PersonLink {
  user: UserRow;
  purpose: 'invite' | 'reset';
  link: string;
  /** 'smtp' e-mailed, 'outbox' saved without a mail server, null when sending failed. */
  via: Via | null;
  /** The outbox file the e-mail was saved as, when it was. */
  file: string | null;
}

/** Sends a person their link; a failed e-mail is logged and told, the link stands. */
async function sendLink(deps: Deps, user: UserRow, purpose: PersonLink['purpose'], link: string, subject: string, parts: Omit<MessageParts, 'signature' | 'url'>): Promise<PersonLink> {
  const id = newId('not');
  try {
    const via = await sendPeopleEmail(deps.config, id, user.email, subject, { ...parts, url: link });
    return { user, purpose, link, via, file: via === 'outbox' ? outboxFile(deps.config, id) : null };
  } catch (err) {
    deps.log?.warn({ err, user: user.id }, `${purpose === 'invite' ? 'invitation' : 'password reset'} e-mail not sent`);
    return { user, purpose, link, via: null, file: null };
  }
}

function sendInvitation(deps: Deps, account: AccountRow, by: Actor, user: UserRow, token: string): Promise<PersonLink> {
  return sendLink(deps, user, 'invite', `${deps.config.publicUrl}/console/invitation/${token}`, `${by.name} invited you to ${account.name} on guestscreen`, {
    greeting: `Hello${user.name ? ` ${user.name}` : ''},`,
    lead: `${by.name} invited you to screen guests with ${account.name} as ${ROLE_WORDS[user.role].toLowerCase()}. Open this link within ${INVITATION_DAYS} days to choose your password:`,
    closing: 'If you did not expect this, ignore this message: nothing happens until the link is opened.',
  });
}

function sendReset(deps: Deps, account: AccountRow | undefined, user: UserRow, token: string, askedBy: string): Promise<PersonLink> {
  return sendLink(deps, user, 'reset', `${deps.config.publicUrl}/console/reset/${token}`, 'Reset your guestscreen password', {
    greeting: `Hello ${user.name},`,
    lead: `${askedBy} asked to reset your password for ${account?.name ?? 'your account'} on guestscreen. Open this link within ${RESET_MINUTES} minutes to choose a new one:`,
    closing: 'If you did not expect it, ignore this message: your password stays as it is.',
  });
}

export async function invite(deps: Deps, account: AccountRow, by: Actor, input: { email: string; name?: string | undefined; role: Role }): Promise<PersonLink> {
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) throw badRequest('the e-mail address is not valid');
  if (!ROLES.includes(input.role)) throw badRequest(`the role must be one of ${ROLES.join(', ')}`);
  const name = (input.name ?? '').trim().slice(0, 200);
  const now = deps.clock();
  const user = newUser(account.id, { email, name, role: input.role, invited_by: by.id }, iso(now));
  const token = await withTx(deps.db, async (tx) => {
    if (await repo.findAccountUserByEmail(tx, account.id, email)) throw conflict(`${email} is already one of this account's people`);
    await repo.insertUser(tx, user);
    await audit(tx, { account_id: account.id, actor: by, action: 'user.invited', subject_id: user.id, detail: { role: user.role }, at: iso(now) });
    return issueToken(tx, user.id, 'invite', now, INVITATION_DAYS * 86_400_000);
  });
  return sendInvitation(deps, account, by, user, token);
}

async function person(deps: Deps, account: AccountRow, userId: string): Promise<UserRow> {
  const user = await repo.findAccountUser(deps.db, account.id, userId);
  if (!user) throw notFound(`person ${userId}`);
  return user;
}

/** A new link for an invited person; the old one stops working. */
export async function resendInvitation(deps: Deps, account: AccountRow, by: Actor, userId: string): Promise<PersonLink> {
  const user = await person(deps, account, userId);
  if (user.password_hash) throw conflict(`${user.email} has already accepted the invitation`);
  const now = deps.clock();
  const token = await withTx(deps.db, async (tx) => {
    await repo.retireTokens(tx, user.id, 'invite', iso(now));
    await audit(tx, { account_id: account.id, actor: by, action: 'user.invitation_resent', subject_id: user.id, at: iso(now) });
    return issueToken(tx, user.id, 'invite', now, INVITATION_DAYS * 86_400_000);
  });
  return sendInvitation(deps, account, by, user, token);
}

async function remainingOwners(db: Db, accountId: string, without: UserRow): Promise<number> {
  const owners = await repo.countOwners(db, accountId);
  return without.role === 'owner' && without.password_hash ? owners - 1 : owners;
}

export async function changeRole(deps: Deps, account: AccountRow, by: Actor, userId: string, role: Role): Promise<UserRow> {
  if (!ROLES.includes(role)) throw badRequest(`the role must be one of ${ROLES.join(', ')}`);
  const user = await person(deps, account, userId);
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    if (role !== 'owner' && (await remainingOwners(tx, account.id, user)) < 1) throw forbidden('an account keeps at least one owner: make someone else owner first');
    await repo.updateUser(tx, user.id, { role, updated_at: now });
    await audit(tx, { account_id: account.id, actor: by, action: 'user.role_changed', subject_id: user.id, detail: { from: user.role, to: role }, at: now });
  });
  return { ...user, role };
}

/** Removes a person (or withdraws an invitation): their sessions end at once, their name stays on what they did. */
export async function removeUser(deps: Deps, account: AccountRow, by: Actor, userId: string): Promise<UserRow> {
  const user = await person(deps, account, userId);
  if (by.type === 'user' && by.id === user.id) throw forbidden('you cannot remove yourself: ask another owner');
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    if ((await remainingOwners(tx, account.id, user)) < 1) throw forbidden('an account keeps at least one owner');
    await repo.updateUser(tx, user.id, { removed_at: now, updated_at: now });
    await repo.retireTokens(tx, user.id, 'invite', now);
    await repo.retireTokens(tx, user.id, 'reset', now);
    await deleteUserSessions(tx, user.id);
    await audit(tx, { account_id: account.id, actor: by, action: user.password_hash ? 'user.removed' : 'user.invitation_revoked', subject_id: user.id, at: now });
  });
  return user;
}

/** The person and account a link's token opens, or why it does not. */
export async function openToken(deps: Deps, token: string, purpose: 'invite' | 'reset'): Promise<{ user: UserRow; account: AccountRow } | { problem: string }> {
  const found = /^gst_[A-Za-z0-9_-]{43}$/.test(token) ? await repo.findToken(deps.db, digest(token)) : undefined;
  const what = purpose === 'invite' ? 'invitation' : 'password reset link';
  if (!found || found.purpose !== purpose) return { problem: `This ${what} is not valid. Check that the whole link was copied.` };
  if (found.used_at) return { problem: `This ${what} has been used already${purpose === 'invite' ? ' or was replaced by a newer one' : ''}.` };
  if (found.expires_at <= iso(deps.clock())) return { problem: `This ${what} has expired. ${purpose === 'invite' ? 'Ask whoever invited you to send a new one.' : 'Ask for a new one.'}` };
  const user = await repo.findUser(deps.db, found.user_id);
  const account = user && !user.removed_at ? await repo.findAccountOf(deps.db, user.account_id) : undefined;
  if (!user || user.removed_at || !account) return { problem: `This ${what} is no longer valid.` };
  return { user, account };
}

/** Sets the invited person's name and password; the link works once. */
export async function acceptInvitation(deps: Deps, token: string, input: { name: string; password: string }): Promise<{ user: UserRow; account: AccountRow }> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw badRequest('give your name (up to 200 characters)');
  checkPassword(input.password);
  const opened = await openToken(deps, token, 'invite');
  if ('problem' in opened) throw new AppError('gone', opened.problem);
  const passwordHash = await hashPassword(input.password);
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    if (!(await repo.useToken(tx, digest(token), now))) throw new AppError('gone', 'This invitation has been used already.');
    await repo.updateUser(tx, opened.user.id, { name, password_hash: passwordHash, joined_at: now, updated_at: now });
    await audit(tx, { account_id: opened.account.id, actor: userActor({ id: opened.user.id, name }), action: 'user.joined', subject_id: opened.user.id, at: now });
  });
  return { user: { ...opened.user, name, password_hash: passwordHash, joined_at: now }, account: opened.account };
}

/**
 * Sends a reset link to every person with this e-mail and a password (one per account). The
 * caller answers the same whether or not anyone has it, and does not wait for the e-mail.
 */
export async function requestPasswordReset(deps: Deps, email: string): Promise<void> {
  const people = await repo.usersWithPassword(deps.db, email.trim().toLowerCase(), 10);
  for (const user of people) {
    const now = deps.clock();
    const token = await withTx(deps.db, async (tx) => {
      await repo.retireTokens(tx, user.id, 'reset', iso(now));
      return issueToken(tx, user.id, 'reset', now, RESET_MINUTES * 60_000);
    });
    await sendReset(deps, await repo.findAccountOf(deps.db, user.account_id), user, token, 'Someone');
  }
}

/**
 * A password reset an owner asks for one of their people (who lost their password, or whose
 * e-mail does not arrive): the same link as a forgotten password's, the owner told where it went.
 * Someone who has not joined yet has no password to reset: their invitation goes again.
 */
export async function resetFor(deps: Deps, account: AccountRow, by: Actor, userId: string): Promise<PersonLink> {
  const user = await person(deps, account, userId);
  if (!user.password_hash) return resendInvitation(deps, account, by, userId);
  const now = deps.clock();
  const token = await withTx(deps.db, async (tx) => {
    await repo.retireTokens(tx, user.id, 'reset', iso(now));
    await audit(tx, { account_id: account.id, actor: by, action: 'user.reset_sent', subject_id: user.id, at: iso(now) });
    return issueToken(tx, user.id, 'reset', now, RESET_MINUTES * 60_000);
  });
  return sendReset(deps, account, user, token, by.name);
}

/** Sets a new password from a reset link; every session of the person ends. */
export async function resetPassword(deps: Deps, token: string, password: string): Promise<{ user: UserRow; account: AccountRow }> {
  checkPassword(password);
  const opened = await openToken(deps, token, 'reset');
  if ('problem' in opened) throw new AppError('gone', opened.problem);
  const passwordHash = await hashPassword(password);
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    if (!(await repo.useToken(tx, digest(token), now))) throw new AppError('gone', 'This password reset link has been used already.');
    await repo.updateUser(tx, opened.user.id, { password_hash: passwordHash, updated_at: now });
    await deleteUserSessions(tx, opened.user.id);
    await audit(tx, { account_id: opened.account.id, actor: userActor(opened.user), action: 'user.password_reset', subject_id: opened.user.id, at: now });
  });
  return opened;
}

/** A signed-in person's new password, given the current one; their other sessions end. */
export async function changePassword(deps: Deps, user: UserRow, input: { current: string; password: string }, keepTokenHash: string): Promise<void> {
  if (!user.password_hash || !(await verifyPassword(input.current, user.password_hash))) throw badRequest('the current password is not right');
  checkPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    await repo.updateUser(tx, user.id, { password_hash: passwordHash, updated_at: now });
    await deleteUserSessions(tx, user.id, keepTokenHash);
    await audit(tx, { account_id: user.account_id, actor: userActor(user), action: 'user.password_changed', subject_id: user.id, at: now });
  });
}

// Two-factor sign-in: TOTP (RFC 6238), 6 digits every 30 s, SHA-1, as every authenticator app reads it.
const totpFor = (secret: string, label: string) => new TOTP({ issuer: 'guestscreen', label, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
const totpAad = (userId: string) => `totp:${userId}`;

/** A new secret to enrol: its text, the otpauth:// link and the same as a QR code (SVG). */
export async function newTotpSecret(user: UserRow, again?: string): Promise<{ secret: string; uri: string; svg: string }> {
  const secret = again ?? new Secret({ size: 20 }).base32;
  const uri = totpFor(secret, user.email).toString();
  // Loaded with the first enrolment, not in every start.
  const QRCode = (await import('qrcode')).default;
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { secret, uri, svg };
}

/** The time step a code belongs to, one step either side allowed for clocks that drift; undefined when it is wrong. */
function totpStep(secret: string, code: string, nowMs: number): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totpFor(secret, 'x').validate({ token, timestamp: nowMs, window: 1 });
  return delta === null ? undefined : Math.floor(nowMs / 30_000) + delta;
}

const recoveryDigest = (deps: Deps, code: string) => deps.secrets.digest(code.replace(/[\s-]/g, '').toLowerCase(), 'recovery code');

function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const s = randomBytes(8).toString('hex').slice(0, 10);
    return `${s.slice(0, 5)}-${s.slice(5)}`;
  });
}

/** Turns two-factor sign-in on once the first code from the app is right: the recovery codes, shown once. */
export async function enableTwoFactor(deps: Deps, user: UserRow, secret: string, code: string): Promise<string[]> {
  if (!/^[A-Z2-7]{32}$/.test(secret)) throw badRequest('the secret is not valid: start again');
  const now = deps.clock();
  const step = totpStep(secret, code, now.getTime());
  if (step === undefined) throw badRequest('that code is not right: enter the 6 digits the app shows now');
  const codes = newRecoveryCodes();
  await withTx(deps.db, async (tx) => {
    await repo.updateUser(tx, user.id, { totp_secret_enc: deps.secrets.seal(secret, totpAad(user.id)), totp_enabled_at: iso(now), totp_last_step: step, updated_at: iso(now) });
    await repo.replaceRecoveryCodes(
      tx,
      user.id,
      codes.map((c) => recoveryDigest(deps, c)),
    );
    await audit(tx, { account_id: user.account_id, actor: userActor(user), action: 'user.two_factor_enabled', subject_id: user.id, at: iso(now) });
  });
  return codes;
}

export async function newRecoveryCodesFor(deps: Deps, user: UserRow): Promise<string[]> {
  if (!user.totp_enabled_at) throw badRequest('two-factor sign-in is not on');
  const codes = newRecoveryCodes();
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    await repo.replaceRecoveryCodes(
      tx,
      user.id,
      codes.map((c) => recoveryDigest(deps, c)),
    );
    await audit(tx, { account_id: user.account_id, actor: userActor(user), action: 'user.recovery_codes_renewed', subject_id: user.id, at: now });
  });
  return codes;
}

export async function disableTwoFactor(deps: Deps, account: AccountRow, user: UserRow, password: string): Promise<void> {
  if (account.require_two_factor) throw forbidden('this account requires two-factor sign-in for everyone');
  if (!user.password_hash || !(await verifyPassword(password, user.password_hash))) throw badRequest('the password is not right');
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    await repo.updateUser(tx, user.id, { totp_secret_enc: null, totp_enabled_at: null, totp_last_step: null, updated_at: now });
    await repo.replaceRecoveryCodes(tx, user.id, []);
    await audit(tx, { account_id: user.account_id, actor: userActor(user), action: 'user.two_factor_disabled', subject_id: user.id, at: now });
  });
}

/**
 * A second factor: a code from the app, accepted once in its time step (a replayed code is
 * refused), or one of the recovery codes, each once. 'recovery' tells the caller to say how many
 * are left.
 */
export async function checkSecondFactor(deps: Deps, user: UserRow, code: string): Promise<'totp' | 'recovery' | false> {
  if (!user.totp_secret_enc || !user.totp_enabled_at) return false;
  const now = deps.clock();
  const compact = code.replace(/\s+/g, '');
  if (/^\d{6}$/.test(compact)) {
    const step = totpStep(deps.secrets.open(user.totp_secret_enc, totpAad(user.id)), compact, now.getTime());
    return step !== undefined && (await repo.acceptTotpStep(deps.db, user.id, step)) ? 'totp' : false;
  }
  if (/^[0-9a-f]{5}-?[0-9a-f]{5}$/i.test(compact)) return (await repo.useRecoveryCode(deps.db, user.id, recoveryDigest(deps, compact), iso(now))) ? 'recovery' : false;
  return false;
}

export const recoveryCodesLeft = (deps: Deps, user: UserRow) => repo.unusedRecoveryCodes(deps.db, user.id);

export const findUser = (deps: Deps, id: string) => repo.findUser(deps.db, id);
export const everyUser = (deps: Deps, accountId: string) => repo.everyUser(deps.db, accountId);
