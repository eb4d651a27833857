import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type TestApp } from '../../../test/harness.js';
import { SCREENS } from '../guests/index.js';

const BASE = '/v1/accounts/settings/guest-portal-screens';

describe(`guest-portal screen settings (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('reads an empty by-source setting before anything is stored', async () => {
    const me = await tenant(t);
    const r = await call(t, 'GET', `${BASE}/guest_portal_screens_by_source`, { key: me.key });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { config_key: 'guest_portal_screens_by_source', config_data: [] });
  });

  it('reads the built-in defaults for every one of the 23 screens (the spec’s 22 and the selfie)', async () => {
    const me = await tenant(t);
    const r = await call(t, 'GET', `${BASE}/guest_portal_screens_default`, { key: me.key });
    assert.deepEqual(Object.keys(r.json.config_data[0].guest_portal_screens).sort(), [...SCREENS].sort());
    assert.equal(r.json.config_data[0].guest_portal_screens.IDVerification, 'required');
  });

  it('updates with a JSON body sent on GET, as the spec has it, and reads it back', async () => {
    const me = await tenant(t);
    const body = {
      config_key: 'guest_portal_screens_by_source',
      config_data: [
        { source: 'Airbnb', guest_portal_screens: { IDVerification: 'required', CreditCheck: 'disabled' } },
        { source: 'Booking.com', guest_portal_screens: { IDVerification: 'optional' } },
      ],
    };
    let r = await call(t, 'GET', `${BASE}/guest_portal_screens_by_source`, { key: me.key, body });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, body);
    r = await call(t, 'GET', `${BASE}/guest_portal_screens_by_source`, { key: me.key });
    assert.deepEqual(r.json, body);
  });

  it('updates with PUT too', async () => {
    const me = await tenant(t);
    const body = { config_data: [{ guest_portal_screens: { HouseRules: 'required', BackgroundCheck: 'optional' } }] };
    const r = await call(t, 'PUT', `${BASE}/guest_portal_screens_for_repeat_guests`, { key: me.key, body });
    assert.equal(r.status, 200);
    const read = await call(t, 'GET', `${BASE}/guest_portal_screens_for_repeat_guests`, { key: me.key });
    assert.deepEqual(read.json.config_data, body.config_data);
  });

  it("lets a reseller read and write a child's settings with user_id", async () => {
    const reseller = await tenant(t, { reseller: true });
    const child = await tenant(t, { parent: reseller });
    const body = { config_data: [{ source: 'Vrbo', guest_portal_screens: { AboutYou: 'required' } }] };
    const w = await call(t, 'GET', `${BASE}/guest_portal_screens_by_source?user_id=${child.account.id}`, { key: reseller.key, body });
    assert.equal(w.status, 200);
    const own = await call(t, 'GET', `${BASE}/guest_portal_screens_by_source`, { key: child.key });
    assert.deepEqual(own.json.config_data, body.config_data);
    const resellersOwn = await call(t, 'GET', `${BASE}/guest_portal_screens_by_source`, { key: reseller.key });
    assert.deepEqual(resellersOwn.json.config_data, []);
  });

  it('answers 404 for a user_id the caller does not manage', async () => {
    const a = await tenant(t);
    const b = await tenant(t);
    const r = await call(t, 'GET', `${BASE}/guest_portal_screens_by_source?user_id=${b.account.id}`, { key: a.key });
    assert.equal(r.status, 404);
    const parentOfA = t.root.account.id;
    assert.equal((await call(t, 'GET', `${BASE}/guest_portal_screens_by_source?user_id=${parentOfA}`, { key: a.key })).status, 404);
  });

  it('rejects an unknown config key, screen name or setting, naming it', async () => {
    const me = await tenant(t);
    let r = await call(t, 'GET', `${BASE}/guest_portal_screens_everything`, { key: me.key });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^path\.key: must be one of guest_portal_screens_by_source/);

    r = await call(t, 'GET', `${BASE}/guest_portal_screens_by_source`, {
      key: me.key,
      body: { config_data: [{ source: 'Airbnb', guest_portal_screens: { FaceScan: 'required' } }] },
    });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, "body.config_data.0.guest_portal_screens: unknown field 'FaceScan'");

    r = await call(t, 'GET', `${BASE}/guest_portal_screens_by_source`, {
      key: me.key,
      body: { config_data: [{ source: 'Airbnb', guest_portal_screens: { AboutYou: 'mandatory' } }] },
    });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'body.config_data.0.guest_portal_screens.AboutYou: must be one of required, optional, disabled');
    assert.deepEqual((await call(t, 'GET', `${BASE}/guest_portal_screens_by_source`, { key: me.key })).json.config_data, []);
  });

  it('rejects a by-source entry without a source, a repeated source, and a mismatched config_key', async () => {
    const me = await tenant(t);
    let r = await call(t, 'PUT', `${BASE}/guest_portal_screens_by_source`, {
      key: me.key,
      body: { config_data: [{ guest_portal_screens: {} }] },
    });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'body.config_data.0.source: is required for guest_portal_screens_by_source');
    r = await call(t, 'PUT', `${BASE}/guest_portal_screens_by_source`, {
      key: me.key,
      body: {
        config_data: [
          { source: 'Airbnb', guest_portal_screens: {} },
          { source: 'airbnb', guest_portal_screens: {} },
        ],
      },
    });
    assert.equal(r.status, 400);
    r = await call(t, 'PUT', `${BASE}/guest_portal_screens_by_source`, {
      key: me.key,
      body: { config_key: 'guest_portal_screens_default', config_data: [] },
    });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^body\.config_key: /);
  });

  it('rejects a malformed JSON body on GET with 400 and a non-JSON body with 415', async () => {
    const me = await tenant(t);
    let r = await call(t, 'GET', `${BASE}/guest_portal_screens_by_source`, {
      key: me.key,
      rawBody: '{"config_data": [',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^body: malformed JSON/);
    r = await call(t, 'GET', `${BASE}/guest_portal_screens_by_source`, {
      key: me.key,
      rawBody: 'config_data=1',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(r.status, 415);
  });
});
