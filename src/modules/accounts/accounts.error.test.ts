import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type TestApp } from '../../../test/harness.js';

describe(`accounts, error cases (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('rejects register without a name, naming the field', async () => {
    const r = await call(t, 'POST', '/v1/accounts/register', { key: t.root.key, body: { email: 'a@b.example' } });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'body.name: is required');
  });

  it('rejects register with no body at all, naming every missing field', async () => {
    const r = await call(t, 'POST', '/v1/accounts/register', { key: t.root.key });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'body.name: is required; body.email: is required');
  });

  it('rejects an unknown field in the body by name', async () => {
    const r = await call(t, 'POST', '/v1/accounts/register', {
      key: t.root.key,
      body: { name: 'A', email: 'a@b.example', is_reseller: true },
    });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, "body: unknown field 'is_reseller'");
  });

  it('rejects an unknown nested company field by its path', async () => {
    const r = await call(t, 'POST', '/v1/accounts/register', {
      key: t.root.key,
      body: { name: 'A', email: 'a@b.example', company: { vat: 'x' } },
    });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, "body.company: unknown field 'vat'");
  });

  it('rejects a malformed e-mail and a short password', async () => {
    let r = await call(t, 'POST', '/v1/accounts/register', { key: t.root.key, body: { name: 'A', email: 'not-an-email' } });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^body\.email: must match format "email"$/);
    r = await call(t, 'POST', '/v1/accounts/register', { key: t.root.key, body: { name: 'A', email: 'a@b.example', password: 'short' } });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^body\.password: /);
  });

  it('writes nothing when a register body is invalid', async () => {
    const reseller = await tenant(t, { reseller: true });
    await call(t, 'POST', '/v1/accounts/register', { key: reseller.key, body: { name: 'A', email: 'bad' } });
    const children = await call(t, 'GET', '/v1/accounts/children', { key: reseller.key });
    assert.equal(children.json.total, 0);
  });

  it('rejects bad status and suspended values', async () => {
    const child = await tenant(t);
    let r = await call(t, 'PUT', `/v1/accounts/${child.account.id}?status=paused`, { key: t.root.key });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'query.status: must be one of active, disabled');
    r = await call(t, 'PUT', `/v1/accounts/${child.account.id}?suspended=maybe`, { key: t.root.key });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'query.suspended: must be one of true, false');
  });

  it('rejects page sizes over 100 and negative offsets', async () => {
    let r = await call(t, 'GET', '/v1/accounts/children?size=101', { key: t.root.key });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'query.size: must be <= 100');
    r = await call(t, 'GET', '/v1/accounts/children?from=-1', { key: t.root.key });
    assert.equal(r.status, 400);
    r = await call(t, 'GET', '/v1/accounts/children?size=ten', { key: t.root.key });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'query.size: must be integer');
  });

  it('returns 404 when updating an account outside the subtree, even a sibling reseller', async () => {
    const a = await tenant(t, { reseller: true });
    const b = await tenant(t, { reseller: true });
    const r = await call(t, 'PUT', `/v1/accounts/${b.account.id}?suspended=true`, { key: a.key });
    assert.equal(r.status, 404);
    assert.equal(r.json.error, `account ${b.account.id} not found`);
  });

  it('returns 404 when a child reseller tries to manage its parent', async () => {
    const parent = await tenant(t, { reseller: true });
    const child = await tenant(t, { parent, reseller: true });
    const r = await call(t, 'PUT', `/v1/accounts/${parent.account.id}?status=disabled`, { key: child.key });
    assert.equal(r.status, 404);
  });

  it('forbids an account from suspending or disabling itself', async () => {
    const reseller = await tenant(t, { reseller: true });
    const r = await call(t, 'PUT', `/v1/accounts/${reseller.account.id}?status=disabled`, { key: reseller.key });
    assert.equal(r.status, 403);
    assert.equal((await call(t, 'GET', '/v1/accounts/me', { key: reseller.key })).json.is_active, true);
  });

  it('returns 403 with a clear message for a non-reseller on reseller endpoints', async () => {
    const plain = await tenant(t);
    for (const [method, url] of [
      ['GET', '/v1/accounts/children'],
      ['GET', '/v1/accounts/keys'],
      ['POST', '/v1/accounts/signup?pms=api'],
    ] as const) {
      const r = await call(t, method, url, { key: plain.key });
      assert.equal(r.status, 403, `${method} ${url}`);
      assert.equal(r.json.error, 'this endpoint is for reseller accounts');
    }
  });

  it('rejects a signup link for an unknown PMS and a non-http redirect', async () => {
    let r = await call(t, 'POST', '/v1/accounts/signup?pms=nosuchpms', { key: t.root.key });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^query\.pms: must be 'api' or a configured PMS name/);
    r = await call(t, 'POST', '/v1/accounts/signup', { key: t.root.key });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'query.pms: is required');
    r = await call(t, 'POST', '/v1/accounts/signup?pms=api&redirect=javascript:alert(1)', { key: t.root.key });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^query\.redirect: /);
    r = await call(t, 'POST', '/v1/accounts/signup?pms=api&hidepw=perhaps', { key: t.root.key });
    assert.equal(r.status, 400);
  });
});
