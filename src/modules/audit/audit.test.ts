import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';
import { OPERATOR } from '../../lib/actor.js';
import { createNamedKey } from '../accounts/service.js';

describe(`GET /v1/audit: who did what through the API (${dbKind})`, () => {
  let t: TestApp;
  let host: Tenant;
  let other: Tenant;
  let sync: { id: string; value: string };

  before(async () => {
    t = await createTestApp();
    host = await tenant(t, { name: 'Audit Stays' });
    other = await tenant(t, { name: 'Elsewhere' });
    sync = await createNamedKey(t.deps, host.account, OPERATOR, { name: 'PMS sync', readOnly: false });
    assert.equal((await call(t, 'POST', '/v1/blocklist', { key: host.key, body: { email: 'a@example.org', reason: 'damage' } })).status, 200);
    assert.equal((await call(t, 'POST', '/v1/blocklist', { key: sync.value, body: { email: 'b@example.org', reason: 'party' } })).status, 200);
    await call(t, 'POST', '/v1/blocklist', { key: other.key, body: { email: 'c@example.org', reason: 'theft' } });
  });
  after(() => t.close());

  it("names the key behind each change, latest first, and shows no other account's lines", async () => {
    const r = await call(t, 'GET', '/v1/audit?action=blocklist.', { key: host.key });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.total, 2);
    assert.deepEqual(
      r.json.items.map((l: { action: string; actor: { type: string; name: string } }) => [l.action, l.actor.type, l.actor.name]),
      [
        ['blocklist.created', 'api_key', 'PMS sync'],
        ['blocklist.created', 'api_key', 'API key'],
      ],
    );
  });

  it('filters by key and by dates, and pages', async () => {
    const byKey = await call(t, 'GET', `/v1/audit?actor=${sync.id}`, { key: host.key });
    assert.ok(byKey.json.items.length >= 1);
    assert.ok(byKey.json.items.every((l: { actor: { id: string } }) => l.actor.id === sync.id));
    const today = new Date().toISOString().slice(0, 10);
    assert.ok((await call(t, 'GET', `/v1/audit?from_date=${today}&to_date=${today}`, { key: host.key })).json.total >= 2);
    assert.equal((await call(t, 'GET', '/v1/audit?to_date=2000-01-01', { key: host.key })).json.total, 0);
    const first = await call(t, 'GET', '/v1/audit?size=1', { key: host.key });
    const second = await call(t, 'GET', '/v1/audit?size=1&from=1', { key: host.key });
    assert.equal(first.json.items.length, 1);
    assert.notEqual(first.json.items[0].id, second.json.items[0].id);
  });

  it('answers 400 naming the field for a date that does not exist or is out of range', async () => {
    for (const q of ['from_date=2026-02-30', 'to_date=99999-12-31', 'from_date=yesterday', 'from=1e309']) {
      const r = await call(t, 'GET', `/v1/audit?${q}`, { key: host.key });
      assert.equal(r.status, 400, `${q}: ${r.body}`);
      assert.match(r.json.error, new RegExp(`^(query\\.)?${q.split('=')[0]}`));
    }
  });
});
