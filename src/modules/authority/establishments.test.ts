import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeAlloggiati, type FakeAlloggiati } from '../../../test/fake-alloggiati.js';
import { startFakeSes, type FakeSes } from '../../../test/fake-ses.js';
import { call, createTestApp, dbKind, everyRowAsText, freePort, tenant, type TestApp } from '../../../test/harness.js';

const SES = { user: 'B12345678WS', password: 'secreta-ñ', arrendador: '0000000001' };
const ALLOGGIATI = { user: 'RM000123', password: 'Segreta1', wsKey: 'AAAA-BBBB-CCCC' };

const booking = (listing: string) => ({
  confirmation_code: `HM${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
  source: 'Airbnb',
  listing_id: listing,
  listing_nickname: 'Piso Serrano',
  number_of_guests: 2,
  check_in_date: '2026-12-10',
  check_out_date: '2026-12-13',
  guest: { first_name: 'Juan', last_name: 'García', email: 'juan@example.es' },
});

describe(`authority establishments (${dbKind})`, () => {
  let t: TestApp;
  let ses: FakeSes;
  let production: FakeSes;
  let alloggiati: FakeAlloggiati;
  before(async () => {
    [ses, production, alloggiati] = await Promise.all([startFakeSes(SES), startFakeSes({ ...SES, password: 'produccion' }), startFakeAlloggiati(ALLOGGIATI, () => '2026-12-10')]);
    t = await createTestApp({ GUESTSCREEN_SES_TEST_URL: ses.url, GUESTSCREEN_SES_URL: production.url, GUESTSCREEN_ALLOGGIATI_URL: alloggiati.url });
  });
  after(async () => {
    await t.close();
    await Promise.all([ses.close(), production.close(), alloggiati.close()]);
  });

  const sesBody = { system: 'ses', landlord_code: SES.arrendador, establishment_code: '0000000042', username: SES.user, password: SES.password };

  it('sets a listing’s SES establishment in test mode once the pre-production catalogue takes its credentials, and never answers them back', async () => {
    const me = await tenant(t);
    await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking('madrid-1') });
    const r = await call(t, 'PUT', '/v1/listings/madrid-1/authority-establishment', { key: me.key, body: sesBody });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.mode, 'test');
    assert.equal(r.json.check, 'passed');
    assert.equal(r.json.listing_id, 'madrid-1');
    assert.equal(r.body.includes(SES.password), false);
    assert.ok(
      ses.requests.some((x) => x.includes('catalogoRequest')),
      'checked against the pre-production service',
    );
    const got = await call(t, 'GET', '/v1/listings/madrid-1/authority-establishment', { key: me.key });
    assert.equal(got.body.includes(SES.password), false);
    assert.equal(got.json.establishment_code, '0000000042');
    // Sealed at rest: the password is in no column of any table.
    for (const [table, rows] of await everyRowAsText(t.deps)) assert.equal(rows.includes(SES.password), false, `the password is in ${table}`);
  });

  it('refuses credentials the authority refuses, in its words, and saves nothing', async () => {
    const me = await tenant(t);
    await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking('madrid-2') });
    const r = await call(t, 'PUT', '/v1/listings/madrid-2/authority-establishment', { key: me.key, body: { ...sesBody, password: 'wrong' } });
    assert.equal(r.status, 422);
    assert.match(r.json.error, /SES\.HOSPEDAJES refused these credentials \(test mode\).*10107.*nothing was saved/);
    assert.equal((await call(t, 'GET', '/v1/listings/madrid-2/authority-establishment', { key: me.key })).status, 404);
  });

  it('switches to production keeping the credentials, checked against the production service', async () => {
    const me = await tenant(t);
    await call(t, 'PUT', '/v1/accounts/authority-establishment', { key: me.key, body: sesBody });
    const refused = await call(t, 'PUT', '/v1/accounts/authority-establishment', { key: me.key, body: { system: 'ses', mode: 'production' } });
    assert.equal(refused.status, 422, 'the production service knows another password');
    const r = await call(t, 'PUT', '/v1/accounts/authority-establishment', { key: me.key, body: { system: 'ses', mode: 'production', username: SES.user, password: 'produccion' } });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.mode, 'production');
    assert.equal(r.json.listing_id, null);
    assert.ok(production.requests.some((x) => x.includes('catalogoRequest')));
  });

  it('saves credentials when the authority cannot be reached, and says it could not check them', async () => {
    const closed = await freePort();
    const offline = await createTestApp({ GUESTSCREEN_SES_TEST_URL: `http://127.0.0.1:${closed}/ws` });
    try {
      const me = await tenant(offline);
      const r = await call(offline, 'PUT', '/v1/accounts/authority-establishment', { key: me.key, body: sesBody });
      assert.equal(r.status, 200, r.body);
      assert.equal(r.json.check, 'not_reached');
      assert.match(r.json.check_problem, /could not be reached/);
      assert.equal(r.json.checked_at, null);
    } finally {
      await offline.close();
    }
  });

  it('sets an Alloggiati Web establishment with its WSKEY and apartment, checked by a token and the service’s own test', async () => {
    const me = await tenant(t);
    await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking('roma-1') });
    const r = await call(t, 'PUT', '/v1/listings/roma-1/authority-establishment', {
      key: me.key,
      body: { system: 'alloggiati', username: ALLOGGIATI.user, password: ALLOGGIATI.password, ws_key: ALLOGGIATI.wsKey, apartment_id: '4711' },
    });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.apartment_id, '4711');
    assert.deepEqual(alloggiati.calls.slice(-5), ['GenerateToken', 'Authentication_Test', 'GenerateToken', 'Tabella', 'Tabella'], 'checked, then its tables fetched');
    assert.equal(r.json.tables_as_of, new Date().toISOString().slice(0, 10));
    const stale = await call(t, 'PUT', '/v1/listings/roma-1/authority-establishment', {
      key: me.key,
      body: { system: 'alloggiati', username: ALLOGGIATI.user, password: ALLOGGIATI.password, ws_key: 'made-yesterday' },
    });
    assert.equal(stale.status, 422);
    assert.match(stale.json.error, /Alloggiati Web refused/);
  });

  it('names what is missing or wrong', async () => {
    const me = await tenant(t);
    await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking('madrid-3') });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...sesBody, landlord_code: undefined }, /body\.landlord_code: required for SES\.HOSPEDAJES/],
      [{ ...sesBody, password: undefined, username: undefined }, /body\.username: required/],
      [{ system: 'alloggiati', username: 'x', password: 'y' }, /body\.ws_key: required for Alloggiati Web/],
      [{ ...sesBody, landlord_code: '12345678901' }, /landlord_code/],
      [{ ...sesBody, system: 'croatia' }, /system/],
      [{ ...sesBody, system: 'siba' }, /body\.nipc: required for SIBA/],
      [{ ...sesBody, ca_bundle: 'not a certificate' }, /body\.ca_bundle/],
      [{ ...sesBody, surprise: 1 }, /surprise/],
      [{ ...sesBody, establishment_code: 'a\u0000b' }, /establishment_code|NUL|control/],
    ];
    for (const [body, error] of cases) {
      const r = await call(t, 'PUT', '/v1/listings/madrid-3/authority-establishment', { key: me.key, body });
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.body}`);
      assert.match(r.json.error, error);
    }
    // A listing is the account's own name for it: one no booking has named yet can be set up ahead.
    assert.equal((await call(t, 'PUT', '/v1/listings/opening-next-month/authority-establishment', { key: me.key, body: sesBody })).status, 200);
  });
});
