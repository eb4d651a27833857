import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestAppWithWorker, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
let n = 0;
const booking = (extra: Record<string, unknown> = {}, guest: Record<string, unknown> = {}) => ({
  source: 'Airbnb',
  check_in_date: day(20),
  check_out_date: day(23),
  total_price: 450,
  guest: { first_name: 'Lena', last_name: 'Berg', email: `lena.${++n}@gmail.com`, ...guest },
  ...extra,
});

describe(`business rules (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  before(async () => {
    t = await createTestAppWithWorker();
    me = await tenant(t);
  });
  after(() => t.close());

  const screen = async (body: Record<string, unknown>, who = me) => {
    const r = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: who.key, body });
    assert.equal(r.status, 200, r.body);
    return (await call(t, 'GET', `/v1/reservations/${r.json.id}/status`, { key: who.key })).json;
  };

  it('rejects an expression that does not compile, names an unknown field, or is not a condition, with the CEL error', async () => {
    const cases: [string, RegExp][] = [
      ['reservation.nights >', /^body\.expression: Unexpected token: EOF/],
      ['reservation.nightz > 3', /^body\.expression: No such key: nightz/],
      ['guest.passport == "x"', /^body\.expression: No such key: passport/],
      ['reservation.total_price', /^body\.expression: the expression is of type double; a rule must be true or false$/],
    ];
    for (const [expression, message] of cases) {
      const r = await call(t, 'POST', '/v1/rules', { key: me.key, body: { name: `bad ${expression}`, expression, action: 'review' } });
      assert.equal(r.status, 400, expression);
      assert.match(r.json.error, message);
    }
    assert.deepEqual((await call(t, 'GET', '/v1/rules', { key: me.key })).json, []);
  });

  it('sends matching bookings to review and names the rule in the status and the top risks', async () => {
    const acct = await tenant(t);
    const rule = await call(t, 'POST', '/v1/rules', { key: acct.key, body: { name: 'Long Vrbo stays', expression: 'reservation.source == "Vrbo" && reservation.nights >= 7', action: 'review' } });
    assert.equal(rule.status, 200, rule.body);
    assert.equal(rule.json.enabled, true);
    const hit = await screen(booking({ source: 'Vrbo', check_out_date: day(28) }), acct);
    assert.equal(hit.status, 'review');
    assert.deepEqual(hit.business_rules, ['Long Vrbo stays']);
    assert.match(hit.reason, /Sent to review by your rule “Long Vrbo stays”/);
    const miss = await screen(booking({ source: 'Vrbo' }), acct);
    assert.equal(miss.status, 'verified');
    assert.deepEqual(miss.business_rules, []);
  });

  it('declines and approves by rule, decline winning over approve', async () => {
    const acct = await tenant(t);
    await call(t, 'POST', '/v1/rules', { key: acct.key, body: { name: 'No parties', expression: 'reservation.number_of_guests > 10', action: 'decline' } });
    await call(t, 'POST', '/v1/rules', { key: acct.key, body: { name: 'Trusted domain', expression: 'guest.email_domain == "partner.example"', action: 'approve' } });
    const party = await screen(booking({ number_of_guests: 14 }), acct);
    assert.equal(party.status, 'declined');
    assert.deepEqual(party.business_rules, ['No parties']);
    const trusted = await screen(booking({}, { email: 'x@partner.example', phone: '+1 555 0100' }), acct);
    assert.equal(trusted.status, 'verified');
    assert.match(trusted.reason, /Approved by your rule “Trusted domain” despite: Phone number \+1 555 0100 is not a number that can be called/);
    const both = await screen(booking({ number_of_guests: 12 }, { email: 'y@partner.example' }), acct);
    assert.equal(both.status, 'declined');
    assert.deepEqual(both.business_rules.sort(), ['No parties', 'Trusted domain']);
  });

  it('uses check results in conditions, and stops firing once disabled', async () => {
    const acct = await tenant(t);
    const rule = (
      await call(t, 'POST', '/v1/rules', {
        key: acct.key,
        body: { name: 'Any payment doubt', expression: 'checks.payment_verification.status in ["REVIEW", "FAIL"]', action: 'decline' },
      })
    ).json;
    const r = await call(t, 'POST', '/v1/reservations?skip_gp=1', { key: acct.key, body: booking() });
    await call(t, 'POST', `/v1/reservations/${r.json.id}/payment-event`, {
      key: acct.key,
      body: { event_source: 's', event_id: '1', event_type: 'charge', event_status: 'failed' },
    });
    await call(t, 'POST', `/v1/reservations/${r.json.id}/payment-event`, {
      key: acct.key,
      body: { event_source: 's', event_id: '2', event_type: 'charge', event_status: 'failed' },
    });
    let status = (await call(t, 'POST', `/v1/reservations/${r.json.id}/screen?sync=1`, { key: acct.key })).json;
    assert.equal(status.status, 'declined');
    const off = await call(t, 'PUT', `/v1/rules/${rule.id}`, { key: acct.key, body: { enabled: false } });
    assert.equal(off.json.enabled, false);
    status = (await call(t, 'POST', `/v1/reservations/${r.json.id}/screen?sync=1`, { key: acct.key })).json;
    assert.equal(status.status, 'review');
    assert.deepEqual(status.business_rules, []);
    const decisions = (await call(t, 'GET', `/v1/reservations/${r.json.id}/decisions`, { key: acct.key })).json;
    assert.ok(decisions.some((d: { rules_fired: string[] }) => d.rules_fired.includes('Any payment doubt')));
  });

  it('dry-runs a candidate over past reservations without changing anything', async () => {
    const acct = await tenant(t);
    for (const guests of [2, 12, 3, 15]) await screen(booking({ number_of_guests: guests }), acct);
    const before = (await call(t, 'GET', '/v1/reservations?size=100', { key: acct.key })).json;
    const dry = await call(t, 'POST', '/v1/rules/dry-run', { key: acct.key, body: { expression: 'reservation.number_of_guests > 10', action: 'decline' } });
    assert.equal(dry.status, 200, dry.body);
    assert.equal(dry.json.evaluated, 4);
    assert.equal(dry.json.hits, 2);
    assert.equal(dry.json.changed, 2);
    assert.deepEqual(
      dry.json.items.map((i: { would_become: string }) => i.would_become),
      ['declined', 'declined'],
    );
    const after = (await call(t, 'GET', '/v1/reservations?size=100', { key: acct.key })).json;
    assert.deepEqual(after, before);
    assert.deepEqual((await call(t, 'GET', '/v1/rules', { key: acct.key })).json, []);
    const bad = await call(t, 'POST', '/v1/rules/dry-run', { key: acct.key, body: { expression: 'nope.x', action: 'decline' } });
    assert.equal(bad.status, 400);
  });

  it("says how many of a dry run's hits hold with a field the booking does not know", async () => {
    const acct = await tenant(t);
    const born = (years: number) => `${new Date().getUTCFullYear() - years}-01-01`;
    await screen({ ...booking(), identification: { birth_date: born(19) } }, acct);
    await screen({ ...booking(), identification: { birth_date: born(45) } }, acct);
    await screen(booking(), acct);
    await screen(booking(), acct);
    // As CEL: the unknown age (-1) is less than 21, and the dry run says so.
    const cel = await call(t, 'POST', '/v1/rules/dry-run', { key: acct.key, body: { expression: 'identification.age < 21', action: 'decline' } });
    assert.equal(cel.status, 200, cel.body);
    assert.equal(cel.json.hits, 3);
    assert.deepEqual(cel.json.unknown, [{ field: 'identification.age', words: "Guest's age at check-in", hits: 2 }]);
    // As the builder writes it: the young guest alone.
    const built = await call(t, 'POST', '/v1/rules/dry-run', { key: acct.key, body: { expression: '(identification.age != -1 && identification.age < 21)', action: 'decline' } });
    assert.equal(built.json.hits, 1);
    assert.deepEqual(built.json.unknown, []);
  });

  it('keeps names unique per account and rules private to it', async () => {
    const a = await tenant(t);
    const b = await tenant(t);
    const body = { name: 'Same', expression: 'risk.score > 10', action: 'review' };
    const first = await call(t, 'POST', '/v1/rules', { key: a.key, body });
    assert.equal((await call(t, 'POST', '/v1/rules', { key: a.key, body })).status, 409);
    assert.equal((await call(t, 'POST', '/v1/rules', { key: b.key, body })).status, 200);
    assert.equal((await call(t, 'GET', `/v1/rules/${first.json.id}`, { key: b.key })).status, 404);
    assert.equal((await call(t, 'DELETE', `/v1/rules/${first.json.id}`, { key: a.key })).json.message, `rule ${first.json.id} deleted`);
    assert.equal((await call(t, 'GET', `/v1/rules/${first.json.id}`, { key: a.key })).status, 404);
  });
});
