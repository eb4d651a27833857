import { firstOwner } from '../users/repo.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type TestApp } from '../../../test/harness.js';
import { verifyPassword } from '../../lib/passwords.js';
import { findAccount } from './repo.js';

describe(`accounts, happy paths (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('GET /accounts/me returns the calling account in the spec shape', async () => {
    const r = await call(t, 'GET', '/v1/accounts/me', { key: t.root.key });
    assert.equal(r.status, 200);
    assert.equal(r.json.id, t.root.account.id);
    assert.equal(r.json.is_active, true);
    assert.equal(r.json.is_suspended, false);
    assert.deepEqual(Object.keys(r.json.company).sort(), ['email', 'name', 'phone']);
    assert.equal(r.json.billing.parent_account, null);
    assert.match(r.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(r.headers['x-request-id'] as string, /^req_/);
  });

  it('keeps last_login current after a request', async () => {
    const me = await tenant(t);
    assert.equal(me.account.last_login, null);
    const r = await call(t, 'GET', '/v1/accounts/me', { key: me.key });
    assert.ok(r.json.last_login, 'last_login is set by the first authenticated request');
    for (let i = 0; i < 50 && !(await findAccount(t.deps.db, me.account.id))?.last_login; i++) await new Promise((res) => setTimeout(res, 10));
    assert.equal((await findAccount(t.deps.db, me.account.id))?.last_login, r.json.last_login);
  });

  it('registers a child with a hashed password and lists it among the children and keys', async () => {
    const reseller = await tenant(t, { reseller: true });
    const r = await call(t, 'POST', '/v1/accounts/register', {
      key: reseller.key,
      body: { name: 'Seaside Stays', email: 'ops@seaside.example', phone: '+44 20 7946 0958', password: 'correct horse battery', company: { name: 'Seaside Ltd' } },
    });
    assert.equal(r.status, 200);
    assert.equal(r.json.billing.parent_account, reseller.account.id);
    assert.equal(r.json.company.name, 'Seaside Ltd');
    assert.equal(r.json.password, undefined);
    assert.match(r.json.api_key, /^gsk_/);
    assert.ok(!JSON.stringify(r.json).includes('correct horse'));

    // The account's password is its first owner's, named and addressed as the account.
    const stored = await firstOwner(t.deps.db, r.json.id);
    assert.equal(stored?.email, r.json.email);
    assert.equal(stored?.role, 'owner');
    assert.ok(stored?.password_hash?.startsWith('scrypt$'));
    assert.equal(await verifyPassword('correct horse battery', stored.password_hash!), true);
    assert.equal(await verifyPassword('wrong', stored.password_hash!), false);

    const children = await call(t, 'GET', '/v1/accounts/children', { key: reseller.key });
    assert.deepEqual(children.json, {
      from: 0,
      size: 20,
      total: 1,
      items: [{ id: r.json.id, name: 'Seaside Stays', email: 'ops@seaside.example', phone: '+44 20 7946 0958' }],
    });

    const keys = await call(t, 'GET', '/v1/accounts/keys', { key: reseller.key });
    assert.equal(keys.status, 200);
    const values = Object.fromEntries(keys.json.map((k: { user_id: string; value: string }) => [k.user_id, k.value]));
    assert.equal(values[r.json.id], r.json.api_key);
    assert.equal(values[reseller.account.id], reseller.key);

    const asChild = await call(t, 'GET', '/v1/accounts/me', { key: r.json.api_key });
    assert.equal(asChild.json.id, r.json.id);
  });

  it('pages children with from and size', async () => {
    const reseller = await tenant(t, { reseller: true });
    for (let i = 0; i < 5; i++) await tenant(t, { parent: reseller, name: `Child ${i}` });
    const page = await call(t, 'GET', '/v1/accounts/children?from=2&size=2', { key: reseller.key });
    assert.equal(page.json.total, 5);
    assert.deepEqual(
      page.json.items.map((i: { name: string }) => i.name),
      ['Child 2', 'Child 3'],
    );
  });

  it('lists the keys of grandchildren too (the whole subtree)', async () => {
    const reseller = await tenant(t, { reseller: true });
    const sub = await tenant(t, { parent: reseller, reseller: true });
    const leaf = await tenant(t, { parent: sub });
    const keys = await call(t, 'GET', '/v1/accounts/keys', { key: reseller.key });
    assert.deepEqual(keys.json.map((k: { user_id: string }) => k.user_id).sort(), [reseller.account.id, sub.account.id, leaf.account.id].sort());
  });

  it('updates a child account profile and merges company fields', async () => {
    const reseller = await tenant(t, { reseller: true });
    const child = await tenant(t, { parent: reseller });
    await call(t, 'PUT', `/v1/accounts/${child.account.id}`, { key: reseller.key, body: { company: { name: 'A', email: 'a@a.example' } } });
    const r = await call(t, 'PUT', `/v1/accounts/${child.account.id}`, { key: reseller.key, body: { name: 'Renamed', company: { phone: '+1 555 0100' } } });
    assert.equal(r.status, 200);
    assert.equal(r.json.name, 'Renamed');
    assert.deepEqual(r.json.company, { name: 'A', email: 'a@a.example', phone: '+1 555 0100' });
  });

  it('disables, re-enables, suspends and unsuspends a child through the query parameters', async () => {
    const reseller = await tenant(t, { reseller: true });
    const child = await tenant(t, { parent: reseller });
    const url = `/v1/accounts/${child.account.id}`;

    let r = await call(t, 'PUT', `${url}?status=disabled`, { key: reseller.key });
    assert.equal(r.json.is_active, false);
    assert.equal((await call(t, 'GET', '/v1/accounts/me', { key: child.key })).status, 401);

    r = await call(t, 'PUT', `${url}?status=active`, { key: reseller.key });
    assert.equal(r.json.is_active, true);
    assert.equal((await call(t, 'GET', '/v1/accounts/me', { key: child.key })).status, 200);

    r = await call(t, 'PUT', `${url}?suspended=true`, { key: reseller.key });
    assert.equal(r.json.is_suspended, true);
    const me = await call(t, 'GET', '/v1/accounts/me', { key: child.key });
    assert.equal(me.status, 200, 'a suspended account can still read itself');
    assert.equal(me.json.is_suspended, true);
    assert.equal((await call(t, 'GET', '/v1/accounts/webhooks', { key: child.key })).status, 403);

    r = await call(t, 'PUT', `${url}?suspended=false`, { key: reseller.key });
    assert.equal(r.json.is_suspended, false);
    assert.equal((await call(t, 'GET', '/v1/accounts/webhooks', { key: child.key })).status, 200);
  });

  it('lets a reseller manage a grandchild', async () => {
    const reseller = await tenant(t, { reseller: true });
    const sub = await tenant(t, { parent: reseller, reseller: true });
    const leaf = await tenant(t, { parent: sub });
    const r = await call(t, 'PUT', `/v1/accounts/${leaf.account.id}?suspended=true`, { key: reseller.key });
    assert.equal(r.status, 200);
    assert.equal(r.json.is_suspended, true);
  });
});
