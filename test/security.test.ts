import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RouteInfo } from '../src/app.js';
import { generateApiKey } from '../src/lib/api-keys.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { JobRow } from '../src/jobs/queue.js';
import { runCheck } from '../src/modules/checks/service.js';
import { openPortal, saveStep } from '../src/modules/portal/service.js';
import { importNews } from '../src/providers/adverse-media/import.js';
import { importSanctions } from '../src/providers/sanctions/import.js';
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
  /** One reservation and one webhook delivery per tenant, by account id. */
  reservations: Map<string, string>;
  deliveries: Map<string, string>;
  rules: Map<string, string>;
  blocks: Map<string, string>;
  files: Map<string, string>;
  /** A finished adverse-media search and a finished background check per tenant. */
  searches: Map<string, string>;
  checks: Map<string, string>;
}

type Probe = { url: string; body?: unknown };

// The object a path parameter names, for a given tenant: what each route family's :id means.
function objectId(route: string, param: string, c: Ctx, who: Tenant): string {
  if (param === 'key') return 'guest_portal_screens_by_source';
  if (param === 'file_id') return c.files.get(who.account.id) ?? 'fil_missing';
  // Lookups name no tenant's object: a well-formed input of each kind.
  const lookupInputs: Record<string, string> = { number: '%2B14155552671', email: 'probe%40example.com', domain: 'example.com', ip: '192.168.0.1', address: 'Paris%2C%20France' };
  if (route.startsWith('/v1/lookup/') && lookupInputs[param]) return lookupInputs[param] as string;
  if (route.startsWith('/v1/lookup/adverse-media/')) return c.searches.get(who.account.id) ?? 'chk_missing';
  if (route.startsWith('/v1/background-check/')) return c.checks.get(who.account.id) ?? 'chk_missing';
  if (route.startsWith('/v1/reservations/')) return c.reservations.get(who.account.id) ?? 'res_missing';
  if (route.startsWith('/v1/accounts/webhooks/deliveries/')) return c.deliveries.get(who.account.id) ?? 'dlv_missing';
  if (route.startsWith('/v1/rules/')) return c.rules.get(who.account.id) ?? 'rul_missing';
  if (route.startsWith('/v1/blocklist/')) return c.blocks.get(who.account.id) ?? 'blk_missing';
  if (route.startsWith('/v1/accounts/')) return who.account.id;
  assert.fail(`security suite: no object for :${param} of ${route}; teach objectId() about it`);
}

const BODIES: Record<string, unknown> = {
  'POST /v1/accounts/register': { name: 'Probe', email: 'probe@example.test' },
  'POST /v1/reservations': { guest: { first_name: 'Probe', last_name: 'Guest' } },
  'PUT /v1/reservations/:id': { listing_nickname: 'Probe' },
  'POST /v1/reservations/:id/status': { supervised: 'approve' },
  'POST /v1/reservations/:id/notes': { text: 'probe' },
  'POST /v1/reservations/:id/payment-event': { event_source: 'probe', event_id: 'e1', event_type: 'charge', event_status: 'succeeded' },
  'POST /v1/accounts/webhooks': { webhook_key: 'reservation_webhook_url', webhook_url: 'https://example.test/hook' },
  'DELETE /v1/accounts/webhooks': { webhook_key: 'reservation_webhook_url' },
  'PUT /v1/accounts/settings/guest-portal-screens/:key': { config_data: [] },
  'PUT /v1/accounts/screening-settings': { minimum_age: 21 },
  'POST /v1/rules': { name: 'another', expression: 'risk.score > 50', action: 'decline' },
  'PUT /v1/rules/:id': { enabled: false },
  'POST /v1/rules/dry-run': { expression: 'risk.score > 50', action: 'decline' },
  'POST /v1/blocklist': { name: 'Probe Person', reason: 'probe' },
  'PUT /v1/blocklist/:id': { reason: 'changed' },
  'POST /v1/lookup/social': { email: 'probe@example.com' },
  'POST /v1/background-check/submit': { first_name: 'Probe', last_name: 'Person' },
  'POST /v1/screening/match': { first_name: 'Probe', last_name: 'Person' },
  'POST /v1/reservations/:id/sanctions-dismissals': { list: 'OFAC SDN', entry_id: '1' },
};

