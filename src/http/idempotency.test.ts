import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, tenant, type TestApp } from '../../test/harness.js';
import type { Deps } from '../deps.js';
import { addEntry } from '../modules/blocklist/service.js';

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

  // A crash between the commit of a request's work and the storing of its answer leaves the key
  // as the work's transaction marked it: applied, with no answer, its holder gone.
  const dieAfterCommit = (accountId: string, key: string) =>
    t.deps.db
      .updateTable('idempotency_keys')
      .set({ state: 'applied', response_status: null, response_body: null, owner: 'a-dead-process', locked_until: '2026-11-22T09:00:00.000Z' })
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .execute();

  it('answers a retry whose first attempt did its work but died before answering with that work, never doing it twice', async () => {
    const me = await tenant(t);
    const headers = { 'idempotency-key': 'k-dead' };
    // No confirmation code: nothing but the key stops a second reservation.
    const guestOnly = { guest: { first_name: 'Ines', last_name: 'Costa' } };
    const first = await call(t, 'POST', '/v1/reservations', { key: me.key, body: guestOnly, headers });
    const row = await t.deps.db.selectFrom('idempotency_keys').select(['resource_id']).where('account_id', '=', me.account.id).where('key', '=', 'k-dead').executeTakeFirstOrThrow();
    assert.equal(row.resource_id, first.json.id, "the work's transaction names what it wrote");
    await dieAfterCommit(me.account.id, 'k-dead');
    const retry = await call(t, 'POST', '/v1/reservations', { key: me.key, body: guestOnly, headers });
    assert.equal(retry.status, 200, retry.body);
    assert.equal(retry.json.id, first.json.id);
    assert.equal(retry.headers['idempotent-recovered'], 'true');
    const again = await call(t, 'POST', '/v1/reservations', { key: me.key, body: guestOnly, headers });
    assert.equal(again.json.id, first.json.id);
    assert.equal(again.headers['idempotent-replayed'], 'true', 'the recovered answer is kept as the answer');
    assert.equal((await call(t, 'GET', '/v1/reservations', { key: me.key })).json.total, 1);
  });

  it('answers 409, not a second run, on a route with no way to rebuild its answer', async () => {
    const reseller = await tenant(t, { reseller: true });
    const headers = { 'idempotency-key': 'k-reg' };
    await call(t, 'POST', '/v1/accounts/register', { key: reseller.key, body: { name: 'Child', email: 'child@example.test' }, headers });
    await dieAfterCommit(reseller.account.id, 'k-reg');
    const retry = await call(t, 'POST', '/v1/accounts/register', { key: reseller.key, body: { name: 'Child', email: 'child@example.test' }, headers });
    assert.equal(retry.status, 409);
    assert.match(retry.json.error, /was applied, but the service stopped before answering it; it will not be applied again/);
    assert.equal((await call(t, 'GET', '/v1/accounts/children', { key: reseller.key })).json.total, 1);
  });

  it('runs the request again when its first attempt died before committing anything', async () => {
    const me = await tenant(t);
    const guestOnly = { guest: { first_name: 'Ines', last_name: 'Costa' } };
    // What a first attempt leaves when it dies before its transaction commits: the key, held, and nothing else.
    await t.deps.db
      .insertInto('idempotency_keys')
      .values({
        account_id: me.account.id,
        key: 'k-lost',
        request_hash: createHash('sha256')
          .update(`POST /v1/reservations\n${JSON.stringify(guestOnly)}`)
          .digest('hex'),
        state: 'in_flight',
        response_status: null,
        response_body: null,
        resource_id: null,
        locked_until: '2026-11-22T09:00:00.000Z',
        expires_at: '2026-11-23T09:00:00.000Z',
        owner: 'a-dead-process',
      })
      .execute();
    const retry = await call(t, 'POST', '/v1/reservations', { key: me.key, body: guestOnly, headers: { 'idempotency-key': 'k-lost' } });
    assert.equal(retry.status, 200, retry.body);
    assert.equal(retry.headers['idempotent-recovered'], undefined);
    assert.equal((await call(t, 'GET', '/v1/reservations', { key: me.key })).json.total, 1);
  });

  it('rolls back the work of a request that lost its key to a retry while it ran, and answers it 409', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const deps: { current?: Deps } = {};
    const slow = await createTestApp(
      {},
      {
        configure: (app) =>
          app.post('/v1/__slow-block', async (request) => {
            await gate;
            return addEntry(deps.current!, request.account, { email: 'slow@example.test', reason: 'slow' });
          }),
      },
    );
    deps.current = slow.deps;
    try {
      const me = await tenant(slow);
      const answer = call(slow, 'POST', '/v1/__slow-block', { key: me.key, body: {}, headers: { 'idempotency-key': 'k-slow' } });
      const held = () => slow.deps.db.selectFrom('idempotency_keys').select('owner').where('key', '=', 'k-slow').executeTakeFirst();
      while (!(await held())) await new Promise((r) => setTimeout(r, 5));
      // Its lock ran out and a retry took the key over.
      await slow.deps.db.updateTable('idempotency_keys').set({ owner: 'the-retry' }).where('key', '=', 'k-slow').execute();
      release();
      const r = await answer;
      assert.equal(r.status, 409, r.body);
      assert.match(r.json.error, /another attempt took it over; nothing was applied by this one/);
      assert.equal((await call(slow, 'GET', '/v1/blocklist', { key: me.key })).json.total, 0);
    } finally {
      await slow.close();
    }
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
