import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type Tenant, type TestApp } from '../../../test/harness.js';

describe(`payment events and payments (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  before(async () => {
    t = await createTestApp();
    me = await tenant(t);
  });
  after(() => t.close());

  const newReservation = async () => (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Pay', last_name: 'Er' } } })).json.id as string;
  const send = (id: string, e: Record<string, unknown>) => call(t, 'POST', `/v1/reservations/${id}/payment-event`, { key: me.key, body: e });
  const ev = (n: number, type: string, status: string, extra: Record<string, unknown> = {}) => ({
    event_source: 'stripe',
    event_id: `evt_${n}`,
    event_type: type,
    event_status: status,
    timestamp: `2026-11-2${n % 10}T10:00:00Z`,
    ...extra,
  });

  it('maps events into the payments object', async () => {
    const id = await newReservation();
    const card = { card_provider: 'visa', card_type: 'credit', card_country: 'pt', currency: 'eur' };
    for (const e of [
      ev(1, 'authorization', 'succeeded', { ...card, amount: 300, receipt_url: 'https://pay.example/r/1' }),
      ev(2, 'authorization', 'failed', { ...card, amount: 300, processor_message: 'card declined: insufficient funds' }),
      ev(3, 'capture', 'succeeded', { ...card, amount: 120 }),
      ev(4, 'refund', 'succeeded', { ...card, amount: 180 }),
      ev(5, 'validation', 'failed', { ...card, name_on_card: 'P ER', processor_status_code: 'cvc_check_failed', processor_message: 'CVC did not match' }),
      ev(6, 'validation', 'succeeded', { ...card, name_on_card: 'PAY ER' }),
      ev(7, 'charge', 'succeeded', { currency: 'EUR', amount: 49, charge_descriptor: 'damage_waiver' }),
      ev(8, 'charge', 'succeeded', { currency: 'EUR', amount: 25.5, charge_descriptor: 'Early check-in' }),
      ev(9, 'charge', 'succeeded', { currency: 'EUR', amount: 10, charge_descriptor: 'Parking' }),
    ]) {
      const r = await send(id, e);
      assert.equal(r.status, 200, r.body);
      assert.equal(r.json.message, 'payment event recorded');
    }
    const p = (await call(t, 'GET', `/v1/reservations/${id}/payments`, { key: me.key })).json;
    assert.deepEqual(p.security_deposit.successful_authorizations, [
      { currency: 'EUR', amount: 300, receipt_url: 'https://pay.example/r/1', card_brand: 'visa', timestamp: '2026-11-21T10:00:00.000Z' },
    ]);
    assert.deepEqual(p.security_deposit.charge_failures, [
      { message: 'card declined: insufficient funds', timestamp: '2026-11-22T10:00:00.000Z' },
      { message: 'CVC did not match', timestamp: '2026-11-25T10:00:00.000Z' },
    ]);
    assert.equal(p.security_deposit.deposit_captures[0].amount, 120);
    assert.equal(p.security_deposit.refunds[0].amount, 180);
    assert.deepEqual(p.payment_validation, {
      receipt_url: '',
      name_on_card: 'PAY ER',
      funding_type: 'credit',
      card_brand: 'visa',
      card_country: 'PT',
      status: 'succeeded',
      errors: [],
    });
    assert.deepEqual(p.damage_waiver, { currency: 'EUR', amount: 49, receipt_url: '', timestamp: '2026-11-27T10:00:00.000Z' });
    assert.deepEqual(p.extra_services, {
      amount: 35.5,
      receipt_url: '',
      products: [
        { name: 'Early check-in', price: 25.5 },
        { name: 'Parking', price: 10 },
      ],
    });
  });

  it('ignores a repeated (source, event id) and says so', async () => {
    const id = await newReservation();
    await send(id, ev(1, 'capture', 'succeeded', { amount: 50, currency: 'USD' }));
    const again = await send(id, ev(1, 'capture', 'succeeded', { amount: 999, currency: 'USD' }));
    assert.equal(again.status, 200);
    assert.equal(again.json.message, 'payment event already recorded');
    const p = (await call(t, 'GET', `/v1/reservations/${id}/payments`, { key: me.key })).json;
    assert.deepEqual(
      p.security_deposit.deposit_captures.map((c: { amount: number }) => c.amount),
      [50],
    );
  });

  it('validates every field by type and vocabulary, and records nothing on failure', async () => {
    const id = await newReservation();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ amount: -1 }, /^body\.amount: must be >= 0$/],
      [{ amount: '10' }, /^body\.amount: must be number$/],
      [{ currency: 'EUX' }, /^body\.currency: 'EUX' is not an ISO 4217 currency code$/],
      [{ card_country: 'UK' }, /^body\.card_country: 'UK' is not an ISO 3166 alpha-2 country code$/],
      [{ billing_country_code: 'XX' }, /^body\.billing_country_code: 'XX' is not an ISO 3166/],
      [{ ip_address: '300.1.1.1' }, /^body\.ip_address: '300\.1\.1\.1' is not an IP address$/],
      [{ timestamp: 'yesterday' }, /^body\.timestamp: must match format "date-time"$/],
      [{ event_type: 'payout' }, /^body\.event_type: must be one of authorization, capture, refund, charge, validation, void$/],
      [{ event_status: 'ok' }, /^body\.event_status: must be one of succeeded, failed, pending$/],
      [{ card_last4: '12345' }, /^body\.card_last4: /],
      [{ three_d_secure: 'yes' }, /^body\.three_d_secure: must be one of/],
      [{ billing_email: 'nope' }, /^body\.billing_email: must match format "email"$/],
      [{ surprise: 1 }, /^body: unknown field 'surprise'$/],
    ];
    for (const [extra, message] of cases) {
      const r = await send(id, { ...ev(1, 'charge', 'succeeded'), ...extra });
      assert.equal(r.status, 400, JSON.stringify(extra));
      assert.match(r.json.error, message);
    }
    const r = await send(id, { event_id: 'x', event_type: 'charge', event_status: 'failed' });
    assert.equal(r.json.error, 'body.event_source: is required');
    const p = (await call(t, 'GET', `/v1/reservations/${id}/payments`, { key: me.key })).json;
    assert.deepEqual(p.security_deposit.charge_failures, []);
    assert.equal((await send(id, { ...ev(2, 'charge', 'succeeded'), ip_address: '2001:db8::1', currency: 'jpy' })).status, 200);
  });
});
