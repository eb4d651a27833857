import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type CollectFunction } from 'prom-client';

/** Seconds: from a quick API answer to a receiver that takes the whole 10 s timeout. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * This process's instruments, in the Prometheus text format (docs/deployment.md, "Metrics").
 * One registry per process (per test app in the suite), so nothing is shared between them.
 * Counting costs next to nothing; the HTTP histogram and the process metrics are switched on
 * only where /metrics is served.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Histogram({
    name: 'guestscreen_http_request_duration_seconds',
    help: 'HTTP requests answered, by method, route pattern and status, with their durations',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Histogram({
    name: 'guestscreen_webhook_delivery_duration_seconds',
    help: 'Webhook and callback delivery attempts by target and outcome (succeeded, retrying, failed: no attempts left or 410 Gone), with their latency',
    labelNames: ['target', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly screeningRuns = new Counter({
    name: 'guestscreen_screening_runs_total',
    help: 'Screening runs finished by this process, by verdict colour and verification status',
    labelNames: ['risk_color', 'status'] as const,
    registers: [this.registry],
  });
  private processMetrics = false;

  /** A gauge read when /metrics is scraped (the job queue, the lists' ages): from the database, so every process reports the same. */
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[], collect: CollectFunction<Gauge<L>>): void {
    new Gauge({ name, help, labelNames, collect, registers: [this.registry] });
  }

  /** CPU, memory, event-loop lag, garbage collection and handles, once where /metrics is served. */
  withProcessMetrics(): this {
    if (!this.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'guestscreen_' });
    this.processMetrics = true;
    return this;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