const QUERIES: Record<string, string> = {
  'POST /v1/accounts/signup': '?pms=api',
  'GET /v1/lookup/sexoffender': '?fname=Probe&lname=Person&dob=1980-01-01&state=CA',
  'GET /v1/lookup/adverse-media/search': '?first_name=Probe&last_name=Person&country=US',
  'POST /v1/background-check/submit': '?type=globalcheck',
};

/** Requests that reach another tenant's object through a query parameter; each must answer 404. */
const CROSS_TENANT: Record<string, (c: Ctx) => Probe> = {
  'GET /v1/accounts/settings/guest-portal-screens/:key': (c) => ({
    url: `/v1/accounts/settings/guest-portal-screens/guest_portal_screens_by_source?user_id=${c.stranger.account.id}`,
  }),
  'GET /v1/accounts/screening-settings': (c) => ({ url: `/v1/accounts/screening-settings?user_id=${c.stranger.account.id}` }),
  'PUT /v1/accounts/screening-settings': (c) => ({ url: `/v1/accounts/screening-settings?user_id=${c.stranger.account.id}`, body: { minimum_age: 30 } }),
  'PUT /v1/accounts/settings/guest-portal-screens/:key': (c) => ({
    url: `/v1/accounts/settings/guest-portal-screens/guest_portal_screens_by_source?user_id=${c.stranger.account.id}`,
    body: { config_data: [] },
  }),
};

const routeKey = (r: RouteInfo) => `${r.method} ${r.url}`;

