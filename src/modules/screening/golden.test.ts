import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestAppWithWorker, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

interface Guest {
  title: string;
  body: Record<string, unknown>;
  query?: string;
  payments?: Record<string, unknown>[];
  expect: { status: string; color: string; risk?: RegExp; recommendation?: RegExp; details?: Record<string, string> };
}

// Each guest gets contact details of their own, so no golden case trips the repeat-booking check.
let n = 0;
const base = (guest: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  listing_nickname: 'Harbour Loft',
  check_in_date: day(30),
  check_out_date: day(34),
  total_price: 600,
  guest: { first_name: 'Maria', last_name: 'Santos', email: `maria.santos.${++n}@gmail.com`, phone: `+351 912 345 ${String(100 + n)}`, ...guest },
  identification: { first_name: 'Maria', last_name: 'Santos', document_number: 'P1234567', birth_date: '1988-04-02', expiry_date: '2031-01-01' },
  ...extra,
});

const GOLDEN: Guest[] = [
  {
    title: 'a guest with a webmail address, a real mobile number and a valid passport is verified',
    body: base({}),
    expect: { status: 'verified', color: 'green', details: { identification_document: 'PASS', fraud_detection: 'PASS', general_risk: 'PASS' } },
  },
  {
    title: 'a disposable e-mail address sends the booking to review',
    body: base({ email: 'maria@mailinator.com' }),
    expect: { status: 'review', color: 'orange', risk: /disposable address domain \(mailinator\.com\)/, recommendation: /permanent e-mail/, details: { fraud_detection: 'FAIL' } },
  },
  {
    title: 'a guest under the minimum age is declined',
    body: base({}, { identification: { first_name: 'Maria', last_name: 'Santos', birth_date: day(-16 * 365), expiry_date: '2031-01-01', document_number: 'X1' } }),
    expect: { status: 'declined', color: 'red', risk: /under the minimum age of 18/, details: { identification_document: 'FAIL' } },
  },
  {
    title: 'a passport that expires during the stay needs review',
    body: base({}, { identification: { first_name: 'Maria', last_name: 'Santos', birth_date: '1988-04-02', expiry_date: day(32), document_number: 'X2' } }),
    expect: { status: 'review', color: 'orange', risk: /expires .* before check-out/, details: { identification_document: 'FAIL' } },
  },
  {
    title: "someone else's passport needs review",
    body: base({}, { identification: { first_name: 'John', last_name: 'Whitaker', birth_date: '1979-01-01', expiry_date: '2031-01-01', document_number: 'X3' } }),
    expect: { status: 'review', color: 'orange', risk: /does not match the guest/, details: { identification_document: 'REVIEW' } },
  },
  {
    title: 'an invalid phone number alone is noted but does not hold the booking',
    body: base({ phone: '+1 555 0100' }),
    expect: { status: 'verified', color: 'yellow', risk: /not a valid number/, details: { fraud_detection: 'REVIEW' } },
  },
  {
    title: 'a last-minute booking alone is noted but does not hold the booking',
    body: base({}, { check_in_date: day(0), check_out_date: day(2) }),
    expect: { status: 'verified', color: 'yellow', risk: /less than a day before check-in/ },
  },
  {
    title: 'a failed 3-D Secure check on a foreign card needs review',
    body: base({}),
    payments: [
      { event_source: 'stripe', event_id: 'a1', event_type: 'authorization', event_status: 'failed', three_d_secure: 'failed', card_country: 'NG', billing_country_code: 'PT', processor_message: 'authentication failed' },
    ],
    expect: { status: 'review', color: 'orange', risk: /3-D Secure authentication failed/, details: { payment_verification: 'FAIL' } },
  },
  {
    title: 'a disposable address, an invalid phone, a last-minute booking and a failed 3-D Secure are declined',
    body: base({ email: 'x@mailinator.com', phone: '+1 555 0100' }, { check_in_date: day(0), check_out_date: day(1) }),
    payments: [{ event_source: 'stripe', event_id: 'b1', event_type: 'authorization', event_status: 'failed', three_d_secure: 'failed' }],
    expect: { status: 'declined', color: 'red', risk: /3-D Secure authentication failed/, details: { general_risk: 'FAIL' } },
  },
  {
    title: 'a passport whose machine-readable zone checks out is accepted',
    body: base(
      { first_name: 'Anna', last_name: 'Eriksson' },
      {
        identification: {
          first_name: 'Anna Maria',
          last_name: 'Eriksson',
          document_number: 'L898902C3',
          birth_date: '1974-08-12',
          expiry_date: '2035-04-15',
          mrz: 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10',
        },
      },
    ),
    expect: { status: 'verified', color: 'green', details: { identification_document: 'PASS' } },
  },
  {
    title: 'a machine-readable zone with a wrong check digit needs review',
    body: base(
      { first_name: 'Anna', last_name: 'Eriksson' },
      {
        identification: {
          first_name: 'Anna',
          last_name: 'Eriksson',
          document_number: 'L898902C3',
          birth_date: '1974-08-12',
          expiry_date: '2035-04-15',
          mrz: 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C37UTO7408122F1204159ZE184226B<<<<<10',
        },
      },
    ),
    expect: { status: 'review', color: 'orange', risk: /MRZ check digits do not match: Document number check digit/, details: { identification_document: 'FAIL' } },
  },
  {
    title: 'a guest who has not completed the portal stays pending',
    body: base({}),
    query: '',
    expect: { status: 'pending', color: 'green', details: { house_rules: 'INCOMPLETE', general_risk: 'INCOMPLETE' } },
  },
  {
    title: 'a card in another name needs a look only together with other signals',
    body: base({}),
    payments: [{ event_source: 'stripe', event_id: 'c1', event_type: 'authorization', event_status: 'succeeded', name_on_card: 'PETER NOVAK', card_country: 'PT', billing_country_code: 'PT' }],
    expect: { status: 'verified', color: 'yellow', risk: /Name on card \(PETER NOVAK\) differs/, details: { payment_verification: 'REVIEW' } },
  },
  {
    title: 'a guest without identification or contact details is verified with the checks that could run, and says what is missing',
    body: { check_in_date: day(30), check_out_date: day(31), guest: { first_name: 'Ana', last_name: 'Silva' } },
    expect: { status: 'verified', color: 'green', details: { identification_document: 'INCOMPLETE', fraud_detection: 'INCOMPLETE', payment_verification: 'INCOMPLETE' } },
  },
];

