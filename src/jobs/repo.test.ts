import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, dbKind, type TestApp } from '../../test/harness.js';
import { JOB_KINDS, type JobKind } from './kinds.js';
import { claim, complete, enqueue, fail, heartbeat, listJobs, release, retryJob } from './repo.js';
import { PermanentJobError, Worker, type JobHandlers } from './worker.js';

/** A handler for every kind that does nothing, with the given ones in their place. */
const idleHandlers = (given: Partial<JobHandlers> = {}): JobHandlers => {
  const idle = async (): Promise<void> => undefined;
  return { ...(Object.fromEntries(Object.keys(JOB_KINDS).map((kind) => [kind, idle])) as Record<JobKind, typeof idle>), ...given };
};

describe(`job queue (${dbKind})`, () => {
  let t: TestApp;
  let now = new Date('2026-11-22T10:00:00.000Z');
  const clock = () => now;
  before(async () => {
    t = await createTestApp({ GUESTSCREEN_WEBHOOK_RETRY_SCHEDULE: '10,100' });
    t.deps.clock = clock;
  });
  after(() => t.close());

  const kinds = async () => (await t.deps.db.selectFrom('jobs').select(['id', 'state']).execute()).length;
  const clear = () => t.deps.db.deleteFrom('jobs').execute();

  it('claims due jobs once, in run_at order, and not scheduled ones', async () => {
    await clear();
    const a = await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'a' });
    const later = await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'later' }, { runAt: new Date(now.getTime() + 60_000) });
    const first = await claim(t.deps.db, t.deps.dialect.kind, clock, 'w1', 10, 120_000);
    assert.deepEqual(
      first.map((j) => j.id),
      [a],
    );
    assert.equal(first[0]!.attempt, 1);
    assert.deepEqual(await claim(t.deps.db, t.deps.dialect.kind, clock, 'w2', 10), [], 'a running job is not claimed twice');
    now = new Date(now.getTime() + 61_000);
    assert.deepEqual(
      (await claim(t.deps.db, t.deps.dialect.kind, clock, 'w2', 10, 120_000)).map((j) => j.id),
      [later],
    );
    assert.ok(await kinds());
  });

  it('retries with the kind’s backoff and jitter, then keeps the failed job visible', async () => {
    await clear();
    const id = await enqueue(t.deps.db, t.deps, 'webhook.deliver', { delivery_id: 'd1' });
    let [job] = await claim(t.deps.db, t.deps.dialect.kind, clock, 'w', 1);
    await fail(t.deps.db, job!, 'HTTP 500', clock, { retry: true, config: t.deps.config });
    let row = (await listJobs(t.deps.db)).find((j) => j.id === id)!;
    assert.equal(row.state, 'available');
    const wait = (Date.parse(row.run_at) - now.getTime()) / 1000;
    assert.ok(wait >= 8 && wait <= 12, `first retry after about 10 s, got ${wait}`);
    assert.equal(row.last_error, 'HTTP 500');

    now = new Date(Date.parse(row.run_at) + 1);
    [job] = await claim(t.deps.db, t.deps.dialect.kind, clock, 'w', 1);
    await fail(t.deps.db, job!, 'HTTP 502', clock, { retry: true, config: t.deps.config });
    row = (await listJobs(t.deps.db)).find((j) => j.id === id)!;
    const wait2 = (Date.parse(row.run_at) - now.getTime()) / 1000;
    assert.ok(wait2 >= 80 && wait2 <= 120, `second retry after about 100 s, got ${wait2}`);

    now = new Date(Date.parse(row.run_at) + 1);
    [job] = await claim(t.deps.db, t.deps.dialect.kind, clock, 'w', 1);
    assert.equal(job!.attempt, 3);
    await fail(t.deps.db, job!, 'HTTP 503', clock, { retry: true, config: t.deps.config });
    const failed = await listJobs(t.deps.db, { failed: true });
    assert.deepEqual(
      failed.map((j) => [j.id, j.last_error]),
      [[id, 'HTTP 503']],
    );

    assert.equal(await retryJob(t.deps.db, id!, clock), true);
    [job] = await claim(t.deps.db, t.deps.dialect.kind, clock, 'w', 1);
    assert.equal(job!.attempt, 1, 'a retried job gets its attempts back');
    assert.equal(await retryJob(t.deps.db, id!, clock), false, 'only failed jobs can be retried');
  });

  it('gives a dead worker’s job to another worker when the lease expires', async () => {
    await clear();
    const id = await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'x' });
    await claim(t.deps.db, t.deps.dialect.kind, clock, 'dead-worker', 1);
    assert.deepEqual(await claim(t.deps.db, t.deps.dialect.kind, clock, 'w2', 1), []);
    now = new Date(now.getTime() + 10 * 60_000);
    const [job] = await claim(t.deps.db, t.deps.dialect.kind, clock, 'w2', 1);
    assert.equal(job!.id, id);
    assert.equal(job!.locked_by, 'w2');
    assert.equal(job!.attempt, 2);
  });

  it('keeps a live worker’s job through heartbeats', async () => {
    await clear();
    await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'hb' });
    await claim(t.deps.db, t.deps.dialect.kind, clock, 'alive', 1, 30_000);
    for (let i = 0; i < 5; i++) {
      now = new Date(now.getTime() + 20_000);
      await heartbeat(t.deps.db, clock, 'alive', 30_000);
      assert.deepEqual(await claim(t.deps.db, t.deps.dialect.kind, clock, 'other', 1, 30_000), [], `still held after ${(i + 1) * 20} s`);
    }
  });

  it("keeps one waiting job per unique key, which takes the newest request's payload", async () => {
    await clear();
    await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'first' }, { uniqueKey: 'msg:u' });
    await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'second' }, { uniqueKey: 'msg:u' });
    let jobs = await listJobs(t.deps.db);
    assert.equal(jobs.length, 1);
    assert.deepEqual(JSON.parse(jobs[0]!.payload), { message_id: 'second' });
    const [job] = await claim(t.deps.db, t.deps.dialect.kind, clock, 'w', 1);
    // A running job holds no key: a newer request queues behind it.
    await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'third' }, { uniqueKey: 'msg:u' });
    await complete(t.deps.db, job!);
    jobs = await listJobs(t.deps.db);
    assert.deepEqual(
      jobs.map((j) => JSON.parse(j.payload).message_id),
      ['third'],
    );
  });

  it('does not let a worker start a waiting job that an uncommitted write joined (PostgreSQL; SQLite has one writer)', { skip: dbKind !== 'postgres' }, async () => {
    await clear();
    await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'before' }, { uniqueKey: 'msg:race' });
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    const writer = t.deps.db.transaction().execute(async (tx) => {
      await enqueue(tx, t.deps, 'message.send', { message_id: 'after' }, { uniqueKey: 'msg:race' });
      await held;
    });
    let during;
    try {
      await new Promise((r) => setTimeout(r, 100));
      during = await claim(t.deps.db, t.deps.dialect.kind, clock, 'w', 1);
    } finally {
      commit();
      await writer;
    }
    assert.deepEqual(during, [], 'the row is locked until the write commits');
    const [job] = await claim(t.deps.db, t.deps.dialect.kind, clock, 'w', 1);
    assert.deepEqual(JSON.parse(job!.payload), { message_id: 'after' });
  });

  it('releases a job untried on shutdown', async () => {
    await clear();
    await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'r' });
    const [job] = await claim(t.deps.db, t.deps.dialect.kind, clock, 'w', 1);
    await release(t.deps.db, job!, clock);
    const [again] = await claim(t.deps.db, t.deps.dialect.kind, clock, 'w', 1);
    assert.equal(again!.attempt, 1);
  });

  it('leaves the kinds a worker skips to the others (a job thread leaves identity documents to its main loop)', async () => {
    await clear();
    await enqueue(t.deps.db, t.deps, 'identity.read', { verification_id: 'v' });
    await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'm' });
    const taken = await claim(t.deps.db, t.deps.dialect.kind, clock, 'thread', 10, 30_000, ['identity.read']);
    assert.deepEqual(
      taken.map((j) => j.kind),
      ['message.send'],
    );
    const rest = await claim(t.deps.db, t.deps.dialect.kind, clock, 'main', 10);
    assert.deepEqual(
      rest.map((j) => j.kind),
      ['identity.read'],
    );
  });

  it('runs its upkeep at start and on its timer, survives a failed round, and stops it with the worker', async () => {
    const handlers = idleHandlers();
    let rounds = 0;
    const worker = new Worker(t.deps, handlers, {
      pollMs: 20,
      chores: [
        {
          name: 'test',
          everyMs: 30,
          run: async () => {
            rounds++;
            if (rounds === 2) throw new Error('a failed round');
          },
        },
      ],
    });
    worker.start();
    assert.equal(rounds, 1, 'the first round runs at start');
    const deadline = Date.now() + 5_000;
    while (rounds < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.ok(rounds >= 4, 'rounds go on after one failed');
    await worker.stop();
    const stopped = rounds;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(rounds, stopped, 'no round after stop');
  });

  it('runs upkeep given a first delay only after it, then on its timer, and none if stopped before', async () => {
    const handlers = idleHandlers();
    let rounds = 0;
    const worker = new Worker(t.deps, handlers, { pollMs: 20, chores: [{ name: 'later', everyMs: 30, firstAfterMs: 80, run: async () => void rounds++ }] });
    worker.start();
    await new Promise((r) => setTimeout(r, 40));
    assert.equal(rounds, 0, 'not at start');
    const deadline = Date.now() + 5_000;
    while (rounds < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.ok(rounds >= 3, 'the first round after the delay, then more on the timer');
    await worker.stop();
    const early = new Worker(t.deps, handlers, { pollMs: 20, chores: [{ name: 'never', everyMs: 30, firstAfterMs: 50, run: async () => void rounds++ }] });
    early.start();
    await early.stop();
    const stopped = rounds;
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(rounds, stopped, 'no round from a worker stopped before its first');
  });

  it('waits for a round of upkeep under way before its stop resolves', async () => {
    const handlers = idleHandlers();
    let finished = false;
    const worker = new Worker(t.deps, handlers, {
      pollMs: 20,
      chores: [
        {
          name: 'slow',
          everyMs: 60_000,
          run: async () => {
            await new Promise((r) => setTimeout(r, 100));
            finished = true;
          },
        },
      ],
    });
    worker.start();
    await worker.stop();
    assert.equal(finished, true);
  });

  it('rejects a payload that does not match the catalog', async () => {
    await assert.rejects(enqueue(t.deps.db, t.deps, 'message.send', { nope: 1 } as never), /invalid payload for job message\.send/);
  });

  it('runs jobs in a worker, retries failures and fails permanent errors at once', async () => {
    await clear();
    now = new Date();
    t.deps.clock = () => new Date();
    const seen: string[] = [];
    const handlers = idleHandlers({
      'message.send': async (payload) => {
        const id = payload.message_id;
        seen.push(id);
        if (id === 'flaky' && seen.filter((s) => s === 'flaky').length === 1) throw new Error('first try fails');
        if (id === 'broken') throw new PermanentJobError('cannot ever work');
      },
    });
    for (const id of ['ok', 'flaky', 'broken']) await enqueue(t.deps.db, t.deps, 'message.send', { message_id: id });
    // The flaky job's retry is due at once: pull its run_at forward when it is rescheduled.
    const worker = new Worker(t.deps, handlers, { pollMs: 20 });
    worker.start();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      await t.deps.db
        .updateTable('jobs')
        .set({ run_at: new Date(0).toISOString() })
        .where('state', '=', 'available')
        .execute();
      const left = await t.deps.db.selectFrom('jobs').select(['state']).execute();
      if (left.length === 1 && left[0]!.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await worker.stop();
    t.deps.clock = clock;
    assert.deepEqual(seen.filter((s) => s === 'flaky').length, 2);
    const failed = await listJobs(t.deps.db, { failed: true });
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.attempt, 1, 'a permanent error is not retried');
    assert.equal(failed[0]!.last_error, 'cannot ever work');
  });

  it('fails an attempt that outlives its time limit and retries it; gives back untried what runs at shutdown', async () => {
    await clear();
    t.deps.clock = () => new Date();
    const limit = JOB_KINDS['message.send'].timeoutMs;
    JOB_KINDS['message.send'].timeoutMs = 100;
    const started: string[] = [];
    const hang = (payload: unknown, { signal }: { signal: AbortSignal }) =>
      new Promise<void>((resolve) => {
        started.push((payload as { message_id: string }).message_id);
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    const handlers = idleHandlers({
      'message.send': hang,
    });
    try {
      const slow = await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'slow' });
      const worker = new Worker(t.deps, handlers, { pollMs: 20 });
      worker.start();
      let row: Awaited<ReturnType<typeof listJobs>>[number] | undefined;
      for (const deadline = Date.now() + 5_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
        row = (await listJobs(t.deps.db)).find((j) => j.id === slow);
        if (row?.last_error) break;
      }
      await worker.stop();
      assert.equal(row!.last_error, 'timed out after 100 ms');
      assert.equal(row!.state, 'available', 'a timed-out attempt is retried later, like any failure');
      assert.ok(Date.parse(row!.run_at) > Date.now() + 10_000, 'after the backoff');

      // Stopping while a job runs: the handler is told, and the job goes back untried.
      JOB_KINDS['message.send'].timeoutMs = 60_000;
      await clear();
      const held = await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'held' });
      const second = new Worker(t.deps, handlers, { pollMs: 20 });
      second.start();
      for (const deadline = Date.now() + 5_000; Date.now() < deadline && !started.includes('held');) await new Promise((r) => setTimeout(r, 20));
      await second.stop(50);
      const back = (await listJobs(t.deps.db)).find((j) => j.id === held)!;
      assert.equal(back.state, 'available');
      assert.equal(back.attempt, 0, 'given back untried');
      assert.equal(back.last_error, null);
    } finally {
      JOB_KINDS['message.send'].timeoutMs = limit;
      t.deps.clock = clock;
    }
  });

  it('starts one job a spell while its process is busy, and the rest once it is not', async () => {
    await clear();
    t.deps.clock = () => new Date();
    let running = 0;
    const most = { busy: 0, idle: 0 };
    let busy = true;
    const done: string[] = [];
    const handlers = idleHandlers({
      'message.send': async (payload) => {
        running++;
        const phase = busy ? 'busy' : 'idle';
        most[phase] = Math.max(most[phase], running);
        await new Promise((r) => setTimeout(r, 40));
        running--;
        done.push(payload.message_id);
      },
    });
    try {
      for (let i = 0; i < 24; i++) await enqueue(t.deps.db, t.deps, 'message.send', { message_id: `m${i}` });
      const worker = new Worker(t.deps, handlers, { concurrency: 8, pollMs: 20, whileBusy: { busy: () => busy, oneJobEveryMs: 200 } });
      worker.start();
      // Busy for a second: about one job each 200 ms, one at a time, so the queue still moves.
      await new Promise((r) => setTimeout(r, 1_000));
      const whileBusy = done.length;
      busy = false;
      for (const deadline = Date.now() + 5_000; Date.now() < deadline && done.length < 24;) await new Promise((r) => setTimeout(r, 10));
      await worker.stop();
      assert.equal(done.length, 24, 'every job ran');
      assert.equal(most.busy, 1, 'one at a time while busy');
      assert.ok(whileBusy >= 2 && whileBusy <= 8, `a few jobs while busy, not none and not all (${whileBusy})`);
      assert.ok(most.idle > 2, `more at once after (${most.idle})`);
    } finally {
      t.deps.clock = clock;
    }
  });
});
