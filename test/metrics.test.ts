import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { enqueue } from '../src/jobs/repo.js';
import { loadBundledLists } from '../src/providers/sanctions/bundled.js';
import { call, createIsolatedEnv, createTestApp, createTestAppWithWorker, dbKind, eventually, freePort, startReceiver, type TestApp } from './harness.js';

const TOKEN = 'metrics-token-0123456789';
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

/** One sample of the exposition: the value of the series with exactly these labels. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v) && Object.keys(got).length === Object.keys(labels).length) return Number(m[3]);
  }
  return undefined;
}

describe(`metrics (${dbKind})`, () => {
  it('are off unless enabled', async () => {
    const t = await createTestApp();
    try {
      assert.equal((await call(t, 'GET', '/metrics')).status, 404);
    } finally {
      await t.close();
    }
  });

  describe('on the API port, behind their token', () => {
    let t: TestApp;
    before(async () => {
      t = await createTestAppWithWorker({ GUESTSCREEN_METRICS_TOKEN: TOKEN });
      await loadBundledLists(t.deps);
    });
    after(() => t.close());
    const scrape = async () => {
      const r = await call(t, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(r.status, 200, r.body);
      assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      return r.body;
    };

    it('refuse a scrape without the token', async () => {
      assert.equal((await call(t, 'GET', '/metrics')).status, 401);
      assert.equal((await call(t, 'GET', '/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status, 401);
      assert.equal((await call(t, 'GET', '/metrics', { key: t.root.key })).status, 401, 'an API key is not the metrics token');
    });

    it('count requests by route pattern and status, screening runs by colour, webhook deliveries by outcome, and show the queue and lists', async () => {
      const rx = await startReceiver((req) => ({ status: req.url === '/gone' ? 410 : 200 }));
      try {
        await call(t, 'POST', '/v1/accounts/webhooks', { key: t.root.key, body: { webhook_key: 'screening_webhook_url', webhook_url: `${rx.url}/ok` } });
        for (let i = 0; i < 3; i++) assert.equal((await call(t, 'GET', '/v1/accounts/me', { key: t.root.key })).status, 200);
        assert.equal((await call(t, 'GET', '/v1/reservations/res_nope', { key: t.root.key })).status, 404);
        const r = await call(t, 'POST', '/v1/reservations?sync=1', { key: t.root.key, body: { confirmation_code: 'MX-1', guest: { first_name: 'Mira', last_name: 'Okafor' } } });
        assert.equal(r.status, 200, r.body);
        await eventually(async () => rx.received.some((x) => x.url === '/ok'), 'the screening event');

        const text = await eventually(async () => {
          const body = await scrape();
          return (sample(body, 'guestscreen_webhook_delivery_duration_seconds_count', { target: 'screening_webhook_url', outcome: 'succeeded' }) ?? 0) >= 1 && body;
        }, 'the delivery counted');
        assert.equal(sample(text, 'guestscreen_http_request_duration_seconds_count', { method: 'GET', route: '/v1/accounts/me', status: '200' }), 3);
        assert.equal(sample(text, 'guestscreen_http_request_duration_seconds_count', { method: 'GET', route: '/v1/reservations/:id', status: '404' }), 1, 'the pattern, not the id');
        const runs = ['green', 'yellow', 'red'].reduce(
          (n, c) => n + (text.match(new RegExp(`^guestscreen_screening_runs_total\\{risk_color="${c}",status="[a-z_]+"\\} (\\d+)$`, 'm'))?.[1] ? 1 : 0),
          0,
        );
        assert.ok(runs >= 1, 'a screening run is counted by its colour');
        assert.ok((sample(text, 'guestscreen_sanctions_list_names', { source: 'OFAC SDN', date: '2024-05-03' }) ?? 0) > 1000);
        assert.ok((sample(text, 'guestscreen_sanctions_list_age_seconds', { source: 'OFAC SDN' }) ?? 0) > 86_400 * 365);
        assert.equal(sample(text, 'guestscreen_sanctions_list_stale', { source: 'OFAC SDN' }), 1, 'older than GUESTSCREEN_SANCTIONS_MAX_AGE_DAYS');
        await enqueue(t.deps.db, t.deps, 'message.send', { message_id: 'msg_later' }, { runAt: new Date(Date.now() + 3_600_000) });
        const later = await scrape();
        assert.equal(sample(later, 'guestscreen_jobs', { kind: 'message.send', state: 'available' }), 1);
        assert.equal(sample(later, 'guestscreen_jobs_oldest_due_age_seconds', { kind: 'message.send' }), 0, 'not due yet');
        assert.match(text, /^guestscreen_process_cpu_user_seconds_total \d/m);
        assert.match(text, /^guestscreen_nodejs_eventloop_lag_seconds \d/m);
      } finally {
        await rx.close();
      }
    });
  });

  it('are served on a port of their own by a dedicated worker, and /readyz turns unready as soon as a stop begins', async () => {
    const { env, cleanup } = await createIsolatedEnv();
    const children: ChildProcess[] = [];
    const startChild = async (command: string, extra: Record<string, string>, until: RegExp) => {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI, command], { env: { PATH: process.env.PATH ?? '', ...env, ...extra } });
      children.push(child);
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      await eventually(async () => until.test(output), `${command} to start`, 30_000);
      return { child, output: () => output };
    };
    try {
      const metricsPort = await freePort();
      const worker = await startChild('worker', { GUESTSCREEN_METRICS_PORT: String(metricsPort) }, /Metrics: http:\/\/127\.0\.0\.1:\d+\/metrics/);
      const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      assert.equal(scraped.status, 200);
      const text = await scraped.text();
      assert.match(text, /^guestscreen_process_resident_memory_bytes \d+/m);
      assert.match(text, /^# TYPE guestscreen_webhook_delivery_duration_seconds histogram$/m);
      assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status, 404);
      worker.child.kill('SIGTERM');
      assert.deepEqual(await once(worker.child, 'exit'), [0, null]);

      const port = await freePort();
      const api = await startChild('serve', { PORT: String(port), HOST: '127.0.0.1', GUESTSCREEN_SHUTDOWN_DELAY_SECONDS: '3' }, /listening on/);
      const base = `http://127.0.0.1:${port}`;
      assert.equal((await fetch(`${base}/readyz`)).status, 200);
      const exited = once(api.child, 'exit');
      api.child.kill('SIGTERM');
      await eventually(async () => (await fetch(`${base}/readyz`)).status === 503, 'unready after the signal');
      assert.equal((await fetch(`${base}/healthz`)).status, 200, 'the listener is still open and live');
      assert.deepEqual(await exited, [0, null]);
    } finally {
      for (const c of children) c.kill('SIGKILL');
      await cleanup();
    }
  });
});
