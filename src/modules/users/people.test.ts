import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { TOTP, Secret } from 'otpauth';
import { hashPassword } from '../../lib/passwords.js';
import { call, createTestApp, dbKind, linkInNewMail, mailSince, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { completeSignIn, signIn } from './sessions.js';
import { acceptInvitation, enableTwoFactor, invite, newTotpSecret, openToken, requestPasswordReset, resetFor, resetPassword, setOwnerPassword, userActor, type UserRow } from './service.js';

const code = (secret: string, at: Date) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: at.getTime() });

describe(`people: invitations, password resets, two-factor sign-in (${dbKind})`, () => {
  let t: TestApp;
  let host: Tenant;
  let owner: UserRow;
  let now = new Date('2026-11-27T10:00:00Z');

  before(async () => {
    t = await createTestApp();
    t.deps.clock = () => now;
    host = await tenant(t);
    owner = await setOwnerPassword(t.deps, t.deps.db, host.account, await hashPassword('owner password'), null);
  });
  after(() => t.close());

  const tokenOf = (link: string) => link.split('/').pop()!;

  it('accepts an invitation once, refuses it used twice, expired, tampered or withdrawn', async () => {
    const first = await invite(t.deps, host.account, userActor(owner), { email: 'ana@example.test', role: 'reviewer' });
    assert.equal(first.via, 'outbox', 'the outbox takes it without SMTP');
    assert.ok(first.file && readFileSync(first.file, 'utf8').includes('invited you'), 'the e-mail is where the owner is told it is');
    const token = tokenOf(first.link);
    const tampered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    assert.ok('problem' in (await openToken(t.deps, tampered, 'invite')));
    assert.ok('problem' in (await openToken(t.deps, token, 'reset')), 'an invitation is not a reset link');
    const joined = await acceptInvitation(t.deps, token, { name: 'Ana Ruiz', password: 'ana password' });
    assert.equal(joined.user.role, 'reviewer');
    await assert.rejects(acceptInvitation(t.deps, token, { name: 'Again', password: 'another password' }), /used already/);
    const signed = await signIn(t.deps, { email: 'ANA@example.test', password: 'ana password', address: '10.0.0.1' });
    assert.ok(signed.ok && signed.stage === 'in');
    // Her owner asks for a reset link for her: a reset link, not an invitation.
    const reset = await resetFor(t.deps, host.account, userActor(owner), joined.user.id);
    assert.equal(reset.purpose, 'reset');
    assert.ok('user' in (await openToken(t.deps, tokenOf(reset.link), 'reset')));

    const late = await invite(t.deps, host.account, userActor(owner), { email: 'late@example.test', role: 'viewer' });
    now = new Date(now.getTime() + 8 * 86_400_000);
    await assert.rejects(acceptInvitation(t.deps, tokenOf(late.link), { name: 'Late', password: 'late password' }), /expired/);
    await assert.rejects(invite(t.deps, host.account, userActor(owner), { email: 'ana@example.test', role: 'viewer' }), /already one of this account/);
    assert.equal((await resetFor(t.deps, host.account, userActor(owner), late.user.id)).purpose, 'invite', 'someone not joined yet is sent the invitation again');
  });

  it("refuses another account's invitation to be used for this one: the link names its own person only", async () => {
    const other = await tenant(t);
    const otherOwner = await setOwnerPassword(t.deps, t.deps.db, other.account, await hashPassword('other password'), null);
    const inv = await invite(t.deps, other.account, userActor(otherOwner), { email: 'bo@example.test', role: 'manager' });
    const joined = await acceptInvitation(t.deps, tokenOf(inv.link), { name: 'Bo', password: 'bo password' });
    assert.equal(joined.account.id, other.account.id);
    const page = await call(t, 'GET', `/console/invitation/${tokenOf(inv.link)}`);
    assert.equal(page.status, 410);
  });

  it('resets a password by e-mail once, within the hour, with the same answer for an unknown address', async () => {
    const before = mailSince(t);
    const known = await call(t, 'POST', '/console/forgot', { rawBody: Buffer.from('email=ana%40example.test'), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const unknown = await call(t, 'POST', '/console/forgot', { rawBody: Buffer.from('email=nobody%40example.test'), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    // Refused without a form token, both alike.
    assert.equal(known.status, unknown.status);
    await requestPasswordReset(t.deps, 'nobody@example.test');
    await requestPasswordReset(t.deps, 'ana@example.test');
    assert.equal(mailSince(t).size - before.size, 1, 'one message, to the address that exists');
    const link = linkInNewMail(t, before, 'reset');
    assert.ok(link);
    const old = await signIn(t.deps, { email: 'ana@example.test', password: 'ana password', address: '10.0.0.2' });
    assert.ok(old.ok);
    await resetPassword(t.deps, link, 'ana new password');
    await assert.rejects(resetPassword(t.deps, link, 'third password'), /used already/);
    assert.equal((await call(t, 'GET', '/console', { headers: { cookie: `gs_session=${old.token}` } })).status, 303, 'the old session ended');
    assert.ok((await signIn(t.deps, { email: 'ana@example.test', password: 'ana new password', address: '10.0.0.2' })).ok);
  });

  it('signs in with a TOTP code once per time step, refuses a replay, counts wrong codes toward the lockout, and takes each recovery code once', async () => {
    const { secret } = await newTotpSecret(owner);
    const codes = await enableTwoFactor(t.deps, owner, secret, code(secret, now));
    assert.equal(codes.length, 10);
    now = new Date(now.getTime() + 60_000);
    const pending = await signIn(t.deps, { email: owner.email, password: 'owner password', address: '10.0.0.3' });
    assert.ok(pending.ok && pending.stage === 'code');
    // The password alone opens nothing.
    assert.equal((await call(t, 'GET', '/console', { headers: { cookie: `gs_session=${pending.token}` } })).status, 303);
    const right = code(secret, now);
    assert.deepEqual(await completeSignIn(t.deps, pending.token, right, '10.0.0.3'), { ok: true, via: 'totp' });
    const second = await signIn(t.deps, { email: owner.email, password: 'owner password', address: '10.0.0.3' });
    assert.ok(second.ok);
    const replay = await completeSignIn(t.deps, second.token, right, '10.0.0.3');
    assert.equal(replay.ok, false, 'a code works once in its time step');
    for (let i = 0; i < 4; i++) assert.equal((await completeSignIn(t.deps, second.token, '000000', '10.0.0.3')).ok, false);
    const locked = await completeSignIn(t.deps, second.token, code(secret, now), '10.0.0.3');
    assert.equal(locked.ok, false);
    assert.equal(!locked.ok && locked.status, 429, 'five wrong codes or passwords lock the e-mail');
    now = new Date(now.getTime() + 16 * 60_000);
    const third = await signIn(t.deps, { email: owner.email, password: 'owner password', address: '10.0.0.3' });
    assert.ok(third.ok);
    assert.deepEqual(await completeSignIn(t.deps, third.token, codes[0]!, '10.0.0.3'), { ok: true, via: 'recovery' });
    const fourth = await signIn(t.deps, { email: owner.email, password: 'owner password', address: '10.0.0.3' });
    assert.ok(fourth.ok);
    assert.equal((await completeSignIn(t.deps, fourth.token, codes[0]!, '10.0.0.3')).ok, false, 'a recovery code works once');
  });
});
