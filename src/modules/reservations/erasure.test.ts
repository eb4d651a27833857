import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { call, createTestApp, dbKind, everyRowAsText, eventually, tenant, type TestApp } from '../../../test/harness.js';
import type { JobContext } from '../../jobs/worker.js';
import { eraseSentCopies, sendGuestMessage } from '../messages/send.js';

const CANARY = 'Qzvxcanary';

describe(`erasing a reservation (${dbKind})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('removes a canary value from every table, keeps an audit entry without it, and answers 404 after', async () => {
    const me = await tenant(t);
    // Events and their deliveries carry the guest's data too; no worker runs, so they stay queued.
    await call(t, 'POST', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'reservation_webhook_url', webhook_url: 'http://127.0.0.1:9/hook' } });
    await call(t, 'POST', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'screening_webhook_url', webhook_url: 'http://127.0.0.1:9/hook' } });
    const keep = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Kept', last_name: 'Guest' } } });
    const created = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      headers: { 'idempotency-key': 'erase-me' },
      body: {
        confirmation_code: `${CANARY}-CODE`,
        listing_nickname: 'Cliff House',
        guest: { first_name: CANARY, last_name: 'Doe', email: `${CANARY.toLowerCase()}@example.test`, phone: '+44 7700 900123' },
        identification: { document_number: `${CANARY}-DOC`, birth_date: '1988-01-01' },
      },
    });
    const id = created.json.id;
    await call(t, 'POST', `/v1/reservations/${id}/notes`, { key: me.key, body: { text: `Called ${CANARY} about parking` } });
    await call(t, 'POST', `/v1/reservations/${id}/status`, { key: me.key, body: { supervised: 'approve' } });
    await call(t, 'PUT', `/v1/reservations/${id}`, { key: me.key, body: { listing_nickname: 'Cliff House West' } });
    await call(t, 'POST', `/v1/reservations/${id}/payment-event`, {
      key: me.key,
      body: { event_source: 'stripe', event_id: 'ch_1', event_type: 'charge', event_status: 'succeeded', billing_name: `${CANARY} Doe`, name_on_card: CANARY },
    });
    assert.equal((await call(t, 'GET', `/v1/reservations?search=${CANARY}`, { key: me.key })).json.total, 1);
    const before = await everyRowAsText(t.deps);
    const holding = [...before].filter(([, text]) => text.toLowerCase().includes(CANARY.toLowerCase())).map(([table]) => table);
    for (const table of ['reservations', 'reservation_notes', 'payment_events', 'idempotency_keys', 'events', 'guest_messages']) {
      assert.ok(holding.includes(table), `the canary is in ${table} before (found in ${holding.join(', ')})`);
    }

    const del = await call(t, 'DELETE', `/v1/reservations/${id}`, { key: me.key });
    assert.equal(del.status, 200);
    assert.equal(del.json.message, `reservation ${id} erased`);

    for (const [table, text] of await everyRowAsText(t.deps)) {
      assert.ok(!text.toLowerCase().includes(CANARY.toLowerCase()), `the canary is gone from ${table}`);
    }
    assert.equal((await call(t, 'GET', `/v1/reservations/${id}`, { key: me.key })).status, 404);
    assert.equal((await call(t, 'GET', `/v1/reservations/${id}/notes`, { key: me.key })).status, 404);
    assert.equal((await call(t, 'GET', `/v1/reservations?search=${CANARY}`, { key: me.key })).json.total, 0);
    assert.equal((await call(t, 'GET', `/v1/reservations/${keep.json.id}`, { key: me.key })).status, 200);

    const audit = await t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', id).execute();
    assert.deepEqual(audit.map((a) => a.action).sort(), ['reservation.approved', 'reservation.erased', 'reservation.note_added']);
    const erased = audit.find((a) => a.action === 'reservation.erased')!;
    assert.equal(erased.actor_type, 'api_key');
    assert.ok(
      audit.every((a) => !JSON.stringify(a).toLowerCase().includes(CANARY.toLowerCase())),
      'the audit lines hold no guest data',
    );
  });

  it("removes the guest's messages from the outbox, through the job the erasure queues", async () => {
    const me = await tenant(t);
    const created = await call(t, 'POST', '/v1/reservations', {
      key: me.key,
      body: { check_in_date: '2027-03-01', check_out_date: '2027-03-04', guest: { first_name: CANARY, last_name: 'Doe', email: `${CANARY.toLowerCase()}@example.test` } },
    });
    const messages = await t.deps.db.selectFrom('guest_messages').select('id').where('reservation_id', '=', created.json.id).execute();
    assert.ok(messages.length > 0, 'a portal invitation is queued');
    const outbox = path.join(t.deps.config.dataDir, 'outbox');
    for (const m of messages) await sendGuestMessage({ message_id: m.id }, { deps: t.deps } as JobContext);
    const holding = () => readdirSync(outbox).filter((f) => readFileSync(path.join(outbox, f), 'latin1').toLowerCase().includes(CANARY.toLowerCase()));
    assert.ok(holding().length > 0, 'the invitation in the outbox names the guest');

    assert.equal((await call(t, 'DELETE', `/v1/reservations/${created.json.id}`, { key: me.key })).status, 200);
    const jobs = await t.deps.db.selectFrom('jobs').selectAll().where('kind', '=', 'message.erase').execute();
    const job = jobs.map((j) => JSON.parse(j.payload) as { message_ids: string[] }).find((p) => p.message_ids.includes(messages[0]!.id));
    assert.deepEqual(job, { message_ids: messages.map((m) => m.id) }, 'the job carries ids, not the guest');
    await eraseSentCopies(job, { deps: t.deps } as JobContext);
    assert.deepEqual(holding(), []);
  });

  it("clears the guest out of the full-text index's pages with a queued job, not only out of its answers (SQLite)", { skip: dbKind !== 'sqlite' }, async () => {
    const me = await tenant(t);
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: CANARY, last_name: 'Indexed' } } })).json;
    // The index holds trigrams, not words: look for one of the canary's in its pages.
    const pagesHolding = async () => Number((await sql<{ n: number }>`select count(*) as n from reservations_fts_data where instr(block, ${Buffer.from('zvx')}) > 0`.execute(t.deps.db)).rows[0]!.n);
    assert.ok((await pagesHolding()) > 0, 'the index holds the canary before');
    assert.equal((await call(t, 'DELETE', `/v1/reservations/${id}`, { key: me.key })).status, 200);
    assert.equal((await call(t, 'GET', `/v1/reservations?search=${CANARY}`, { key: me.key })).json.total, 0);
    // Found no more, but still on the index's pages until they are merged: the erasure queued that.
    assert.ok((await pagesHolding()) > 0, 'deleted terms stay on their pages until a merge');
    const queued = await t.deps.db.selectFrom('jobs').select('state').where('kind', '=', 'search.purge').execute();
    assert.deepEqual(
      queued.map((j) => j.state),
      ['available'],
    );
    // A second erasure while that job waits joins it.
    const other = (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Second', last_name: 'Erased' } } })).json.id;
    await call(t, 'DELETE', `/v1/reservations/${other}`, { key: me.key });
    assert.equal((await t.deps.db.selectFrom('jobs').select('id').where('kind', '=', 'search.purge').execute()).length, 1);

    const { startWorker } = await import('../../runtime.js');
    const worker = startWorker(t.deps);
    try {
      await eventually(async () => (await pagesHolding()) === 0, 'the canary gone from the index pages');
      await eventually(async () => (await t.deps.db.selectFrom('jobs').select('id').where('kind', '=', 'search.purge').execute()).length === 0, 'the purge job done');
    } finally {
      await worker.stop();
    }
    assert.equal((await call(t, 'GET', '/v1/reservations?search=indexed', { key: me.key })).json.total, 0);
  });

  it("answers 404 when erasing another account's reservation, and erases nothing", async () => {
    const a = await tenant(t);
    const b = await tenant(t);
    const { id } = (await call(t, 'POST', '/v1/reservations', { key: a.key, body: { guest: { first_name: 'Own', last_name: 'Er' } } })).json;
    assert.equal((await call(t, 'DELETE', `/v1/reservations/${id}`, { key: b.key })).status, 404);
    assert.equal((await call(t, 'GET', `/v1/reservations/${id}`, { key: a.key })).status, 200);
  });
});