describe(`golden set: verdicts a host would agree with (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  before(async () => {
    t = await createTestAppWithWorker();
    me = await tenant(t);
  });
  after(() => t.close());

  for (const g of GOLDEN) {
    it(g.title, async () => {
      const query = g.query ?? 'skip_gp=1';
      let r = await call(t, 'POST', `/v1/reservations?sync=1&${query}`, { key: me.key, body: g.body });
      assert.equal(r.status, 200, r.body);
      const id = r.json.id as string;
      for (const p of g.payments ?? []) {
        const e = await call(t, 'POST', `/v1/reservations/${id}/payment-event`, { key: me.key, body: p });
        assert.equal(e.status, 200, e.body);
      }
      if (g.payments) {
        r = await call(t, 'POST', `/v1/reservations/${id}/screen?sync=1`, { key: me.key });
        assert.equal(r.status, 200);
      }
      const summary = (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: me.key })).json;
      const status = (await call(t, 'GET', `/v1/reservations/${id}/status`, { key: me.key })).json;
      const context = JSON.stringify({ summary, status }, null, 1);
      assert.equal(summary.verification_status, g.expect.status, context);
      assert.equal(status.status, g.expect.status);
      assert.equal(summary.risk_color, g.expect.color, context);
      if (g.expect.risk) assert.match(summary.top_risks.join(' | '), g.expect.risk, context);
      if (g.expect.recommendation) assert.match(summary.top_recommendations.join(' | '), g.expect.recommendation, context);
      for (const [check, expected] of Object.entries(g.expect.details ?? {})) assert.equal(summary.details[check].status, expected, `${check}: ${context}`);
      if (g.expect.status !== 'verified' && g.expect.status !== 'pending') assert.ok(summary.top_risks.length > 0, 'a held booking says why');
      assert.ok(!summary.top_risks.some((x: string) => /webmail/.test(x)), 'free webmail is never a risk');

      // Every top risk traces to a check finding in the decision record.
      const decisions = (await call(t, 'GET', `/v1/reservations/${id}/decisions`, { key: me.key })).json;
      const latest = decisions[0];
      assert.equal(latest.verdict.status, g.expect.status);
      for (const risk of summary.top_risks) {
        const trace = latest.verdict.trace.find((x: { risk: string }) => x.risk === risk);
        assert.ok(trace, `${risk} is traced`);
        assert.ok(latest.checks[trace.check].findings.some((f: { code: string }) => f.code === trace.code));
      }
    });
  }

  it('is deterministic: the same inputs give the same digest and verdict', async () => {
    const { id } = (await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: me.key, body: base({ email: 'det@mailinator.com' }) })).json;
    await call(t, 'POST', `/v1/reservations/${id}/screen?sync=1`, { key: me.key });
    const [second, first] = (await call(t, 'GET', `/v1/reservations/${id}/decisions`, { key: me.key })).json;
    assert.equal(first.trigger, 'created');
    assert.equal(second.trigger, 'manual');
    assert.deepEqual(second.verdict, first.verdict);
    assert.deepEqual(second.checks, first.checks);
  });

  it('moves thresholds with the risk tolerance', async () => {
    const strict = await tenant(t);
    const put = await call(t, 'PUT', '/v1/accounts/screening-settings', { key: strict.key, body: { risk_tolerance: 'low' } });
    assert.deepEqual(put.json, { risk_tolerance: 'low', minimum_age: 18, disabled_checks: [], name_match_threshold: 0.9 });
    const body = base({ phone: '+1 555 0100' });
    const lenient = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: me.key, body });
    const tight = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: strict.key, body });
    assert.equal((await call(t, 'GET', `/v1/reservations/${lenient.json.id}/status`, { key: me.key })).json.status, 'verified');
    assert.equal((await call(t, 'GET', `/v1/reservations/${tight.json.id}/status`, { key: strict.key })).json.status, 'review');
  });

  it('uses the account minimum age and shows disabled checks as DISABLED', async () => {
    const bar = await tenant(t);
    await call(t, 'PUT', '/v1/accounts/screening-settings', { key: bar.key, body: { minimum_age: 25, disabled_checks: ['payment_verification'] } });
    const body = base({}, { identification: { first_name: 'Maria', last_name: 'Santos', birth_date: day(-22 * 365), expiry_date: '2031-01-01', document_number: 'X9' } });
    const { id } = (await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: bar.key, body })).json;
    const summary = (await call(t, 'GET', `/v1/reservations/${id}/summary`, { key: bar.key })).json;
    assert.match(summary.top_risks[0], /under the minimum age of 25/);
    assert.equal(summary.details.payment_verification.status, 'DISABLED');
    const bad = await call(t, 'PUT', '/v1/accounts/screening-settings', { key: bar.key, body: { risk_tolerance: 'reckless' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 'body.risk_tolerance: must be one of low, balanced, high');
    const bad2 = await call(t, 'PUT', '/v1/accounts/screening-settings', { key: bar.key, body: { disabled_checks: ['general_risk'] } });
    assert.equal(bad2.status, 400);
  });

  it('flags the same e-mail booking again and again within a day', async () => {
    const acct = await tenant(t);
    let last;
    for (let i = 0; i < 4; i++) last = await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: acct.key, body: base({ email: 'busy.guest@gmail.com' }) });
    const summary = (await call(t, 'GET', `/v1/reservations/${last!.json.id}/summary`, { key: acct.key })).json;
    assert.match(summary.top_risks.join(' | '), /made 3 other reservations in the last 24 hours/);
    assert.equal(summary.verification_status, 'review');
  });

  it("compares the price with the account's recent bookings, the newest and the repriced included", async () => {
    const acct = await tenant(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: acct.key, body: base({}, { total_price: 400 }) })).json.id);
    const pricey = (await call(t, 'POST', '/v1/reservations?sync=1&skip_gp=1', { key: acct.key, body: base({}, { total_price: 2000 }) })).json.id;
    let summary = (await call(t, 'GET', `/v1/reservations/${pricey}/summary`, { key: acct.key })).json;
    assert.match(summary.top_risks.join(' | '), /Total price 2000 is over four times this account's median \(400\)/);
    // The earlier bookings are repriced: the same booking, screened again, is no longer unusual.
    for (const id of ids) assert.equal((await call(t, 'PUT', `/v1/reservations/${id}?skip_gp=1`, { key: acct.key, body: { total_price: 1000 } })).status, 200);
    await call(t, 'POST', `/v1/reservations/${pricey}/screen?sync=1`, { key: acct.key });
    summary = (await call(t, 'GET', `/v1/reservations/${pricey}/summary`, { key: acct.key })).json;
    assert.ok(!summary.top_risks.some((x: string) => /median/.test(x)), summary.top_risks.join(' | '));
    const [latest] = (await call(t, 'GET', `/v1/reservations/${pricey}/decisions`, { key: acct.key })).json;
    assert.equal(latest.trigger, 'manual');
  });
});