function probe(r: RouteInfo, c: Ctx, who: Tenant = c.owner): Probe {
  const url = r.url.replace(/:(\w+)/g, (_m, name: string) => objectId(r.url, name, c, who));
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
    ctx = { t, owner, stranger, reservations: new Map(), deliveries: new Map(), rules: new Map(), blocks: new Map(), files: new Map(), searches: new Map(), checks: new Map() };
    const corpus = path.join(t.deps.config.dataDir, 'news.jsonl');
    writeFileSync(corpus, `${JSON.stringify({ url: 'https://news.example/1', title: 'Ada Owner opens a bakery' })}\n`);
    await importNews(t.deps, corpus, {});
    const sdn = path.join(t.deps.config.dataDir, 'sdn_2024-05-03.csv');
    writeFileSync(sdn, '1,"OWNER, Ada","individual","SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n\x1a');
    await importSanctions(t.deps, { primary: sdn });
    disabled = await tenant(t, { reseller: true });
    suspended = await tenant(t, { reseller: true });
    for (const who of [owner, stranger, disabled, suspended]) {
      await call(t, 'POST', '/v1/accounts/webhooks', {
        key: who.key,
        body: { webhook_key: 'reservation_webhook_url', webhook_url: 'http://127.0.0.1:9/never-delivered' },
      });
      const r = await call(t, 'POST', '/v1/reservations', { key: who.key, body: { guest: { first_name: 'Ada', last_name: 'Owner' } } });
      assert.equal(r.status, 200, r.body);
      ctx.reservations.set(who.account.id, r.json.id);
      // A file the guest uploaded in the portal, for the routes that name one.
      await call(t, 'PUT', '/v1/accounts/settings/guest-portal-screens/guest_portal_screens_default', {
        key: who.key,
        body: { config_key: 'guest_portal_screens_default', config_data: [{ guest_portal_screens: { FileUpload: 'required' } }] },
      });
      const portal = await openPortal(t.deps, new URL(r.json.guest_portal_url).pathname.split('/').pop() ?? '');
      const pdf = { field: 'document', filename: 'probe.pdf', contentType: 'application/pdf', data: Buffer.from(`%PDF-1.4\n% a probe document\n${'0'.repeat(200)}\n%%EOF\n`) };
      assert.deepEqual(await saveStep(t.deps, portal, 'FileUpload', {}, [pdf], false), { ok: true });
      const file = await t.deps.db.selectFrom('guest_portal_files').select('id').where('reservation_id', '=', r.json.id).executeTakeFirstOrThrow();
      ctx.files.set(who.account.id, file.id);
      const d = await t.deps.db.selectFrom('webhook_deliveries').select('id').where('account_id', '=', who.account.id).executeTakeFirstOrThrow();
      ctx.deliveries.set(who.account.id, d.id);
      const rule = await call(t, 'POST', '/v1/rules', { key: who.key, body: { name: 'probe', expression: 'reservation.nights > 30', action: 'review' } });
      assert.equal(rule.status, 200, rule.body);
      ctx.rules.set(who.account.id, rule.json.id);
      const block = await call(t, 'POST', '/v1/blocklist', { key: who.key, body: { email: 'blocked@example.test', reason: 'probe' } });
      assert.equal(block.status, 200, block.body);
      ctx.blocks.set(who.account.id, block.json.id);
      // An adverse-media search and a background check, run to the end as the worker would.
      const search = await call(t, 'GET', '/v1/lookup/adverse-media/search?first_name=Ada&last_name=Owner&country=GB', { key: who.key });
      const check = await call(t, 'POST', '/v1/background-check/submit?type=globalcheck', { key: who.key, body: { first_name: 'Ada', last_name: 'Owner' } });
      for (const id of [search.json.id, check.json.id]) {
        await runCheck({ check_id: id }, { deps: t.deps, job: { attempt: 1, max_attempts: 5 } as JobRow, signal: new AbortController().signal });
      }
      ctx.searches.set(who.account.id, search.json.id);
      ctx.checks.set(who.account.id, check.json.id);
    }
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
      // The owner's key with its last character changed (to x, or to y when it was an x).
      const altered = `${ctx.owner.key.slice(0, -1)}${ctx.owner.key.endsWith('x') ? 'y' : 'x'}`;
      for (const key of [generateApiKey(), 'gsk_nottherightshape', altered]) {
        const res = await call(t, r.method as 'GET', p.url, { key, body: p.body });
        assert.equal(res.status, 401, `${routeKey(r)} with key ${key.slice(0, 12)}…`);
      }
    }
  });

  it('answers 401 for a disabled account on every route', async () => {
    for (const r of routes) {
      const p = probe(r, ctx, disabled);
      const res = await call(t, r.method as 'GET', p.url, { key: disabled.key, body: p.body });
      assert.equal(res.status, 401, routeKey(r));
      assert.equal(res.json.error, 'account is disabled');
    }
  });

  it('answers 403 for a suspended account on every route but GET /v1/accounts/me', async () => {
    for (const r of routes) {
      const p = probe(r, ctx, suspended);
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
      const cross = CROSS_TENANT[routeKey(r)];
      if (!r.url.includes(':id') && !cross) continue;
      const p = cross ? cross(ctx) : probe(r, ctx, ctx.stranger);
      const res = await call(t, r.method as 'GET', p.url, { key: ctx.owner.key, body: p.body });
      assert.equal(res.status, 404, `${routeKey(r)} on another tenant's object`);
    }
  });

  it('lets the owner through on every route (the probes above hit real handlers)', async () => {
    const deletesLast = [...routes].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
    for (const r of deletesLast) {
      const p = probe(r, ctx);
      const res = await call(t, r.method as 'GET', p.url, { key: ctx.owner.key, body: p.body });
      // A lookup with no provider configured here answers 500 provider_error, past every check above.
      const allowed =
        res.status < 400 ||
        (routeKey(r) === 'DELETE /v1/accounts/webhooks' && res.status === 404) ||
        (r.url.startsWith('/v1/lookup/') && res.status === 500 && res.json.code === 'provider_error');
      assert.ok(allowed, `${routeKey(r)} as owner answered ${res.status}: ${res.body}`);
    }
  });
});
