import { timingSafeEqual } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { queueCounts } from '../../jobs/repo.js';
import { listTime, sanctionsListAges } from './sources.js';

const watched = new WeakSet<Deps>();

/**
 * The process's metrics with the state every process reads alike from the database: the job
 * queue and the sanctions lists. Read when scraped, so a `serve` and a `worker` report the same.
 */
export function enableMetrics(deps: Deps): void {
  if (watched.has(deps)) return;
  watched.add(deps);
  const m = deps.metrics.withProcessMetrics();
  // One read of the queue, and one of the lists, serves all their gauges of a scrape (the registry collects them side by side).
  const queue = sharedRead(() => queueCounts(deps.db));
  const lists = sharedRead(() => sanctionsListAges(deps));
  m.gauge('guestscreen_jobs', 'Background jobs by kind and state: available (queued, due now or later), running, failed (no attempts left)', ['kind', 'state'], async function () {
    this.reset();
    for (const r of await queue()) this.set({ kind: r.kind, state: r.state }, r.n);
  });
  m.gauge('guestscreen_jobs_oldest_due_age_seconds', 'How long the oldest available job has been due, by kind (0: none is waiting)', ['kind'], async function () {
    this.reset();
    const now = deps.clock().getTime();
    for (const r of await queue()) {
      if (r.state !== 'available' || r.oldest === null) continue;
      this.set({ kind: r.kind }, Math.max(0, (now - Date.parse(r.oldest)) / 1000));
    }
  });
  m.gauge('guestscreen_sanctions_list_names', 'Names (aliases included) of each imported sanctions list, labelled with its date', ['source', 'date'], async function () {
    this.reset();
    for (const l of await lists()) this.set({ source: l.source, date: l.dataDate }, l.names);
  });
  m.gauge('guestscreen_sanctions_list_stale', 'Whether each imported sanctions list is older than GUESTSCREEN_SANCTIONS_MAX_AGE_DAYS (1) or not (0)', ['source'], async function () {
    this.reset();
    for (const l of await lists()) this.set({ source: l.source }, l.stale ? 1 : 0);
  });
  m.gauge('guestscreen_sanctions_list_age_seconds', "Age of each imported sanctions list: now minus the list's own date", ['source'], async function () {
    this.reset();
    const now = deps.clock().getTime();
    for (const l of await lists()) {
      const date = listTime(l.dataDate);
      if (Number.isFinite(date)) this.set({ source: l.source }, Math.max(0, (now - date) / 1000));
    }
  });
}

/** A read that callers arriving while it runs share, and that runs afresh once it has answered. */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () => (running ??= read().finally(() => (running = undefined)));
}

/** Whether a request may read the metrics: with a token configured, only `Authorization: Bearer <token>`. */
export function metricsAllowed(deps: Deps, authorization: string | undefined): boolean {
  const token = deps.config.metrics?.token;
  if (token === undefined) return true;
  const given = Buffer.from(/^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '');
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** The Prometheus text exposition of this process. */
export async function metricsText(deps: Deps): Promise<{ contentType: string; body: string }> {
  enableMetrics(deps);
  return { contentType: deps.metrics.contentType, body: await deps.metrics.text() };
}
