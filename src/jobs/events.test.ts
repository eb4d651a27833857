import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createTestApp, dbKind, eventually, tenant, type Tenant, type TestApp } from '../../test/harness.js';
import { insertNote, listNotes, systemNote } from '../modules/notes/index.js';
import { listRuns } from '../modules/screening/repo.js';
import { handlers } from './handlers.js';
import { JOB_KINDS, type JobKind } from './kinds.js';
import { recordEvent } from './repo.js';
import { Worker, type JobHandlers } from './worker.js';

/**
 * Reactions across modules are events recorded in the transaction of the change and handled in
 * a transaction that also ends their job: a crash anywhere between the change and the reaction's
 * commit leaves the event to be handled again, and a reaction is never applied twice.
 */
describe(`events and their reactions (${dbKind})`, () => {
  let t: TestApp;
  let me: Tenant;
  before(async () => {
    t = await createTestApp();
    me = await tenant(t);
  });
  after(() => t.close());

  const jobsOf = (kind: string) => t.deps.db.selectFrom('jobs').selectAll().where('kind', '=', kind).execute();
  const notes = async (id: string) => (await listNotes(t.deps.db, id)).map((n) => n.text);
  const newReservation = async () => (await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'Eve', last_name: 'Ent' } } })).json.id as string;
  /** Runs a worker with these handlers until no job is left or waiting to run. */
  const drain = async (given: JobHandlers) => {
    const worker = new Worker(t.deps, given, { pollMs: 20 });
    worker.start();
    await eventually(async () => (await t.deps.db.selectFrom('jobs').select('id').where('state', '!=', 'failed').execute()).length === 0, 'the queue drained');
    await worker.stop();
  };
  /** A booking screened and quiet, then a payment event recorded for it with no worker running. */
  const paymentRecorded = async () => {
    const id = await newReservation();
    await drain(handlers);
    await recordEvent(t.deps.db, t.deps, 'payment.recorded', { account_id: me.account.id, reservation_id: id });
    return id;
  };

  it('marks every event a reaction and catalogues a handler for it', () => {
    const events = (Object.keys(JOB_KINDS) as JobKind[]).filter((k) => 'reaction' in JOB_KINDS[k]);
    assert.deepEqual(events.sort(), ['check_in.changed', 'identity.checked', 'payment.recorded', 'status.changed', 'verdict.changed']);
    for (const kind of events) assert.equal(typeof handlers[kind], 'function', kind);
  });

  it('undoes a reaction that fails after writing, and applies it once when it runs again', async () => {
    const id = await paymentRecorded();
    let tries = 0;
    // The reaction writes, then its process "crashes" before the commit: the first time only.
    const crashing: JobHandlers['payment.recorded'] = async (payload, ctx) => {
      tries++;
      await insertNote(ctx.db, systemNote(payload.reservation_id, 'reacted', new Date().toISOString()));
      if (tries === 1) throw new Error('the process died here');
    };
    await drain({ ...handlers, 'payment.recorded': crashing });
    assert.equal(tries, 2, 'tried again after the failure');
    assert.deepEqual(
      (await notes(id)).filter((n) => n === 'reacted'),
      ['reacted'],
      'the failed attempt wrote nothing',
    );
    assert.deepEqual(await jobsOf('payment.recorded'), []);
  });

  it('writes nothing where the job was taken from it while the reaction ran (its lease lost)', async () => {
    const id = await paymentRecorded();
    let ran = 0;
    const outlived: JobHandlers['payment.recorded'] = async (payload, ctx) => {
      ran++;
      // Another worker took the job meanwhile (this one stalled past its lease). Written in the
      // reaction's own transaction: on SQLite, a write beside it would wait for it to end.
      if (ran === 1) await ctx.db.updateTable('jobs').set({ locked_by: 'another-worker' }).where('id', '=', ctx.job.id).execute();
      await insertNote(ctx.db, systemNote(payload.reservation_id, 'outlived', new Date().toISOString()));
    };
    const worker = new Worker(t.deps, { ...handlers, 'payment.recorded': outlived }, { pollMs: 20 });
    worker.start();
    await eventually(async () => ran >= 1 && (await jobsOf('payment.recorded'))[0]?.state !== 'running', 'the attempt ended');
    await worker.stop();
    assert.deepEqual(
      (await notes(id)).filter((n) => n === 'outlived'),
      [],
    );
  });

  it('reacts once to a change recorded before a crash: a payment screens the booking again when a worker next runs', async () => {
    const id = await newReservation();
    await drain(handlers);
    const before = (await listRuns(t.deps.db, id)).length;
    // No worker runs: the service that took the payment event stopped before any reaction.
    const r = await call(t, 'POST', `/v1/reservations/${id}/payment-event`, {
      key: me.key,
      body: { event_source: 'stripe', event_id: 'evt_crash', event_type: 'validation', event_status: 'failed', timestamp: '2026-11-20T10:00:00Z' },
    });
    assert.equal(r.status, 200, r.body);
    assert.equal((await jobsOf('payment.recorded')).length, 1, 'the event is in the queue with the payment');
    assert.equal((await listRuns(t.deps.db, id)).length, before);
    await drain(handlers);
    const after = await listRuns(t.deps.db, id);
    // Newest first: the runs since the payment lead the list.
    assert.deepEqual(
      after.slice(0, after.length - before).map((x) => x.trigger),
      ['payment_event'],
    );
  });

  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  /** A guest arriving tomorrow at this listing, with an e-mail and no portal: screening verifies them. */
  const bookAt = async (listing: string) => {
    const res = await call(t, 'POST', '/v1/reservations?skip_gp=1', {
      key: me.key,
      body: { listing_id: listing, check_in_date: day(1), check_out_date: day(3), guest: { first_name: 'Lucía', last_name: 'García', email: 'lucia@example.es' } },
    });
    assert.equal(res.status, 200, res.body);
    return res.json.id as string;
  };
  const instruct = async (listing: string) => {
    const put = await call(t, 'PUT', `/v1/listings/${listing}/check-in`, { key: me.key, body: { address: 'Calle del Sol 4, Sevilla', door_code: '4817#' } });
    assert.equal(put.status, 200, put.body);
  };
  /** The catalogued handler of an event, failing after it wrote the first time it runs. */
  const crashingOnce = <K extends 'status.changed' | 'check_in.changed'>(kind: K) => {
    const run = { tries: 0 };
    const handler = (async (payload, ctx) => {
      run.tries++;
      await handlers[kind](payload, ctx);
      if (run.tries === 1) throw new Error('the process died here');
    }) as JobHandlers[K];
    return { run, handlers: { ...handlers, [kind]: handler } };
  };
  const checkIns = async (id: string) => ((await call(t, 'GET', `/v1/reservations/${id}/stargate`, { key: me.key })).json as { tag: string }[]).filter((m) => m.tag === 'check_in');

  it("plans a verified guest's check-in instructions once, where the reaction to the status failed after writing them", async () => {
    await instruct('casa-azul');
    const id = await bookAt('casa-azul');
    const crash = crashingOnce('status.changed');
    await drain(crash.handlers);
    assert.equal(crash.run.tries, 2, 'tried again after the failure');
    assert.equal((await checkIns(id)).length, 1);
  });

  it('plans instructions saved after the guest was verified once, where the reaction to them failed after writing', async () => {
    const id = await bookAt('casa-verde');
    await drain(handlers);
    assert.equal((await checkIns(id)).length, 0, 'no instructions yet');
    await instruct('casa-verde');
    const crash = crashingOnce('check_in.changed');
    await drain(crash.handlers);
    assert.equal(crash.run.tries, 2, 'tried again after the failure');
    assert.equal((await checkIns(id)).length, 1);
  });
});
