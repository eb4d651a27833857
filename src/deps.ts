import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db, DatabaseHandle } from './db/connection.js';
import type { DialectHelpers } from './db/dialect.js';
import type { KeyCache } from './http/key-cache.js';
import type { Metrics } from './lib/metrics.js';
import type { SecretBox } from './lib/secret-box.js';
import type { Clock } from './lib/time.js';

/** What services need from the outside world, built once at boot and handed down. */
export interface Deps {
  config: Config;
  db: Db;
  dialect: DialectHelpers;
  database: DatabaseHandle;
  secrets: SecretBox;
  clock: Clock;
  /** Accounts behind recently used API keys; cleared whenever an account changes. */
  keyCache: KeyCache;
  /** Process logger for work outside a request (jobs); absent in some tests. */
  log?: FastifyBaseLogger | undefined;
  /** Tells this process's worker that a job was just enqueued; a no-op without one. */
  wakeWorker: () => void;
  /** Requests this process's API is answering now (counted in app.ts), for the worker beside it. */
  api: { inFlight: number };
  /** This process's counters and histograms (lib/metrics.ts), served at /metrics when enabled. */
  metrics: Metrics;
  /** Set when a stop signal arrives: /readyz answers 503 from then on. */
  shutdown: { started: boolean };
}
