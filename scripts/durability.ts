/**
 * Durability check: nothing acknowledged is lost across kill -9.
 *
 * Runs `guestscreen start` as a child process, posts reservations with Idempotency-Keys from
 * this process, kills the service with SIGKILL at random moments and starts it again, retries
 * every unanswered request with its key, then checks that every acknowledged reservation
 * exists exactly once and that every committed event reached the webhook receiver at least
 * once (deduplicated by webhook-id).
 *
 *   npm run durability -- --cycles 3            (SQLite)
 *   DATABASE_URL=postgres://… npm run durability -- --cycles 20 --rate 40
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { generateApiKey } from '../src/lib/api-keys.js';
import { createIsolatedEnv, freePort } from '../test/harness.js';

const { values } = parseArgs({
  options: {
    cycles: { type: 'string', default: '3' },
    rate: { type: 'string', default: '25', short: 'r' },
    seed: { type: 'string' },
  },
});
const CYCLES = Number(values.cycles);
const CONCURRENCY = Number(values.rate);
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const log = (m: string) => process.stdout.write(`[durability] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rand = (min: number, max: number) => min + Math.random() * (max - min);

// The receiver: records every delivery's webhook-id; answers 200.
const delivered = new Map<string, number>();
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['webhook-id']);
    delivered.set(id, (delivered.get(id) ?? 0) + 1);
    res.end('ok');
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

const { env, cleanup } = await createIsolatedEnv({
  LOG_LEVEL: 'error',
  GUESTSCREEN_ROOT_KEY: generateApiKey(),
  GUESTSCREEN_WEBHOOK_RETRY_SCHEDULE: '0.2,0.5,1,1,2,2,3,3,5,5',
  GUESTSCREEN_IDEMPOTENCY_LOCK_SECONDS: '2',
  GUESTSCREEN_JOB_LEASE_SECONDS: '3',
});
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const key = env.GUESTSCREEN_ROOT_KEY!;
let service: ChildProcess | undefined;
let kills = 0;

async function startService(): Promise<void> {
  service = spawn(process.execPath, ['--import', 'tsx', CLI, 'start'], {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return;
    } catch {
      // not up yet
    }
    await sleep(50);
  }
  throw new Error('the service did not become ready');
}

async function killService(): Promise<void> {
  if (!service) return;
  const exited = once(service, 'exit');
  service.kill('SIGKILL');
  await exited;
  kills += 1;
}

type Outcome = { id: string } | 'retry';

async function post(n: number): Promise<Outcome> {
  try {
    const res = await fetch(`${base}/v1/reservations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'idempotency-key': `dur-${n}` },
      // No confirmation code: only the Idempotency-Key keeps a retried request from being applied twice.
      body: JSON.stringify({ listing_id: `L${n % 7}`, guest: { first_name: 'Dura', last_name: `Bility ${n}`, email: `dur-${n}@example.test` } }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as { id?: string; error?: string };
    if (res.status === 200 && body.id) return { id: body.id };
    if (res.status === 409 || res.status >= 500) return 'retry';
    throw new Error(`request ${n} answered ${res.status}: ${body.error}`);
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('request ')) throw err;
    return 'retry';
  }
}

process.on('exit', () => service?.kill('SIGKILL'));
await startService();
const reg = await fetch(`${base}/v1/accounts/webhooks`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': key },
  body: JSON.stringify({ webhook_key: 'reservation_webhook_url', webhook_url: hookUrl }),
});
if (!reg.ok) throw new Error(`webhook registration failed: ${reg.status}`);

const acked = new Map<number, string>();
const unanswered = new Set<number>();
/** Requests that went unanswered at least once (a kill, a 409 while the dead attempt's lock lasted) and were sent again. */
const retriedSet = new Set<number>();
let next = 0;
let running = true;

