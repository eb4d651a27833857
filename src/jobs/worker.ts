import { Value } from '@sinclair/typebox/value';
import { hostname } from 'node:os';
import { withTx, type Db } from '../db/connection.js';
import type { Deps } from '../deps.js';
import { newId } from '../lib/ids.js';
import { timeSlicer } from '../lib/time-slice.js';
import type { TSchema } from '@sinclair/typebox';
import { JOB_KINDS, type JobKind, type JobPayload, type JobPolicy } from './kinds.js';
import { claim, complete, completeIn, fail, heartbeat, release, type JobRow } from './repo.js';

/** A failure that retrying cannot fix (bad payload, object gone): the job fails at once. */
export class PermanentJobError extends Error {}

export interface JobContext {
  deps: Deps;
  /** Where the handler writes: a reaction's own transaction, which also ends its job; the database otherwise. */
  db: Db;
  job: JobRow;
  signal: AbortSignal;
  /** Awaited inside a long loop: lets requests and other jobs run once the loop has held the thread for a while. */
  breathe: () => Promise<void>;
}

/** Runs a job of kind K with its payload, checked against the kind's schema before the call. */
export type JobHandler<K extends JobKind = JobKind> = (payload: JobPayload<K>, ctx: JobContext) => Promise<void>;
export type JobHandlers = { [K in JobKind]: JobHandler<K> };

export interface WorkerOptions {
  concurrency?: number;
  pollMs?: number;
  /**
   * While busy() says the process has more urgent work, the worker starts no job but one at a
   * time, and that only when none has started for `oneJobEveryMs`: the queue waits out a busy
   * spell without ever standing still.
   */
  whileBusy?: { busy: () => boolean; oneJobEveryMs: number };
  /** Upkeep the worker's process does on a timer (retention): run at start, then every everyMs. */
  chores?: Chore[];
  /** Kinds of job this worker leaves to the others (another loop of its process runs them). */
  skip?: JobKind[];
  /** Lets go of what the jobs keep between jobs (a model loaded once), after the last job has ended. */
  onStop?: () => Promise<void>;
}

export interface Chore {
  name: string;
  everyMs: number;
  /** The first run this long after the worker starts, not at once (upkeep that would slow a start). */
  firstAfterMs?: number;
  run: () => Promise<void>;
}

