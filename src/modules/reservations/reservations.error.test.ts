import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type TestApp } from '../../../test/harness.js';

const guest = { first_name: 'Ana', last_name: 'Lima' };

describe(`reservations, error cases (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const count = async (key: string) => (await call(t, 'GET', '/v1/reservations', { key })).json.total;

  it('requires the guest names on create', async () => {
    const me = await tenant(t);
    let r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { confirmation_code: 'X1' } });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'body.guest: is required');
    r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Ana' } } });
    assert.equal(r.json.error, 'body.guest.last_name: is required');
    assert.equal(await count(me.key), 0);
  });

  it('rejects unknown and read-only fields by name', async () => {
    const me = await tenant(t);
    let r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest, pets: 2 } });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, "body: unknown field 'pets'");
    r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest, id: 'res_mine' } });
    assert.equal(r.json.error, 'body.id: is read-only');
    r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { ...guest, age: 3 } } });
    assert.equal(r.json.error, "body.guest: unknown field 'age'");
    r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest, identification: { passport: 'x' } } });
    assert.equal(r.json.error, "body.identification: unknown field 'passport'");
  });

  it('rejects bad types, dates and statuses', async () => {
    const me = await tenant(t);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ number_of_guests: 'two' }, /^body\.number_of_guests: must be integer$/],
      [{ total_price: -5 }, /^body\.total_price: must be >= 0$/],
      [{ check_in_date: '12/10/2026' }, /^body\.check_in_date: must match format "date"$/],
      [{ check_in_date: '2026-02-30' }, /^body\.check_in_date: must match format "date"$/],
      [{ check_in_date: '2026-12-10', check_out_date: '2026-12-10' }, /^body\.check_out_date: must be after check_in_date/],
      [{ status: 'BOOKED' }, /^body\.status: must be one of CONFIRMED, CANCELED, INQUIRY$/],
      [{ pms: 'nope' }, /^body\.pms: must be 'api' or a configured PMS name/],
      // Every problem is named, not only the first.
      [
        { number_of_guests: 'two', total_price: -5, check_in_date: 'soon' },
        /^body\.number_of_guests: must be integer; body\.total_price: must be >= 0; body\.check_in_date: must match format "date"$/,
      ],
      // Nights that the dates contradict: both are named.
      [{ check_in_date: '2026-12-10', check_out_date: '2026-12-12', nights: 9 }, /^body\.nights: 9 does not match check_in_date 2026-12-10 and check_out_date 2026-12-12, 2 nights apart$/],
    ];
    for (const [extra, message] of cases) {
      const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest, ...extra } });
      assert.equal(r.status, 400, JSON.stringify(extra));
      assert.match(r.json.error, message);
    }
    assert.equal(await count(me.key), 0);
  });

  it('takes the key as Authorization: Bearer too, and says how to give it when none is given', async () => {
    const me = await tenant(t);
    const bearer = await call(t, 'GET', '/v1/reservations', { headers: { authorization: `Bearer ${me.key}` } });
    assert.equal(bearer.status, 200, bearer.body);
    const none = await call(t, 'GET', '/v1/reservations');
    assert.equal(none.status, 401);
    assert.equal(none.json.error, 'missing x-api-key header (or Authorization: Bearer with the key)');
    const wrong = await call(t, 'GET', '/v1/reservations', { headers: { authorization: 'Bearer gsk_not-a-key' } });
    assert.equal(wrong.status, 401);
  });

  it('refuses nights that contradict the stored dates on an update, and changes nothing', async () => {
    const me = await tenant(t);
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest, check_in_date: '2026-12-10', check_out_date: '2026-12-12' } })).json;
    const r = await call(t, 'PUT', `/v1/reservations/${id}`, { key: me.key, body: { nights: 5 } });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^body\.nights: 5 does not match check_in_date 2026-12-10 and check_out_date 2026-12-12, 2 nights apart$/);
    assert.equal((await call(t, 'GET', `/v1/reservations/${id}`, { key: me.key })).json.nights, 2);
  });

  it('rejects an update that would put check-out before check-in, and changes nothing', async () => {
    const me = await tenant(t);
    const { id } = (
      await call(t, 'POST', '/v1/reservations', {
        key: me.key,
        body: { guest, check_in_date: '2026-12-10', check_out_date: '2026-12-12' },
      })
    ).json;
    const r = await call(t, 'PUT', `/v1/reservations/${id}`, { key: me.key, body: { check_out_date: '2026-12-01', listing_nickname: 'X' } });
    assert.equal(r.status, 400);
    const after = (await call(t, 'GET', `/v1/reservations/${id}`, { key: me.key })).json;
    assert.equal(after.check_out_date, '2026-12-12');
    assert.equal(after.listing_nickname, null);
  });

  it('answers 409 naming the existing reservation for a duplicate confirmation code', async () => {
    const me = await tenant(t);
    const first = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest, confirmation_code: 'DUP-1' } })).json;
    const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest, confirmation_code: 'DUP-1' } });
    assert.equal(r.status, 409);
    assert.ok(r.json.error.includes(first.id));
    const other = await tenant(t);
    assert.equal((await call(t, 'POST', '/v1/reservations', { key: other.key, body: { guest, confirmation_code: 'DUP-1' } })).status, 200);
    const second = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest, confirmation_code: 'DUP-2' } })).json;
    const u = await call(t, 'PUT', `/v1/reservations/${second.id}`, { key: me.key, body: { confirmation_code: 'DUP-1' } });
    assert.equal(u.status, 409);
  });

  it('validates callback, sync and skip_gp', async () => {
    const me = await tenant(t);
    let r = await call(t, 'POST', '/v1/reservations?callback=ftp://x.example/cb', { key: me.key, body: { guest } });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'query.callback: must use http or https');
    r = await call(t, 'POST', '/v1/reservations?sync=yes', { key: me.key, body: { guest } });
    assert.equal(r.json.error, 'query.sync: must be one of true, false, 1, 0');
    assert.equal(await count(me.key), 0);
  });

  it('answers 400 for usepmsid without pms and 404 for an unknown id', async () => {
    const me = await tenant(t);
    assert.equal((await call(t, 'GET', '/v1/reservations/123?usepmsid=true', { key: me.key })).json.error, 'query.usepmsid: must be used with pms');
    const r = await call(t, 'GET', '/v1/reservations/res_nope', { key: me.key });
    assert.equal(r.status, 404);
    assert.equal(r.json.error, 'reservation res_nope not found');
  });

  it('rejects a manual decision other than approve or decline', async () => {
    const me = await tenant(t);
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest } })).json;
    const r = await call(t, 'POST', `/v1/reservations/${id}/status`, { key: me.key, body: { supervised: 'maybe' } });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'body.supervised: must be one of approve, decline');
  });

  it('rejects bad search filters', async () => {
    const me = await tenant(t);
    for (const [q, message] of [
      ['size=500', /^query\.size: must be <= 100$/],
      ['status=DONE', /^query\.status: must be one of CONFIRMED, CANCELED, INQUIRY, any$/],
      ['dateField=arrival', /^query\.dateField: must be one of/],
      ['startDate=2026-13-01', /^query\.startDate: must match format "date"$/],
      ['startDate=2026-12-10&endDate=2026-12-01', /^query\.endDate: must not be before startDate$/],
      ['guestportal_completed=maybe', /^query\.guestportal_completed: /],
      ['active=2', /^query\.active: /],
      ['colour=red', /^query: unknown field 'colour'$/],
    ] as const) {
      const r = await call(t, 'GET', `/v1/reservations?${q}`, { key: me.key });
      assert.equal(r.status, 400, q);
      assert.match(r.json.error, message, q);
    }
  });
});
