import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type TestApp } from '../../test/harness.js';

const body = { confirmation_code: 'IDEM-1', guest: { first_name: 'Ines', last_name: 'Costa' } };

describe(`Idempotency-Key (${dbKind})`, () => {
  let t: TestApp;
  let now = new Date('2026-11-22T10:00:00.000Z');
  before(async () => {
    t = await createTestApp();
    t.deps.clock = () => now;
  });
  after(() => t.close());

  it('replays the first answer for the same key and body, creating one reservation', async () => {
    const me = await tenant(t);
    const headers = { 'idempotency-key': 'k-1' };
    const first = await call(t, 'POST', '/v1/reservations', { key: me.key, body, headers });
    const second = await call(t, 'POST', '/v1/reservations', { key: me.key, body, headers });
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(second.json.id, first.json.id);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal((await call(t, 'GET', '/v1/reservations', { key: me.key })).json.total, 1);
  });

  it('replays an error answer too, rather than running the request again', async () => {
    const me = await tenant(t);
    await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...body, confirmation_code: 'TAKEN' } });
    const headers = { 'idempotency-key': 'k-dup' };
    const a = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...body, confirmation_code: 'TAKEN' }, headers });
    const b = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...body, confirmation_code: 'TAKEN' }, headers });
    assert.equal(a.status, 409);
    assert.equal(b.status, 409);
    assert.equal(b.json.error, a.json.error);
  });

  it('answers 422 when the key is reused with another body', async () => {
    const me = await tenant(t);
    const headers = { 'idempotency-key': 'k-2' };
    await call(t, 'POST', '/v1/reservations', { key: me.key, body, headers });
    const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...body, confirmation_code: 'OTHER' }, headers });
    assert.equal(r.status, 422);
    assert.equal(r.json.error, 'Idempotency-Key was already used with a different request');
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const me = await tenant(t);
    const headers = { 'idempotency-key': 'k-busy' };
    await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...body, confirmation_code: 'BUSY' }, headers });
    // Put the key back in the state it has while the first request is mid-flight.
    await t.deps.db
      .updateTable('idempotency_keys')
      .set({ state: 'in_flight', response_status: null, locked_until: '2026-11-22T10:01:00.000Z' })
      .where('account_id', '=', me.account.id)
      .where('key', '=', 'k-busy')
      .execute();
    const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...body, confirmation_code: 'BUSY' }, headers });
    assert.equal(r.status, 409);
    assert.match(r.json.error, /still in progress/);
    assert.equal(r.headers['retry-after'], '1');
  });

  it('lets a retry take over a key whose first attempt died (its lock expired)', async () => {
    const me = await tenant(t);
    const headers = { 'idempotency-key': 'k-dead' };
    const first = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...body, confirmation_code: 'DEAD' }, headers });
    await t.deps.db
      .updateTable('idempotency_keys')
      .set({ state: 'in_flight', response_status: null, locked_until: '2026-11-22T09:00:00.000Z' })
      .where('account_id', '=', me.account.id)
      .where('key', '=', 'k-dead')
      .execute();
    const retry = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...body, confirmation_code: 'DEAD' }, headers });
    assert.equal(retry.status, 409, 'the reservation exists once; the retry says so');
    assert.ok(retry.json.error.includes(first.json.id));
  });

  it('scopes keys to the account', async () => {
    const a = await tenant(t);
    const b = await tenant(t);
    const headers = { 'idempotency-key': 'shared' };
    const ra = await call(t, 'POST', '/v1/reservations', { key: a.key, body, headers });
    const rb = await call(t, 'POST', '/v1/reservations', { key: b.key, body, headers });
    assert.notEqual(ra.json.id, rb.json.id);
    assert.equal(rb.json.user_id, b.account.id);
  });

  it('forgets a key after 24 hours', async () => {
    const me = await tenant(t);
    const headers = { 'idempotency-key': 'k-old' };
    const first = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...body, confirmation_code: 'OLD-1' }, headers });
    const before = now;
    now = new Date(now.getTime() + 24 * 3600_000 + 1000);
    try {
      const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...body, confirmation_code: 'OLD-2' }, headers });
      assert.equal(r.status, 200);
      assert.notEqual(r.json.id, first.json.id);
    } finally {
      now = before;
    }
  });

  it('works on other POST routes too (payment events)', async () => {
    const me = await tenant(t);
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { ...body, confirmation_code: 'PAY' } })).json;
    const event = { event_source: 'stripe', event_id: 'evt_1', event_type: 'charge', event_status: 'succeeded', amount: 10, currency: 'EUR' };
    const headers = { 'idempotency-key': 'pay-1' };
    const a = await call(t, 'POST', `/v1/reservations/${id}/payment-event`, { key: me.key, body: event, headers });
    const b = await call(t, 'POST', `/v1/reservations/${id}/payment-event`, { key: me.key, body: event, headers });
    assert.equal(a.json.message, 'payment event recorded');
    assert.equal(b.json.message, 'payment event recorded');
    assert.equal(b.headers['idempotent-replayed'], 'true');
  });

  it('rejects an over-long key', async () => {
    const me = await tenant(t);
    const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body, headers: { 'idempotency-key': 'x'.repeat(300) } });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'header.idempotency-key: must be 1 to 255 characters');
  });
});