// Clients: CONCURRENCY of them, each retrying its request with the same key until answered,
// as a careful integrator would; what is still unanswered at the end is retried below.
const clients = Array.from({ length: CONCURRENCY }, async () => {
  while (running) {
    const n = next++;
    for (;;) {
      const r = await post(n);
      if (r !== 'retry') {
        acked.set(n, r.id);
        break;
      }
      retriedSet.add(n);
      if (!running) {
        unanswered.add(n);
        break;
      }
      await sleep(rand(100, 300));
    }
  }
});

for (let c = 0; c < CYCLES; c++) {
  await sleep(rand(300, 1500));
  await killService();
  log(`cycle ${c + 1}: killed with SIGKILL after ${acked.size} acknowledged, ${unanswered.size} unanswered`);
  await sleep(rand(50, 300));
  await startService();
}
await sleep(500);
running = false;
await Promise.all(clients);

// Retry every unanswered request with its own key until it is answered.
for (const n of [...unanswered]) {
  for (let attempt = 0; ; attempt++) {
    const r = await post(n);
    if (r !== 'retry') {
      if (acked.has(n) && acked.get(n) !== r.id) throw new Error(`request ${n} was acknowledged twice with different ids`);
      acked.set(n, r.id);
      unanswered.delete(n);
      break;
    }
    if (attempt > 100) throw new Error(`request ${n} never got an answer`);
    await sleep(200);
  }
}

// Check: each acknowledged reservation exists, once.
const problems: string[] = [];
const list = async (from: number) =>
  (await (await fetch(`${base}/v1/reservations?size=100&from=${from}`, { headers: { 'x-api-key': key } })).json()) as {
    total: number;
    items: { id: string; guest: { email: string } }[];
  };
const stored = new Map<string, string[]>();
for (let from = 0; ; from += 100) {
  const page = await list(from);
  for (const item of page.items) stored.set(item.guest.email, [...(stored.get(item.guest.email) ?? []), item.id]);
  if (from + 100 >= page.total) break;
}
const retried = retriedSet.size;
let losses = 0;
let duplicates = 0;
for (const [n, id] of acked) {
  const ids = stored.get(`dur-${n}@example.test`) ?? [];
  if (ids.length === 0) losses += 1;
  if (ids.length > 1) duplicates += ids.length - 1;
  if (ids.length !== 1 || ids[0] !== id) problems.push(`acknowledged request ${n} (${id}) is stored as [${ids.join(', ')}]`);
}
// Requests never acknowledged may have been applied or not, but never twice.
for (const [email, ids] of stored) if (ids.length > 1 && !acked.has(Number(/dur-(\d+)@/.exec(email)?.[1]))) duplicates += ids.length - 1;

// Check: every committed event reaches the receiver at least once.
const { createDeps } = await import('../src/runtime.js');
const { loadConfig } = await import('../src/config.js');
const deps = createDeps(loadConfig(env));
const events = await deps.db.selectFrom('events').select('id').where('type', '=', 'reservation.created').execute();
const deadline = Date.now() + 60_000;
while (events.some((e) => !delivered.has(e.id)) && Date.now() < deadline) await sleep(200);
const missing = events.filter((e) => !delivered.has(e.id));
for (const e of missing) problems.push(`event ${e.id} was committed but never delivered`);
if (events.length !== acked.size) problems.push(`${events.length} reservation.created events for ${acked.size} reservations`);
await deps.database.close();

const redelivered = [...delivered.values()].filter((count) => count > 1).length;
await killService();
receiver.close();
await cleanup();

log(`${acked.size} reservations acknowledged across ${kills - 1} kill -9 restarts, ${retried} requests retried with their key after going unanswered; ${duplicates} applied twice, ${losses} lost`);
log(`${events.length} events, ${missing.length} never delivered (${redelivered} delivered more than once, deduplicated by webhook-id)`);
for (const p of problems) log(`FAIL ${p}`);
process.stdout.write(`durability: ${problems.length === 0 ? 1 : 0} passed, ${problems.length === 0 ? 0 : 1} failed\n`);
process.exit(problems.length === 0 ? 0 : 1);
