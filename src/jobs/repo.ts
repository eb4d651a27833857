import { Value } from '@sinclair/typebox/value';
import { sql, type Selectable } from 'kysely';
import type { Config } from '../config.js';
import { insertRows } from '../db/compiled.js';
import { withTx, type Db } from '../db/connection.js';
import { countAll, lockForClaim, type DialectKind } from '../db/dialect.js';
import type { JobsTable } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import { iso, type Clock } from '../lib/time.js';
import { JOB_KINDS, type JobKind, type JobPayload } from './kinds.js';

export type JobRow = Selectable<JobsTable>;

// Jitter spreads retries of many failed jobs so they do not come back at the same instant.
const JITTER = 0.2;

export interface EnqueueOptions {
  runAt?: Date | undefined;
  /** At most one waiting (available) job per key; a second enqueue while one waits joins it. */
  uniqueKey?: string | undefined;
}

function jobRow<K extends JobKind>(env: { config: Config; clock: Clock }, kind: K, payload: JobPayload<K>, opts: EnqueueOptions) {
  const def = JOB_KINDS[kind];
  if (!Value.Check(def.payload, payload)) throw new Error(`invalid payload for job ${kind}: ${JSON.stringify(payload)}`);
  const now = env.clock();
  return {
    id: newId('job'),
    kind,
    payload: JSON.stringify(payload),
    state: 'available',
    attempt: 0,
    max_attempts: def.maxAttempts(env.config),
    run_at: iso(opts.runAt ?? now),
    locked_by: null,
    locked_until: null,
    unique_key: opts.uniqueKey ?? null,
    last_error: null,
    created_at: iso(now),
    updated_at: iso(now),
  };
}

/**
 * Adds a job. Call it with the transaction of the write that causes the job, so both commit
 * or neither does. With a unique key, a job already waiting for it takes this one's payload
 * instead (the newest request's trigger) and stays locked until this transaction commits, so
 * no worker can start it reading data from before this write. Returns the new job's id, or
 * null with a unique key (the request may have joined a waiting job; nobody needs to know).
 */
export async function enqueue<K extends JobKind>(db: Db, env: { config: Config; clock: Clock }, kind: K, payload: JobPayload<K>, opts: EnqueueOptions = {}): Promise<string | null> {
  const row = jobRow(env, kind, payload, opts);
  if (opts.uniqueKey === undefined) {
    await insertRows(db, 'jobs', [row]);
    return row.id;
  }
  await insertRows(db, 'jobs', [row], { coalesce: { column: 'unique_key', whereColumn: 'state', whereValue: 'available', update: ['payload', 'updated_at'] } });
  return null;
}

/**
 * Records an event (a kind the catalogue marks `reaction`) in the transaction of the change it
 * tells of, for the module that reacts to it, and wakes this process's worker.
 */
export async function recordEvent<K extends JobKind>(tx: Db, deps: { config: Config; clock: Clock; wakeWorker: () => void }, kind: K, payload: JobPayload<K>): Promise<void> {
  await enqueue(tx, deps, kind, payload);
  deps.wakeWorker();
}

/**
 * Adds several jobs of one kind in one statement (one round trip); with unique keys (each its own), as enqueue does.
 * `restart`: a job already waiting for its key takes this one's time too, so a burst of requests
 * runs once, after the last of them (a debounce).
 */
export async function enqueueAll<K extends JobKind>(
  db: Db,
  env: { config: Config; clock: Clock },
  kind: K,
  jobs: { payload: JobPayload<K>; runAt?: Date; uniqueKey?: string }[],
  opts: { restart?: boolean } = {},
): Promise<string[]> {
  if (jobs.length === 0) return [];
  const rows = jobs.map((j) => jobRow(env, kind, j.payload, { runAt: j.runAt, uniqueKey: j.uniqueKey }));
  const update = opts.restart ? ['payload', 'updated_at', 'run_at'] : ['payload', 'updated_at'];
  if (jobs.some((j) => j.uniqueKey !== undefined)) await insertRows(db, 'jobs', rows, { coalesce: { column: 'unique_key', whereColumn: 'state', whereValue: 'available', update } });
  else await insertRows(db, 'jobs', rows);
  return rows.map((r) => r.id);
}

/** Whether a job has been taken by a worker and runs: false while it waits, and once it has left the table. */
export async function isRunning(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('jobs').select('id').where('id', '=', id).where('state', '=', 'running').executeTakeFirst()) !== undefined;
}

/** Whether a job of this unique key waits to run (a running job no longer holds its key). */
export async function isWaiting(db: Db, uniqueKey: string): Promise<boolean> {
  return (await db.selectFrom('jobs').select('id').where('unique_key', '=', uniqueKey).where('state', '=', 'available').executeTakeFirst()) !== undefined;
}

/**
 * Takes up to `limit` due jobs for this worker: available ones whose time has come, and
 * running ones whose lease expired (their worker died). On PostgreSQL the rows are locked
 * with SKIP LOCKED, so two workers never take the same job; SQLite has one writer at a time.
 * A live worker renews its leases (heartbeat), so a lease only expires when its worker is gone.
 * Jobs of the `skip` kinds are left to other workers.
 */
