import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RouteInfo } from '../src/app.js';
import { generateApiKey } from '../src/lib/api-keys.js';
import { call, createTestApp, dbKind, tenant, type Tenant, type TestApp } from './harness.js';

/**
 * Every /v1 route must pass these checks. The list comes from the routes the app registered,
 * so a new route is covered the moment it exists; a route with a path parameter fails this
 * suite until it says below how to point it at another tenant's object.
 */
interface Ctx {
  t: TestApp;
  owner: Tenant;
  stranger: Tenant;
}

type Probe = { url: string; body?: unknown };

// How to call each route on an object the caller owns, and how to aim it at someone else's.
const PARAM_VALUES: Record<string, (c: Ctx) => string> = {
  id: (c) => c.owner.account.id,
  key: () => 'guest_portal_screens_by_source',
};

const BODIES: Record<string, unknown> = {
  'POST /v1/accounts/register': { name: 'Probe', email: 'probe@example.test' },
  'POST /v1/accounts/webhooks': { webhook_key: 'reservation_webhook_url', webhook_url: 'https://example.test/hook' },
  'DELETE /v1/accounts/webhooks': { webhook_key: 'reservation_webhook_url' },
  'PUT /v1/accounts/settings/guest-portal-screens/:key': { config_data: [] },
};

const QUERIES: Record<string, string> = {
  'POST /v1/accounts/signup': '?pms=api',
};

/** Requests that reach another tenant's object; each must answer 404. */
const CROSS_TENANT: Record<string, (c: Ctx) => Probe> = {
  'PUT /v1/accounts/:id': (c) => ({ url: `/v1/accounts/${c.stranger.account.id}`, body: { name: 'x' } }),
  'GET /v1/accounts/settings/guest-portal-screens/:key': (c) => ({
    url: `/v1/accounts/settings/guest-portal-screens/guest_portal_screens_by_source?user_id=${c.stranger.account.id}`,
  }),
  'PUT /v1/accounts/settings/guest-portal-screens/:key': (c) => ({
    url: `/v1/accounts/settings/guest-portal-screens/guest_portal_screens_by_source?user_id=${c.stranger.account.id}`,
    body: { config_data: [] },
  }),
};

const routeKey = (r: RouteInfo) => `${r.method} ${r.url}`;

function probe(r: RouteInfo, c: Ctx): Probe {
  const url = r.url.replace(/:(\w+)/g, (_m, name: string) => {
    const value = PARAM_VALUES[name];
    assert.ok(value, `security suite: no value for path parameter :${name} of ${routeKey(r)}`);
    return value(c);
  });
  return { url: url + (QUERIES[routeKey(r)] ?? ''), body: BODIES[routeKey(r)] };
}

describe(`shared security suite, every /v1 route (${dbKind})`, () => {
  let t: TestApp;
  let ctx: Ctx;
  let routes: RouteInfo[];
  let disabled: Tenant;
  let suspended: Tenant;

  before(async () => {
    t = await createTestApp();
    const owner = await tenant(t, { reseller: true });
    const stranger = await tenant(t, { reseller: true });
    ctx = { t, owner, stranger };
    disabled = await tenant(t, { reseller: true });
    suspended = await tenant(t, { reseller: true });
    await call(t, 'PUT', `/v1/accounts/${disabled.account.id}?status=disabled`, { key: t.root.key });
    await call(t, 'PUT', `/v1/accounts/${suspended.account.id}?suspended=true`, { key: t.root.key });
    routes = t.app.routeCatalog.filter((r) => r.url.startsWith('/v1/') && !r.public);
  });
  after(() => t.close());

  it('finds the routes to check', () => {
    assert.ok(routes.length >= 10, `only ${routes.length} routes found`);
  });

  it('answers 401 without a key on every route', async () => {
    for (const r of routes) {
      const p = probe(r, ctx);
      const res = await call(t, r.method as 'GET', p.url, { body: p.body });
      assert.equal(res.status, 401, `${routeKey(r)} without a key`);
      assert.equal(res.json.error, 'missing x-api-key header');
    }
  });

  it('answers 401 for an unknown well-formed key and for a malformed key on every route', async () => {
    for (const r of routes) {
      const p = probe(r, ctx);
      for (const key of [generateApiKey(), 'gsk_nottherightshape', `${ctx.owner.key.slice(0, -1)}x`]) {
        const res = await call(t, r.method as 'GET', p.url, { key, body: p.body });
        assert.equal(res.status, 401, `${routeKey(r)} with key ${key.slice(0, 12)}…`);
      }
    }
  });

  it('answers 401 for a disabled account on every route', async () => {
    for (const r of routes) {
      const p = probe(r, { ...ctx, owner: disabled });
      const res = await call(t, r.method as 'GET', p.url, { key: disabled.key, body: p.body });
      assert.equal(res.status, 401, routeKey(r));
      assert.equal(res.json.error, 'account is disabled');
    }
  });

  it('answers 403 for a suspended account on every route but GET /v1/accounts/me', async () => {
    for (const r of routes) {
      const p = probe(r, { ...ctx, owner: suspended });
      const res = await call(t, r.method as 'GET', p.url, { key: suspended.key, body: p.body });
      if (routeKey(r) === 'GET /v1/accounts/me') assert.equal(res.status, 200);
      else {
        assert.equal(res.status, 403, routeKey(r));
        assert.equal(res.json.error, 'account is suspended');
      }
    }
  });

  it("answers 404 for another tenant's object on every route that takes one", async () => {
    for (const r of routes) {
      const takesObject = r.url.includes(':id') || r.url.includes('/settings/');
      const cross = CROSS_TENANT[routeKey(r)];
      if (!takesObject) continue;
      assert.ok(cross, `security suite: ${routeKey(r)} takes an object but has no cross-tenant probe`);
      const p = cross(ctx);
      const res = await call(t, r.method as 'GET', p.url, { key: ctx.owner.key, body: p.body });
      assert.equal(res.status, 404, `${routeKey(r)} on another tenant's object`);
    }
  });

  it('lets the owner through on every route (the probes above hit real handlers)', async () => {
    for (const r of routes) {
      const p = probe(r, ctx);
      const res = await call(t, r.method as 'GET', p.url, { key: ctx.owner.key, body: p.body });
      assert.ok(res.status < 400 || res.status === 404, `${routeKey(r)} as owner answered ${res.status}: ${res.body}`);
    }
  });
});