/**
 * Runs jobs from the database queue: claims what is due, runs each under its kind's time
 * limit, retries with backoff, and on stop finishes what it holds or gives it back.
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${newId('job').slice(-6)}`;
  readonly #running = new Map<string, { job: JobRow; done: Promise<void>; abort: AbortController }>();
  readonly #concurrency: number;
  readonly #pollMs: number;
  readonly #whileBusy: WorkerOptions['whileBusy'];
  readonly #chores: Chore[];
  readonly #choreTimers: NodeJS.Timeout[] = [];
  readonly #choreRuns = new Set<Promise<void>>();
  readonly #onStop: (() => Promise<void>) | undefined;
  readonly #skip: JobKind[];
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  /** When this worker last started a job (performance.now()). */
  #lastStart = 0;

  constructor(
    private readonly deps: Deps,
    private readonly handlers: JobHandlers,
    opts: WorkerOptions = {},
  ) {
    this.#concurrency = opts.concurrency ?? 4;
    this.#pollMs = opts.pollMs ?? 250;
    this.#whileBusy = opts.whileBusy;
    this.#chores = opts.chores ?? [];
    this.#onStop = opts.onStop;
    this.#skip = opts.skip ?? [];
  }

  start(): void {
    this.#loop ??= this.#run();
    const leaseMs = this.deps.config.jobLeaseSeconds * 1000;
    this.#heartbeat ??= setInterval(() => {
      if (this.#running.size === 0) return;
      heartbeat(this.deps.db, this.deps.clock, this.id, leaseMs).catch((err: unknown) => this.deps.log?.error({ err }, 'lease heartbeat failed'));
    }, leaseMs / 3);
    this.#heartbeat.unref();
    if (this.#choreTimers.length > 0) return;
    for (const chore of this.#chores) {
      // Idempotent upkeep: with several workers each does it, and a failed round is the next one's.
      const tick = () => {
        const run = chore.run().catch((err: unknown) => this.deps.log?.error({ err, chore: chore.name }, 'upkeep failed'));
        this.#choreRuns.add(run);
        void run.finally(() => this.#choreRuns.delete(run));
      };
      const every = () => {
        const timer = setInterval(tick, chore.everyMs);
        timer.unref();
        this.#choreTimers.push(timer);
      };
      if (chore.firstAfterMs === undefined) {
        tick();
        every();
      } else {
        const first = setTimeout(() => (tick(), every()), chore.firstAfterMs);
        first.unref();
        this.#choreTimers.push(first);
      }
    }
  }

  /** Shortens the wait when this process just enqueued something. */
  wake(): void {
    this.#wake?.();
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      const concurrency = this.#whileBusy?.busy() ? (performance.now() - this.#lastStart >= this.#whileBusy.oneJobEveryMs ? 1 : 0) : this.#concurrency;
      const free = concurrency - this.#running.size;
      let claimed: JobRow[] = [];
      // Claim in groups (a quarter of the slots at least) rather than one job per finished one.
      if (free > 0 && (this.#running.size === 0 || free >= Math.ceil(concurrency / 4))) {
        try {
          claimed = await claim(this.deps.db, this.deps.dialect.kind, this.deps.clock, this.id, free, this.deps.config.jobLeaseSeconds * 1000, this.#skip);
        } catch (err) {
          this.deps.log?.error({ err }, 'claiming jobs failed');
        }
      }
      for (const job of claimed) this.#execute(job);
      if (claimed.length > 0) this.#lastStart = performance.now();
      if (claimed.length === 0 || this.#running.size >= concurrency - Math.ceil(concurrency / 4) + 1) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#pollMs);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = undefined;
      }
    }
  }

  #execute(job: JobRow): void {
    const abort = new AbortController();
    const done = this.#attempt(job, abort).finally(() => this.#running.delete(job.id));
    this.#running.set(job.id, { job, done, abort });
    void done.then(() => this.wake());
  }

  async #attempt(job: JobRow, abort: AbortController): Promise<void> {
    const { deps } = this;
    const def = JOB_KINDS[job.kind as JobKind] as JobPolicy<TSchema> | undefined;
    const handler = this.handlers[job.kind as JobKind];
    let timedOut = false;
    try {
      if (!def || !handler) throw new PermanentJobError(`no handler for job kind ${job.kind}`);
      const payload: unknown = JSON.parse(job.payload);
      if (!Value.Check(def.payload, payload)) throw new PermanentJobError(`invalid payload for ${job.kind}`);
      // One timer and one listener per attempt, both removed when it ends: AbortSignal.timeout()
      // and AbortSignal.any() left a timer that later built a DOMException for every finished job.
      let onAbort: (() => void) | undefined;
      const timer = setTimeout(() => {
        timedOut = true;
        abort.abort();
      }, def.timeoutMs);
      try {
        const context = { deps, job, signal: abort.signal, breathe: timeSlicer() };
        // A reaction and its job's end commit together: once, or not at all and again later.
        const run = def.reaction
          ? withTx(deps.db, async (tx) => {
              await (handler as JobHandler)(payload as JobPayload<JobKind>, { ...context, db: tx });
              if (abort.signal.aborted || !(await completeIn(tx, job))) throw new Error('the job was given up while it ran');
            })
          : (handler as JobHandler)(payload as JobPayload<JobKind>, { ...context, db: deps.db });
        await Promise.race([
          run,
          new Promise<never>((_, reject) => {
            onAbort = () => reject(new Error(timedOut ? `timed out after ${def.timeoutMs} ms` : 'worker stopping'));
            abort.signal.addEventListener('abort', onAbort, { once: true });
          }),
        ]);
      } finally {
        clearTimeout(timer);
        if (onAbort) abort.signal.removeEventListener('abort', onAbort);
      }
      // A handler that heeds the signal may return early rather than throw: that is no success.
      if (abort.signal.aborted) throw new Error(timedOut ? `timed out after ${def.timeoutMs} ms` : 'worker stopping');
      if (!def.reaction) await complete(deps.db, job);
      deps.log?.debug({ job_id: job.id, kind: job.kind, attempt: job.attempt, worker: this.id }, 'job done');
    } catch (err) {
      if (abort.signal.aborted && !timedOut) {
        await release(deps.db, job, deps.clock).catch(() => undefined);
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      deps.log?.warn({ job_id: job.id, kind: job.kind, attempt: job.attempt, err: message }, 'job attempt failed');
      await fail(deps.db, job, message, deps.clock, { retry: !(err instanceof PermanentJobError), config: deps.config }).catch((e: unknown) =>
        deps.log?.error({ err: e }, 'recording a job failure failed'),
      );
    }
  }

  /** Stops claiming; waits up to graceMs for running jobs, then gives the rest back. */
  async stop(graceMs = 10_000): Promise<void> {
    this.#stopping = true;
    this.wake();
    await this.#loop;
    const pending = [...this.#running.values()];
    const all = Promise.all(pending.map((p) => p.done));
    const timer = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([all, timer]);
    for (const p of this.#running.values()) p.abort.abort();
    await all;
    clearInterval(this.#heartbeat);
    for (const timer of this.#choreTimers) clearInterval(timer);
    // A round under way finishes before the caller closes the database under it.
    await Promise.allSettled([...this.#choreRuns]);
    await this.#onStop?.();
  }
}
