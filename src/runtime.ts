import { refreshStaleTables } from './modules/authority/establishments.js';
import { purgeExpiredReports, trackMissedStays } from './modules/authority/reports.js';
import type { FastifyInstance } from 'fastify';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker as Thread } from 'node:worker_threads';
import { pino } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase } from './db/connection.js';
import { migrateToLatest } from './db/migrate.js';
import type { Deps } from './deps.js';
import { stopReadingProcesses } from './lib/reading/process.js';
import { resolveSecret, SecretBox } from './lib/secret-box.js';
import { Metrics } from './lib/metrics.js';
import { systemClock } from './lib/time.js';
import { KeyCache } from './http/key-cache.js';
import { handlers } from './jobs/handlers.js';
import { Worker } from './jobs/worker.js';
import { bootstrapRoot } from './modules/accounts/service.js';
import { enqueue } from './jobs/repo.js';
import { purgeExpiredChecks } from './modules/background-checks/service.js';
import { forgetOneOffReads, purgeDocumentPhotos } from './modules/identity/service.js';
import { warmSanctionsIndex } from './providers/sanctions/index.js';
import { enableMetrics, metricsAllowed, metricsText } from './modules/system/metrics.js';

export function createDeps(config: Config): Deps {
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sqliteReaders: config.sqliteReaders });
  return {
    config,
    database,
    db: database.db,
    dialect: database.dialect,
    secrets: new SecretBox(resolveSecret(config.secret, config.dataDir)),
    clock: systemClock,
    keyCache: new KeyCache(config.keyCacheMs),
    wakeWorker: () => undefined,
    api: { inFlight: 0 },
    metrics: new Metrics(),
    shutdown: { started: false },
  };
}

/** Migrations, then the root account. Safe to run on every start and from many nodes at once. */
export async function prepare(deps: Deps): Promise<{ rootKey: string | null; rootId: string }> {
  await migrateToLatest(deps.database);
  const { account, apiKey } = await bootstrapRoot(deps);
  return { rootKey: apiKey, rootId: account.id };
}

export async function startServer(deps: Deps): Promise<FastifyInstance> {
  const app = await buildApp(deps);
  deps.log ??= app.log;
  await app.listen({ port: deps.config.port, host: deps.config.host });
  return app;
}

/**
 * /metrics on a listener of its own (GUESTSCREEN_METRICS_PORT), apart from the API: for a bind
 * address only the scraper reaches, and for `worker`, which has no API.
 */
export async function startMetricsListener(deps: Deps): Promise<Server | undefined> {
  const settings = deps.config.metrics;
  if (settings?.port === undefined) return undefined;
  enableMetrics(deps);
  const server = createServer((req, res) => {
    const reply = (status: number, type: string, body: string) => res.writeHead(status, { 'content-type': type }).end(body);
    if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://x').pathname !== '/metrics') return reply(404, 'text/plain', 'only GET /metrics is served here\n');
    if (!metricsAllowed(deps, req.headers.authorization)) return reply(401, 'text/plain', 'Authorization: Bearer and the metrics token, please\n');
    metricsText(deps).then(
      ({ contentType, body }) => reply(200, contentType, body),
      (err: unknown) => {
        deps.log?.error({ err }, 'metrics could not be read');
        reply(500, 'text/plain', 'the metrics could not be read\n');
      },
    );
  });
  server.listen(settings.port, settings.host);
  await once(server, 'listening');
  return server;
}

/**
 * The first step of a stop: /readyz answers 503 at once, and the listener stays open
 * GUESTSCREEN_SHUTDOWN_DELAY_SECONDS more, so a load balancer stops sending before it closes.
 */
export async function beginShutdown(deps: Deps): Promise<void> {
  deps.shutdown.started = true;
  if (deps.config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, deps.config.shutdownDelayMs));
}