export async function claim(db: Db, dialect: DialectKind, clock: Clock, workerId: string, limit: number, leaseMs = 30_000, skip: readonly string[] = []): Promise<JobRow[]> {
  const now = iso(clock());
  const lockedUntil = iso(new Date(clock().getTime() + leaseMs));
  // Two look-ups, each in its own index order: an OR of both made SQLite gather and sort every
  // due job on each claim.
  const jobs = skip.length ? db.selectFrom('jobs').select('id').where('kind', 'not in', skip) : db.selectFrom('jobs').select('id');
  const due = jobs.where('state', '=', 'available').where('run_at', '<=', now).orderBy('run_at').limit(limit);
  const expired = jobs.where('state', '=', 'running').where('locked_until', '<', now).orderBy('locked_until').limit(limit);
  // Group-committed with the results of the jobs that just finished, rather than a flush of its own.
  const rows = await withTx(db, (tx) =>
    tx
      .updateTable('jobs')
      // A claimed job no longer holds its unique key: a newer request for the same work may queue.
      .set({ state: 'running', locked_by: workerId, locked_until: lockedUntil, unique_key: null, attempt: sql`attempt + 1`, updated_at: now })
      .where((eb) => eb.or([eb('id', 'in', lockForClaim(dialect, due)), eb('id', 'in', lockForClaim(dialect, expired))]))
      .returningAll()
      .execute(),
  );
  // Every row returned is claimed and must run: up to `limit` due jobs plus, after a worker died,
  // up to `limit` of its jobs, so a claim may briefly exceed the worker's concurrency.
  rows.sort((a, b) => (a.run_at < b.run_at ? -1 : a.run_at > b.run_at ? 1 : 0));
  const claimed: JobRow[] = [];
  for (const row of rows) {
    if (row.attempt > row.max_attempts) {
      await fail(db, row, 'lease expired on the last attempt (the worker running it stopped)', clock, { retry: false });
      continue;
    }
    claimed.push(row);
  }
  return claimed;
}

/** Extends the leases of every job this worker is running. */
export async function heartbeat(db: Db, clock: Clock, workerId: string, leaseMs: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ locked_until: iso(new Date(clock().getTime() + leaseMs)) })
    .where('state', '=', 'running')
    .where('locked_by', '=', workerId)
    .execute();
}

/** A finished job leaves the table; what it did is recorded by its own module. Group-committed. */
export async function complete(db: Db, job: JobRow): Promise<void> {
  await withTx(db, (tx) => completeIn(tx, job));
}

/** Ends a job in the caller's transaction (a reaction's): false when this worker no longer holds it. */
export async function completeIn(tx: Db, job: JobRow): Promise<boolean> {
  const gone = await tx.deleteFrom('jobs').where('id', '=', job.id).where('locked_by', '=', job.locked_by).executeTakeFirst();
  return Number(gone.numDeletedRows) === 1;
}

export async function fail(db: Db, job: JobRow, error: string, clock: Clock, opts: { retry: boolean; config?: Config }): Promise<void> {
  const now = clock();
  const def = JOB_KINDS[job.kind as JobKind];
  const last = !opts.retry || job.attempt >= job.max_attempts || !def || !opts.config;
  if (last) {
    await db
      .updateTable('jobs')
      .set({ state: 'failed', last_error: error.slice(0, 2000), locked_by: null, locked_until: null, unique_key: null, updated_at: iso(now) })
      .where('id', '=', job.id)
      .execute();
    return;
  }
  const base = def.backoff(job.attempt, opts.config!) * 1000;
  const delay = base * (1 - JITTER + Math.random() * 2 * JITTER);
  await db
    .updateTable('jobs')
    .set({
      state: 'available',
      run_at: iso(new Date(now.getTime() + delay)),
      last_error: error.slice(0, 2000),
      locked_by: null,
      locked_until: null,
      updated_at: iso(now),
    })
    .where('id', '=', job.id)
    .execute();
}

/** Gives a job back untried (graceful shutdown): the attempt does not count. */
export async function release(db: Db, job: JobRow, clock: Clock): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ state: 'available', attempt: sql`attempt - 1`, locked_by: null, locked_until: null, updated_at: iso(clock()) })
    .where('id', '=', job.id)
    .where('locked_by', '=', job.locked_by)
    .execute();
}

export async function listJobs(db: Db, opts: { failed?: boolean; limit?: number } = {}): Promise<JobRow[]> {
  let q = db
    .selectFrom('jobs')
    .selectAll()
    .orderBy('created_at', 'desc')
    .limit(opts.limit ?? 100);
  if (opts.failed) q = q.where('state', '=', 'failed');
  return q.execute();
}

/**
 * The queue by kind and state ('available', 'running', 'failed'), with the earliest run_at of
 * each: for the metrics, how many wait and since when the oldest due one has.
 */
export async function queueCounts(db: Db): Promise<{ kind: string; state: string; n: number; oldest: string | null }[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['kind', 'state', countAll().as('n'), (eb) => eb.fn.min('run_at').as('oldest')])
    .groupBy(['kind', 'state'])
    .execute();
  return rows.map((r) => ({ kind: r.kind, state: r.state, n: Number(r.n), oldest: r.oldest === null ? null : String(r.oldest) }));
}

/** Puts a failed job back in line with a fresh set of attempts. */
export async function retryJob(db: Db, id: string, clock: Clock): Promise<boolean> {
  const now = iso(clock());
  const r = await db.updateTable('jobs').set({ state: 'available', attempt: 0, run_at: now, last_error: null, updated_at: now }).where('id', '=', id).where('state', '=', 'failed').executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
