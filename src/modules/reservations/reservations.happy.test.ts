import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type TestApp } from '../../../test/harness.js';

const booking = (over: Record<string, unknown> = {}) => ({
  confirmation_code: `HM${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
  source: 'Airbnb',
  listing_id: 'L-100',
  listing_nickname: 'Harbour Loft',
  listing_timezone_name: 'Europe/Lisbon',
  number_of_guests: 2,
  total_price: 450,
  check_in_date: '2026-12-10',
  check_out_date: '2026-12-13',
  guest: { first_name: 'Maria', last_name: 'Santos', email: 'Maria.Santos@example.pt', phone: '+351 912 345 678', location: 'Porto, PT' },
  identification: { document_number: 'P1234567', document_type: 'passport', nationality: 'PT', birth_date: '1990-04-02' },
  ...over,
});

describe(`reservations, happy paths (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ GUESTSCREEN_PMS_NAMES: 'hostaway' });
  });
  after(() => t.close());

  it('creates a reservation with derived nights, rate, full name and a guest-portal URL', async () => {
    const me = await tenant(t);
    const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking() });
    assert.equal(r.status, 200, r.body);
    assert.match(r.json.id, /^res_/);
    assert.equal(r.json.user_id, me.account.id);
    assert.equal(r.json.nights, 3);
    assert.equal(r.json.average_daily_rate, 150);
    assert.equal(r.json.guest.full_name, 'Maria Santos');
    assert.equal(r.json.guest.email, 'maria.santos@example.pt');
    assert.equal(r.json.status, 'CONFIRMED');
    assert.equal(r.json.pms, 'api');
    assert.match(r.json.guest_portal_url, /^http:\/\/guestscreen\.test\/gp\/[0-9a-z]{9}[A-Za-z0-9_-]{24}$/);
    assert.equal(r.json.identification.document_number, 'P1234567');
    assert.equal(r.json.identification.issue_date, null);

    const got = await call(t, 'GET', `/v1/reservations/${r.json.id}`, { key: me.key });
    assert.deepEqual(got.json, r.json);
  });

  it('keeps the document number encrypted at rest', async () => {
    const me = await tenant(t);
    const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking() });
    const row = await t.deps.db.selectFrom('reservations').selectAll().where('id', '=', r.json.id).executeTakeFirstOrThrow();
    assert.ok(row.identification_enc?.startsWith('v1.'));
    assert.ok(!JSON.stringify(row).includes('P1234567'));
  });

  it('merges an update: given fields replace, guest and identification merge key by key', async () => {
    const me = await tenant(t);
    const created = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking() })).json;
    const r = await call(t, 'PUT', `/v1/reservations/${created.id}`, {
      key: me.key,
      body: { check_out_date: '2026-12-15', guest: { phone: '+351 913 000 000' }, identification: { expiry_date: '2030-01-01' } },
    });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.nights, 5);
    assert.equal(r.json.average_daily_rate, 90);
    assert.equal(r.json.guest.first_name, 'Maria');
    assert.equal(r.json.guest.phone, '+351 913 000 000');
    assert.equal(r.json.guest.email, 'maria.santos@example.pt');
    assert.equal(r.json.identification.document_number, 'P1234567');
    assert.equal(r.json.identification.expiry_date, '2030-01-01');
    assert.ok(r.json.updated_at >= created.updated_at);
    assert.equal(r.json.created_at, created.created_at);
  });

  it('finds a reservation by confirmation code with pms, and by the PMS id with usepmsid', async () => {
    const me = await tenant(t);
    const created = (
      await call(t, 'POST', '/v1/reservations', {
        key: me.key,
        body: booking({ confirmation_code: 'HA-777', pms: 'hostaway', pms_reservation_id: '998877' }),
      })
    ).json;
    assert.equal((await call(t, 'GET', '/v1/reservations/HA-777?pms=hostaway', { key: me.key })).json.id, created.id);
    assert.equal((await call(t, 'GET', '/v1/reservations/998877?pms=hostaway&usepmsid=true', { key: me.key })).json.id, created.id);
    assert.equal((await call(t, 'GET', '/v1/reservations/HA-777?pms=api', { key: me.key })).status, 404);
    assert.equal((await call(t, 'GET', `/v1/reservations/HA-777/summary?pms=hostaway`, { key: me.key })).status, 200);
  });

  it('answers summary and status honestly before the first screening run', async () => {
    const me = await tenant(t);
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking() })).json;
    const status = (await call(t, 'GET', `/v1/reservations/${id}/status`, { key: me.key })).json;
    assert.deepEqual(status, {
      status: 'pending',
      pms_status: 'CONFIRMED',
      supervised: null,
      supervised_reason: null,
      decided_by: null,
      decided_at: null,
      reason: 'Not screened yet: screening is on its way',
      guestportal_completed: false,
      business_rules: [],
    });
    const summary = (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: me.key })).json;
    assert.equal(summary.verification_status, 'pending');
    assert.equal(summary.supervised_status, null);
    assert.equal(Object.keys(summary.details).length, 11);
    for (const [name, d] of Object.entries(summary.details as Record<string, { status: string; value?: string }>)) {
      assert.equal(d.status, 'INCOMPLETE', name);
      if (name === 'house_rules') assert.deepEqual(d, { status: 'INCOMPLETE' });
    }
  });

  it('records manual decisions, lets them change, and keeps each in the notes with its author', async () => {
    const me = await tenant(t, { name: 'Harbour Hosts' });
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking() })).json;
    let r = await call(t, 'POST', `/v1/reservations/${id}/status`, { key: me.key, body: { supervised: 'decline' } });
    assert.equal(r.status, 200);
    assert.equal(r.json.supervised, 'decline');
    assert.equal(r.json.status, 'declined');
    r = await call(t, 'POST', `/v1/reservations/${id}/status`, { key: me.key, body: { supervised: 'approve', reason: 'called her, all fine' } });
    assert.equal(r.json.status, 'verified');
    // The decision is a decision record too: who, when, why, and the verdict it set.
    const decisions = (await call(t, 'GET', `/v1/reservations/${id}/decisions`, { key: me.key })).json;
    const manual = decisions.find((d: { decided_by?: unknown }) => d.decided_by);
    assert.ok(
      decisions.every((d: { created_at: string }, i: number) => i === 0 || decisions[i - 1].created_at >= d.created_at),
      'newest first, the decision where its time puts it',
    );
    assert.equal(manual.trigger, 'manual');
    assert.equal(manual.verdict.status, 'verified');
    assert.match(manual.verdict.reason, /^Approved by .+: called her, all fine$/);
    assert.deepEqual([manual.decided_by.type, manual.reason, manual.created_at], ['api_key', 'called her, all fine', r.json.decided_at]);
    const summary = (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: me.key })).json;
    assert.equal(summary.supervised_status, 'approve');
    assert.equal(summary.verification_composite_status, 'verified');
    assert.equal(summary.verification_status, 'pending');

    await call(t, 'POST', `/v1/reservations/${id}/notes`, { key: me.key, body: { text: 'Guest called to confirm arrival time.' } });
    const notes = (await call(t, 'GET', `/v1/reservations/${id}/notes`, { key: me.key })).json;
    assert.deepEqual(
      notes.map((n: { author_type: string; text: string }) => [n.author_type, n.text]),
      [
        ['system', 'Reservation created through the API (pms api).'],
        ['api_key', 'Manually declined by API key.'],
        ['api_key', 'Manual decision changed from decline to approve by API key: called her, all fine'],
        ['api_key', 'Guest called to confirm arrival time.'],
      ],
    );
    // Through the API, the account's own key decided: the notes and the status name it.
    assert.match(notes[1].author_id, /^key_/);
    const decided = (await call(t, 'GET', `/v1/reservations/${id}/status`, { key: me.key })).json;
    assert.deepEqual(decided.decided_by, { type: 'api_key', id: notes[1].author_id, name: 'API key' });
  });

  it('resolves screens by source, then for repeat guests, else the defaults', async () => {
    const me = await tenant(t);
    const base = '/v1/accounts/settings/guest-portal-screens';
    await call(t, 'PUT', `${base}/guest_portal_screens_by_source`, {
      key: me.key,
      body: { config_data: [{ source: 'Vrbo', guest_portal_screens: { CreditCheck: 'required' } }] },
    });
    await call(t, 'PUT', `${base}/guest_portal_screens_for_repeat_guests`, {
      key: me.key,
      body: { config_data: [{ guest_portal_screens: { IDVerification: 'disabled' } }] },
    });
    const vrbo = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking({ source: 'vrbo' }) })).json;
    let screens = (await call(t, 'GET', `/v1/reservations/${vrbo.id}/screens`, { key: me.key })).json;
    assert.equal(Object.keys(screens).length, 23, 'the spec’s 22 and the selfie');
    assert.equal(screens.CreditCheck, 'required');
    assert.equal(screens.IDVerification, 'required', 'unspecified screens keep the defaults');

    const repeat = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking({ source: 'Direct' }) })).json;
    screens = (await call(t, 'GET', `/v1/reservations/${repeat.id}/screens`, { key: me.key })).json;
    assert.equal(screens.IDVerification, 'disabled', 'the same e-mail booked before: repeat guest');

    const fresh = (
      await call(t, 'POST', '/v1/reservations', {
        key: me.key,
        body: booking({ source: 'Direct', guest: { first_name: 'New', last_name: 'Person', email: 'new@example.test' } }),
      })
    ).json;
    screens = (await call(t, 'GET', `/v1/reservations/${fresh.id}/screens`, { key: me.key })).json;
    assert.equal(screens.IDVerification, 'required');
    assert.equal(screens.CreditCheck, 'disabled');
  });

  it('queues the guest-portal invitation and a reminder, shown by stargate, and answers guestportal', async () => {
    const me = await tenant(t);
    const { id, guest_portal_url } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: booking() })).json;
    const messages = (await call(t, 'GET', `/v1/reservations/${id}/stargate`, { key: me.key })).json;
    assert.deepEqual(
      messages.map((m: { tag: string; method: string; status: string; sendAfter: string }) => [m.tag, m.method, m.status]),
      [
        ['invitation', 'email', 'queued'],
        ['reminder', 'email', 'queued'],
      ],
    );
    assert.equal(messages[1].sendAfter, '2026-12-07T09:00:00.000Z', 'three days before check-in');
    assert.ok(messages[0].message.text.includes(guest_portal_url));
    assert.equal(messages[0].email, 'maria.santos@example.pt');
    assert.equal(messages[0].confirmation_code.length > 0, true);
    const gp = (await call(t, 'GET', `/v1/reservations/${id}/guestportal`, { key: me.key })).json;
    assert.equal(gp.completed, false);
    assert.deepEqual(gp.guests, []);
  });
});