/** What the watchdog (killWhenStuck) runs: kills the process given once the time given has passed, and leaves when that process has gone. */
const WATCHDOG = `const [pid, ms] = process.argv.slice(1).map(Number);
setTimeout(() => { try { process.kill(pid, 'SIGKILL'); } catch {} process.exit(0); }, ms);
setInterval(() => { try { process.kill(pid, 0); } catch { process.exit(0); } }, 250);`;

/** How much longer than the grace period the watchdog waits: the time the process's own exit may take. */
const EXIT_MS = 2000;

/**
 * A stop ends whatever holds it. The stop's handler (close-with-grace) exits past its grace
 * period, but only if the main thread runs: a thread blocked in native code (a join on a thread
 * that never ends, at the exit itself) runs no timer, and the process stayed alive for an hour.
 * So the first stop signal starts a small process of its own that kills this one, as a crash
 * would, once the grace period and the exit's own time have passed: the jobs it held are taken
 * again when their leases run out, as after any crash. It listens ahead of every other handler,
 * so nothing that blocks a handler stops it being armed.
 */
export function killWhenStuck(graceMs: number): void {
  const arm = () => {
    process.off('SIGTERM', arm);
    process.off('SIGINT', arm);
    const watchdog = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), String(graceMs + EXIT_MS)], { detached: true, stdio: 'ignore' });
    watchdog.on('error', () => undefined);
    watchdog.unref();
  };
  process.prependListener('SIGTERM', arm);
  process.prependListener('SIGINT', arm);
}

/** Requests in flight from which the API counts as busy, for the worker beside it. */
const BUSY_API = 8;

/**
 * The job worker of this process; enqueues from this process wake it at once.
 * `dedicated`: the process does nothing else (`guestscreen worker`), so it runs more jobs at once
 * (their writes share commits, so a backlog drains faster). Beside the API (`guestscreen start`)
 * the API and the worker share one thread, so it runs 16, and while the API is busy (BUSY_API
 * requests or more in flight) it starts no job but one a second: the creates and reads answered
 * meanwhile are what a caller waits on, and the screenings they queued run as the load eases.
 * A dedicated worker is not held back.
 */
