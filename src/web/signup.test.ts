import { firstOwner } from '../modules/users/repo.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type TestApp } from '../../test/harness.js';
import { findAccount } from '../modules/accounts/repo.js';

const form = (fields: Record<string, string>) => ({
  rawBody: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

describe(`signup links and pages (${dbKind})`, () => {
  let t: TestApp;
  let now = new Date('2026-11-22T10:00:00.000Z');
  before(async () => {
    t = await createTestApp({ GUESTSCREEN_PMS_NAMES: 'hostaway,guesty' });
    t.deps.clock = () => now;
  });
  after(() => t.close());

  const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

  it('creates a link that expires in 7 days under the public URL', async () => {
    const reseller = await tenant(t, { reseller: true });
    const r = await call(t, 'POST', '/v1/accounts/signup?pms=hostaway', { key: reseller.key });
    assert.equal(r.status, 200);
    assert.match(r.json.url, /^http:\/\/guestscreen\.test\/signup\/[A-Za-z0-9_-]{43}$/);
    assert.equal(r.json.expiry, '2026-11-29T10:00:00.000Z');
  });

  it('opens a form, creates a child of the reseller with that PMS, and shows its working key once', async () => {
    const reseller = await tenant(t, { reseller: true });
    const link = await call(t, 'POST', '/v1/accounts/signup?pms=guesty&redirect=https://pms.example/done?x=1', { key: reseller.key });
    const path = new URL(link.json.url).pathname;

    const page = await call(t, 'GET', path);
    assert.equal(page.status, 200);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    assert.ok(page.body.includes('name="password"'), 'the password field is shown without hidepw');

    const done = await call(t, 'POST', path, form({ name: 'Lakeview Lodges', email: 'hi@lakeview.example', password: 'long enough pw' }));
    assert.equal(done.status, 200, done.body);
    const key = /id="api-key">(gsk_[0-9A-Za-z]+)</.exec(done.body)?.[1];
    assert.ok(key, 'the page shows the new key');
    const continueHref = /id="continue" href="([^"]+)"/.exec(done.body)?.[1]?.replaceAll('&amp;', '&');
    const me = await call(t, 'GET', '/v1/accounts/me', { key });
    assert.equal(me.json.name, 'Lakeview Lodges');
    assert.equal(me.json.billing.parent_account, reseller.account.id);
    assert.equal(continueHref, `https://pms.example/done?x=1&account_id=${me.json.id}`);
    assert.equal((await findAccount(t.deps.db, me.json.id))?.pms, 'guesty');
    assert.ok((await firstOwner(t.deps.db, me.json.id))?.password_hash?.startsWith('scrypt$'));

    const again = await call(t, 'GET', path);
    assert.equal(again.status, 410);
    assert.ok(again.body.includes('already been used'));
    const reuse = await call(t, 'POST', path, form({ name: 'Second', email: 'second@example.test', password: 'long enough pw' }));
    assert.equal(reuse.status, 410);
  });

  it('hides the password screen with hidepw and creates the account without a password', async () => {
    const reseller = await tenant(t, { reseller: true });
    const link = await call(t, 'POST', '/v1/accounts/signup?pms=api&hidepw=true', { key: reseller.key });
    const path = new URL(link.json.url).pathname;
    const page = await call(t, 'GET', path);
    assert.ok(!page.body.includes('name="password"'));
    const done = await call(t, 'POST', path, form({ name: 'No Password Co', email: 'np@example.test' }));
    assert.equal(done.status, 200);
    assert.ok(!done.body.includes('id="continue"'), 'no redirect was asked for');
    const id = /Account (acc_[0-9a-z]+) for/.exec(done.body)?.[1];
    assert.equal(await firstOwner(t.deps.db, id!), undefined, 'no one signs in to it yet');
  });

  it('shows the form again with the problems when a field is wrong, and creates nothing', async () => {
    const reseller = await tenant(t, { reseller: true });
    const link = await call(t, 'POST', '/v1/accounts/signup?pms=api', { key: reseller.key });
    const path = new URL(link.json.url).pathname;
    const r = await call(t, 'POST', path, form({ name: '<b>Eve</b>', email: 'nope', password: 'short' }));
    assert.equal(r.status, 400);
    assert.ok(r.body.includes('Enter a valid e-mail address.'));
    assert.ok(r.body.includes('at least 8 characters'));
    assert.ok(r.body.includes('value="&lt;b>Eve&lt;/b>"'), 'what was typed is kept, escaped');
    assert.equal((await call(t, 'GET', '/v1/accounts/children', { key: reseller.key })).json.total, 0);
    assert.equal((await call(t, 'GET', path)).status, 200, 'the link is still usable');
  });

  it('shows a clear error page for a tampered token', async () => {
    const reseller = await tenant(t, { reseller: true });
    const link = await call(t, 'POST', '/v1/accounts/signup?pms=api', { key: reseller.key });
    const token = tokenOf(link.json.url);
    const tampered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const path of [`/signup/${tampered}`, '/signup/garbage', `/signup/${token}extra`]) {
      const r = await call(t, 'GET', path);
      assert.equal(r.status, 404, path);
      assert.ok(r.body.includes('This signup link is not valid'), path);
    }
  });

  it('shows a clear error page once the link has expired', async () => {
    const reseller = await tenant(t, { reseller: true });
    const link = await call(t, 'POST', '/v1/accounts/signup?pms=api', { key: reseller.key });
    const path = new URL(link.json.url).pathname;
    const before = now;
    now = new Date(now.getTime() + 7 * 24 * 3600 * 1000 + 1);
    try {
      const r = await call(t, 'GET', path);
      assert.equal(r.status, 410);
      assert.ok(r.body.includes('This signup link has expired'));
    } finally {
      now = before;
    }
  });
});
