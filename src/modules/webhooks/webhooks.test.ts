import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type TestApp } from '../../../test/harness.js';
import { WEBHOOK_KEYS } from './keys.js';

describe(`webhook registration (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('registers, replaces, lists and removes a webhook URL per key', async () => {
    const me = await tenant(t);
    let r = await call(t, 'POST', '/v1/accounts/webhooks', {
      key: me.key,
      body: { webhook_key: 'guest_portal_webhook_url', webhook_url: 'https://pms.example/hooks/gp' },
    });
    assert.equal(r.status, 200);
    assert.equal(r.json.message, 'guest_portal_webhook_url registered');
    await call(t, 'POST', '/v1/accounts/webhooks', {
      key: me.key,
      body: { webhook_key: 'guest_portal_webhook_url', webhook_url: 'https://pms.example/hooks/gp2' },
    });
    await call(t, 'POST', '/v1/accounts/webhooks', {
      key: me.key,
      body: { webhook_key: 'screening_webhook_url', webhook_url: 'http://pms.example/hooks/screening' },
    });

    r = await call(t, 'GET', '/v1/accounts/webhooks', { key: me.key });
    assert.match(r.json.signing_secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
    assert.deepEqual(
      r.json.webhooks.map((w: { webhook_key: string; webhook_url: string }) => [w.webhook_key, w.webhook_url]),
      [
        ['guest_portal_webhook_url', 'https://pms.example/hooks/gp2'],
        ['screening_webhook_url', 'http://pms.example/hooks/screening'],
      ],
    );

    r = await call(t, 'DELETE', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'guest_portal_webhook_url' } });
    assert.equal(r.status, 200);
    assert.equal(r.json.message, 'guest_portal_webhook_url unregistered');
    r = await call(t, 'GET', '/v1/accounts/webhooks', { key: me.key });
    assert.equal(r.json.webhooks.length, 1);
  });

  it('accepts every webhook key of the design', async () => {
    const me = await tenant(t);
    for (const key of WEBHOOK_KEYS) {
      const r = await call(t, 'POST', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: key, webhook_url: `https://pms.example/${key}` } });
      assert.equal(r.status, 200, key);
    }
    assert.equal((await call(t, 'GET', '/v1/accounts/webhooks', { key: me.key })).json.webhooks.length, WEBHOOK_KEYS.length);
  });

  it('gives each account its own signing secret', async () => {
    const a = await tenant(t);
    const b = await tenant(t);
    const sa = (await call(t, 'GET', '/v1/accounts/webhooks', { key: a.key })).json.signing_secret;
    const sb = (await call(t, 'GET', '/v1/accounts/webhooks', { key: b.key })).json.signing_secret;
    assert.notEqual(sa, sb);
    assert.equal((await call(t, 'GET', '/v1/accounts/webhooks', { key: a.key })).json.signing_secret, sa);
  });

  it('rejects an unknown webhook key', async () => {
    const me = await tenant(t);
    const r = await call(t, 'POST', '/v1/accounts/webhooks', {
      key: me.key,
      body: { webhook_key: 'payment_webhook_url', webhook_url: 'https://pms.example/x' },
    });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^body\.webhook_key: must be one of screening_webhook_url, guest_portal_webhook_url/);
  });

  it('rejects non-http URLs and URLs with credentials', async () => {
    const me = await tenant(t);
    for (const [url, why] of [
      ['ftp://pms.example/x', 'must use http or https'],
      ['javascript:alert(1)', 'must use http or https'],
      ['not a url', 'must be an absolute http or https URL'],
      ['https://user:pw@pms.example/x', 'must not carry credentials (user:password@)'],
    ]) {
      const r = await call(t, 'POST', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'reservation_webhook_url', webhook_url: url } });
      assert.equal(r.status, 400, url);
      assert.equal(r.json.error, `body.webhook_url: ${why}`);
    }
    assert.equal((await call(t, 'GET', '/v1/accounts/webhooks', { key: me.key })).json.webhooks.length, 0);
  });

  it('answers 404 when removing a webhook that is not registered, or with a URL that does not match', async () => {
    const me = await tenant(t);
    let r = await call(t, 'DELETE', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'listing_webhook_url' } });
    assert.equal(r.status, 404);
    await call(t, 'POST', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'listing_webhook_url', webhook_url: 'https://a.example/' } });
    r = await call(t, 'DELETE', '/v1/accounts/webhooks', {
      key: me.key,
      body: { webhook_key: 'listing_webhook_url', webhook_url: 'https://b.example/' },
    });
    assert.equal(r.status, 404);
  });

  it("never shows another account's webhooks", async () => {
    const a = await tenant(t);
    const b = await tenant(t);
    await call(t, 'POST', '/v1/accounts/webhooks', { key: a.key, body: { webhook_key: 'listing_webhook_url', webhook_url: 'https://a.example/' } });
    assert.equal((await call(t, 'GET', '/v1/accounts/webhooks', { key: b.key })).json.webhooks.length, 0);
    const r = await call(t, 'DELETE', '/v1/accounts/webhooks', { key: b.key, body: { webhook_key: 'listing_webhook_url' } });
    assert.equal(r.status, 404);
  });
});