export function startWorker(deps: Deps, mode: 'dedicated' | 'beside-api' | 'thread' = 'beside-api'): Worker {
  deps.log ??= pino({ level: deps.config.logLevel });
  const concurrency = deps.config.workerConcurrency ?? (mode === 'beside-api' ? 16 : 64);
  const worker = new Worker(deps, handlers, {
    concurrency,
    // A job thread of `guestscreen worker` leaves the chores to its main thread.
    chores:
      mode === 'thread'
        ? []
        : [
            ...(deps.config.checkRetentionDays > 0 ? [{ name: 'check retention', everyMs: 3_600_000, run: async () => void (await purgeExpiredChecks(deps)) }] : []),
            // People told of unfinished guest portals near check-in, and the daily digests.
            { name: 'alerts', everyMs: 3_600_000, firstAfterMs: 90_000, run: async () => void (await enqueue(deps.db, deps, 'alert.hourly', {}, { uniqueKey: 'alert-hourly' })) },
            // Identity documents' photos, deleted the account's number of days after check-out.
            { name: 'document photo retention', everyMs: 3_600_000, firstAfterMs: 30_000, run: async () => void (await purgeDocumentPhotos(deps)) },
            // One-off reads answered 202 whose callers never came back for them.
            { name: 'one-off reads forgotten', everyMs: 300_000, firstAfterMs: 35_000, run: async () => void (await forgetOneOffReads(deps)) },
            // Police reports and receipts, deleted once the law no longer asks the host to keep them.
            { name: 'police report retention', everyMs: 3_600_000, firstAfterMs: 45_000, run: async () => void (await purgeExpiredReports(deps)) },
            // Stays written while their listing was being set up to report, caught up.
            { name: 'police reports followed', everyMs: 3_600_000, firstAfterMs: 40_000, run: async () => void (await trackMissedStays(deps)) },
            // Alloggiati Web's tables (comuni change) fetched again weekly into this node's data directory.
            { name: 'Alloggiati Web tables', everyMs: 3_600_000, firstAfterMs: 50_000, run: () => refreshStaleTables(deps) },
            // The configured sanctions lists, a minute after the start (a new install gets them soon) and then every so many hours.
            ...(deps.config.sanctionsRefresh
              ? [
                  {
                    name: 'sanctions refresh',
                    everyMs: deps.config.sanctionsRefresh.everyHours * 3_600_000,
                    firstAfterMs: 60_000,
                    run: async () => void (await enqueue(deps.db, deps, 'sanctions.refresh', {}, { uniqueKey: 'sanctions-refresh' })),
                  },
                ]
              : []),
            // SQLite's full-text index, merged in short steps (compactSearchIndex in db/dialect.ts): a
            // few seconds after the start, so not in the way of it, then hourly.
            ...(deps.dialect.kind === 'sqlite'
              ? [{ name: 'search index merge', everyMs: 3_600_000, firstAfterMs: 5_000, run: async () => void (await deps.dialect.compactSearchIndex(deps.db)) }]
              : []),
          ],
    ...(mode === 'beside-api' && deps.config.workerConcurrency === undefined ? { whileBusy: { busy: () => deps.api.inFlight >= BUSY_API, oneJobEveryMs: 1000 } } : {}),
    // Identity documents are read by the process's main loop alone: each loop would start reading
    // processes of its own (lib/reading/process.ts), and the process's reads would hold their
    // memory side by side.
    ...(mode === 'thread' ? { skip: ['identity.read' as const] } : {}),
    // The processes that read identity documents, started by the first document read.
    onStop: stopReadingProcesses,
  });
  deps.wakeWorker = () => worker.wake();
  worker.start();
  // Screening searches the sanctions lists: their index is built now rather than by the first
  // screening (the API, started first, answers meanwhile; `serve` alone never builds it).
  warmSanctionsIndex(deps).catch((err: unknown) => deps.log?.error({ err }, 'building the sanctions index failed'));
  return worker;
}

// In the sources (tsx) the thread's file is TypeScript and tsx must load it; built, it sits in dist/ beside this chunk.
const fromSources = path.extname(fileURLToPath(import.meta.url)) === '.ts';
const ENTRY = new URL(`./job-thread${fromSources ? '.ts' : '.js'}`, import.meta.url);

export interface JobThreads {
  /** Stops each thread's worker (its jobs finish or are released) and waits for them. */
  stop(): Promise<void>;
}

/**
 * `count` more job loops in threads of this process, each with its own database connection, as
 * if that many more `guestscreen worker` processes ran: screening is CPU work (the name matcher
 * above all), and one thread uses one core of the machine.
 */
export async function startJobThreads(count: number, env: NodeJS.ProcessEnv): Promise<JobThreads> {
  // The threads search no reservations: no SQLite reader threads of their own.
  const workerData = { env: { ...env, GUESTSCREEN_SQLITE_READERS: '0' } };
  const threads = Array.from({ length: count }, () =>
    fromSources ? new Thread(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(ENTRY.href)}); });`, { eval: true, workerData }) : new Thread(ENTRY, { workerData }),
  );
  await Promise.all(threads.map((t) => answer(t, 'started')));
  return {
    async stop() {
      await Promise.all(
        threads.map(async (t) => {
          t.postMessage('stop');
          await answer(t, 'stopped');
          await t.terminate();
        }),
      );
    },
  };
}

/** The thread's next message, which must be `expected`; its error or exit before it rejects. */
function answer(t: Thread, expected: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      t.off('message', onMessage);
      t.off('error', onError);
      t.off('exit', onExit);
    };
    const onMessage = (m: unknown) => {
      if (m !== expected) return;
      done();
      resolve();
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    const onExit = (code: number) => {
      done();
      reject(new Error(`a job thread exited (code ${code}) before it was ${expected}`));
    };
    t.on('message', onMessage);
    t.on('error', onError);
    t.on('exit', onExit);
  });
}
