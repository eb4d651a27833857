import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { call, createTestApp, dbKind, eventually, startReceiver, tenant, type TestApp } from './harness.js';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const JOBS = 150;

describe(`two worker processes on one database (${dbKind})`, () => {
  let t: TestApp;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const workers: { child: ChildProcess; done: string[]; started: boolean }[] = [];

  before(async () => {
    // Each delivery takes a little while, so both workers are busy at once.
    rx = await startReceiver(() => ({ status: 200 }), 20);
    t = await createTestApp();
  });
  after(async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    await rx.close();
    await t.close();
  });

  it('runs every job exactly once between them', async () => {
    const me = await tenant(t);
    await call(t, 'POST', '/v1/accounts/webhooks', { key: me.key, body: { webhook_key: 'reservation_webhook_url', webhook_url: `${rx.url}/hook` } });
    for (let i = 0; i < 2; i++) {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'worker'], {
        env: { PATH: process.env.PATH ?? '', ...t.env, LOG_LEVEL: 'debug', GUESTSCREEN_WORKER_CONCURRENCY: '4' },
      });
      const w = { child, done: [] as string[], started: false };
      let buf = '';
      child.stdout?.on('data', (d: Buffer) => {
        buf += d.toString();
        const lines = buf.split('\n');
        buf = lines.pop() ?? '';
        for (const line of lines) {
          if (/^guestscreen \S+ worker /.test(line)) w.started = true;
          if (line.includes('"job done"') && line.includes('"webhook.deliver"')) w.done.push((JSON.parse(line) as { job_id: string }).job_id);
        }
      });
      workers.push(w);
    }
    // Both take part only if both are up before the jobs are due: one starting a second late
    // (its TypeScript compiled while the rest of the suite runs) would find nothing left.
    await eventually(async () => workers.every((w) => w.started), 'both workers to start', 30_000);
    for (let i = 0; i < JOBS; i++) {
      const r = await call(t, 'POST', '/v1/reservations', { key: me.key, body: { guest: { first_name: 'W', last_name: `N${i}` } } });
      assert.equal(r.status, 200);
    }
    await eventually(async () => rx.received.length >= JOBS && (await t.deps.db.selectFrom('jobs').select('id').execute()).length === 0, 'all deliveries', 60_000);
    const ids = rx.received.map((r) => String(r.headers['webhook-id']));
    assert.equal(ids.length, JOBS, 'no delivery ran twice');
    assert.equal(new Set(ids).size, JOBS);
    await eventually(async () => workers[0]!.done.length + workers[1]!.done.length === JOBS, 'the workers to log every job', 10_000);
    const [a, b] = workers.map((w) => new Set(w.done));
    assert.ok(a!.size > 0 && b!.size > 0, `both workers took jobs (${a!.size} and ${b!.size})`);
    for (const id of a!) assert.ok(!b!.has(id), `job ${id} ran in both workers`);
    for (const w of workers) {
      w.child.kill('SIGTERM');
      const [code] = await once(w.child, 'exit');
      assert.equal(code, 0, 'a worker stops cleanly on SIGTERM');
    }
  });
});
