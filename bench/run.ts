/**
 * npm run bench: seeds 100,000 reservations with the demo seeder, starts the service as a user
 * would (`guestscreen start`), and loads it with autocannon from this process over loopback,
 * next to a bare Fastify hello-world measured right before each scenario. Prints a table and
 * writes bench/results.json. Runs on SQLite, and on PostgreSQL too when DATABASE_URL is set.
 *
 *   npm run bench                          (about 9 minutes; 13 with DATABASE_URL set)
 *   BENCH_SECONDS=5 BENCH_RESERVATIONS=20000 npm run bench   (a quick look)
 */
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { generateApiKey } from '../src/lib/api-keys.js';
import { measureBounds, measureGetBound, type GetBound } from './bounds.js';
import { peakRssMb, shebangFlags } from './processes.js';
import { createIsolatedEnv, freePort } from '../test/harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RESERVATIONS = Number(process.env.BENCH_RESERVATIONS ?? 100_000);
const CONNECTIONS = 50;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = `${ROOT}dist/cli.js`;
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

interface Figure {
  name: string;
  db: string;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  ratio: number;
  /** The baseline measured just before this scenario, which its ratio is to. */
  baseline_rps: number;
  /** CPU time a request took, µs: in the service (all its threads) and on the whole machine (load generator and database server included). */
  cpu_us: Load['cpu_us'];
  /** The same requests answered by bench/floor.ts, a bare route running the same SQL, measured just after. */
  floor?: FloorFigure;
  /** The floor's read by id plus the key's hash and the identification's decryption (get_reservation only). */
  floor_keyed?: FloorFigure;
}

interface FloorFigure {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  ratio: number;
  cpu_us: Load['cpu_us'];
}

const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);

/** CPU time so far, in ms: the whole machine's busy time (/proc/stat) and, given a pid, that process's, all its threads. */
function cpuMs(pid?: number): { machine: number; process: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq] = fields.map(Number);
  // Busy time; the idle and I/O wait ticks and the time the hypervisor gave to other guests (steal) left out.
  const machine = user! + nice! + system! + irq! + softirq!;
  const stat = pid ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  const own = stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ') : [];
  // Fields 14 and 15 of /proc/<pid>/stat, user and system time; the name before ')' may hold spaces.
  const proc = own.length ? Number(own[11]) + Number(own[12]) : 0;
  const tick = 1000 / CLOCK_TICKS;
  return { machine: machine * tick, process: proc * tick };
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU time a request took, µs: in the process watched (all its threads), and on the whole machine (load generator, database server and all). */
  cpu_us: { process: number; machine: number };
}

/** Loads url; reads first get an unrecorded warm-up (the JIT and the caches), as the baseline does. */
async function load(url: string, opts: Partial<autocannon.Options> = {}, warm = true, pid?: number, seconds = SECONDS): Promise<Load> {
  if (warm && WARMUP_SECONDS > 0) await autocannon({ url, connections: CONNECTIONS, duration: WARMUP_SECONDS, ...opts });
  const before = cpuMs(pid);
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, ...opts });
  const after = cpuMs(pid);
  const per = (ms: number) => Math.round((ms * 1000) / Math.max(1, r.requests.total));
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
    cpu_us: { process: per(after.process - before.process), machine: per(after.machine - before.machine) },
  };
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      const m = pattern.exec(buf);
      if (m) {
        child.stdout?.off('data', onData);
        resolve(m[0]);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`process exited (${code}) before printing ${pattern}`)));
  });
}

/**
 * The yardstick, a bare Fastify hello-world, runs for the whole benchmark and is measured right
 * before each scenario: this shared VM's speed drifts by half within minutes (36,000 and 80,000
 * req/s at the two ends of one run), so a ratio is only fair to a baseline taken next to it.
 */
interface Yardstick {
  measure(): Promise<number>;
  /** The baseline's answer after `us` microseconds of work on its thread (of `bytes` bytes when given). */
  measureWork(us: number, bytes?: number): Promise<number>;
  /** The same, loaded for `seconds`: its throughput and latencies. */
  measureWorkLatency(us: number, seconds: number): Promise<CurvePoint>;
  stop(): void;
}

async function startBaseline(): Promise<Yardstick> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', `${ROOT}bench/baseline.ts`, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await waitForLine(child, /ready \d+/);
  // Not left behind if a scenario throws.
  process.once('exit', () => child.kill('SIGTERM'));
  return {
    async measure() {
      const r = await load(`http://127.0.0.1:${port}/`);
      log(`baseline: ${Math.round(r.rps)} req/s`);
      return r.rps;
    },
    async measureWork(us, bytes) {
      const r = await load(`http://127.0.0.1:${port}/work/${us}${bytes ? `?bytes=${bytes}` : ''}`);
      log(`baseline with ${us} µs of work a request${bytes ? `, ${bytes} bytes an answer` : ''}: ${Math.round(r.rps)} req/s`);
      return r.rps;
    },
    async measureWorkLatency(us, seconds) {
      const r = await load(`http://127.0.0.1:${port}/work/${us}`, {}, true, undefined, seconds);
      log(`baseline with ${us} µs of work a request: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms`);
      return { work_us: us, rps: Math.round(r.rps), p50_ms: r.p50, p99_ms: r.p99 };
    },
    stop: () => child.kill('SIGTERM'),
  };
}

/** bench/floor.ts over the database the service uses: the storage's share of a request. */
async function startFloor(accountId: string, where: string, secret: string): Promise<{ url: string; pid: number; stop(): void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', `${ROOT}bench/floor.ts`, String(port), accountId, where], {
    env: { ...process.env, GUESTSCREEN_SECRET: secret },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await waitForLine(child, /ready \d+/);
  process.once('exit', () => child.kill('SIGTERM'));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

/** Runs `guestscreen worker` until no job is queued or running; the time it took, ms. */
async function drainQueue(env: Record<string, string>, run: (args: string[]) => string): Promise<number> {
  const started = performance.now();
  const worker = spawn(process.execPath, [CLI, 'worker'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
  try {
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      const jobs = JSON.parse(run(['jobs', 'list', '--json'])) as { state: string }[];
      if (!jobs.some((j) => j.state === 'available' || j.state === 'running')) return performance.now() - started;
    }
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
  }
}

async function runOn(db: 'sqlite' | 'postgres', yardstick: Yardstick) {
  const baseline = () => yardstick.measure();
  const { env, cleanup } = await createIsolatedEnv({
    LOG_LEVEL: 'warn',
    GUESTSCREEN_ROOT_KEY: generateApiKey(),
    GUESTSCREEN_RATE_LIMIT_PER_MINUTE: '0',
    ...(db === 'postgres' ? {} : { DATABASE_URL: '' }),
  });
  if (db === 'sqlite') delete env.DATABASE_URL;
  const run = (args: string[]) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`guestscreen ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  };
  log(`${db}: seeding ${RESERVATIONS} reservations in one account and 100 others`);
  // Unscreened: the service is measured at rest, not beside a backlog of 100,000 screenings.
  const seeded = JSON.parse(run(['demo', '--accounts', '101', '--reservations', String(RESERVATIONS), '--per-account', '20', '--unscreened', '--json'])) as {
    accounts: { id: string; api_key: string }[];
  };
  // The bundled lists' install queued their re-screen of every stay: a dedicated worker runs it first.
  const drained = await drainQueue(env, run);
  log(`${db}: the seed's queued jobs ran in ${Math.round(drained / 1000)} s`);
  const key = seeded.accounts[0]!.api_key;
  const floor = await startFloor(seeded.accounts[0]!.id, env.DATABASE_URL ?? `${env.GUESTSCREEN_DATA_DIR}/guestscreen.db`, env.GUESTSCREEN_SECRET!);

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const service = spawn(process.execPath, [...shebangFlags(CLI), CLI, 'start'], { env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'ignore' });
  let coldStartMs = 0;
  for (;;) {
    try {
      const r = await fetch(`${base}/v1/accounts/me`, { headers: { 'x-api-key': key } });
      if (r.status === 200) {
        coldStartMs = Math.round(performance.now() - started);
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  log(`${db}: cold start ${coldStartMs} ms`);

  const headers = { 'x-api-key': key };
  const page = (await (await fetch(`${base}/v1/reservations?size=100`, { headers })).json()) as { items: { id: string; guest: { last_name: string } }[] };
  const ids = page.items.map((i) => i.id);
  const terms = [...new Set(page.items.map((i) => i.guest.last_name.slice(0, 4).toLowerCase()).filter((t) => t.length >= 3))];
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;
  const figures: Figure[] = [];
  /** Measures the baseline, then the scenario against the service, then (given floor) the same requests against bench/floor.ts. */
  const record = async (name: string, run: (url: string, prefix: string, pid: number) => Promise<Load>, withFloor = false, keyed = false) => {
    const baselineRps = await baseline();
    const r = await run(base, '', service.pid!);
    if (r.errors || r.non2xx) log(`${db} ${name}: ${r.errors} errors, ${r.non2xx} non-2xx answers`);
    const ratio = (rps: number) => Math.round((rps / baselineRps) * 1000) / 1000;
    const f: Figure = { name, db, rps: Math.round(r.rps), p50_ms: r.p50, p99_ms: r.p99, ratio: ratio(r.rps), baseline_rps: Math.round(baselineRps), cpu_us: r.cpu_us };
    log(
      `${db} ${name}: ${f.rps} req/s, p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms, ${(f.ratio * 100).toFixed(1)}% of the baseline just before; CPU a request ${r.cpu_us.process} µs in the service, ${r.cpu_us.machine} µs on the machine; service's peak RSS so far ${peakRssMb(service.pid!)} MB`,
    );
    if (withFloor) {
      const onFloor = async (prefix: string, label: string) => {
        const fl = await run(floor.url, prefix, floor.pid);
        if (fl.errors || fl.non2xx) throw new Error(`${label} failed ${name}: ${fl.errors} errors, ${fl.non2xx} non-2xx answers`);
        log(`${db} ${name} on ${label}: ${Math.round(fl.rps)} req/s, p50 ${fl.p50} ms, p99 ${fl.p99} ms, ${((fl.rps / baselineRps) * 100).toFixed(1)}% of the baseline`);
        return { rps: Math.round(fl.rps), p50_ms: fl.p50, p99_ms: fl.p99, ratio: ratio(fl.rps), cpu_us: fl.cpu_us };
      };
      f.floor = await onFloor('', 'the floor route');
      if (keyed) f.floor_keyed = await onFloor('/keyed', 'the floor route with key and decryption');
    }
    figures.push(f);
  };

  await record('me', (url, _, pid) => load(`${url}/v1/accounts/me`, { headers }, true, pid));
  await record(
    'get_reservation',
    (url, prefix, pid) => load(url, { headers, requests: [{ setupRequest: (req) => ({ ...req, path: `${prefix}/v1/reservations/${pick(ids)}` }) }] }, true, pid),
    true,
    true,
  );
  await record(
    'search_text',
    (url, _, pid) => load(url, { headers, requests: [{ setupRequest: (req) => ({ ...req, path: `/v1/reservations?search=${encodeURIComponent(pick(terms))}` }) }] }, true, pid),
    true,
  );
  await record(
    'search_filtered',
    (url, _, pid) =>
      load(
        url,
        {
          headers,
          requests: [
            {
              setupRequest: (req) => ({
                ...req,
                path: `/v1/reservations?status=CONFIRMED&source=${pick(['Airbnb', 'Vrbo', 'Direct'])}&startDate=2026-01-01&endDate=2026-06-30&from=${pick([0, 20, 40])}&size=20`,
              }),
            },
          ],
        },
        true,
        pid,
      ),
    true,
  );
  floor.stop();
  // The least a page of results costs, part by part, while the service is idle (bench/bounds.ts).
  const where = env.DATABASE_URL ?? `${env.GUESTSCREEN_DATA_DIR}/guestscreen.db`;
  const bounds = await measureBounds(where, seeded.accounts[0]!.id, env.GUESTSCREEN_SECRET!, terms);
  for (const b of bounds) log(`${db} ${b.scenario}: the least a page costs is ${b.total_us} µs (${JSON.stringify(b.parts)})`);
  // The most a read by id can answer: the baseline doing, per request, the least work that read adds.
  let getCeiling: GetCeiling | undefined;
  if (db === 'sqlite') {
    const bound = measureGetBound(where, seeded.accounts[0]!.id, env.GUESTSCREEN_SECRET!, key, ids);
    const baselineRps = await baseline();
    const rps = await yardstick.measureWork(bound.total_us);
    // The same work, answering as many bytes as the read by id does: its whole least cost.
    const answerRps = await yardstick.measureWork(bound.total_us, bound.answer_bytes);
    const ratio = (x: number) => Math.round((x / baselineRps) * 1000) / 1000;
    getCeiling = {
      ...bound,
      rps: Math.round(rps),
      baseline_rps: Math.round(baselineRps),
      ratio: ratio(rps),
      rps_with_answer: Math.round(answerRps),
      ratio_with_answer: ratio(answerRps),
    };
    log(
      `${db} get_reservation: the least work it adds is ${bound.total_us} µs (${JSON.stringify(bound.parts)}); with it the baseline answers ${getCeiling.rps} req/s, ${(getCeiling.ratio * 100).toFixed(1)}% of itself, ` +
        `and ${getCeiling.rps_with_answer} req/s, ${(getCeiling.ratio_with_answer * 100).toFixed(1)}%, with an answer of ${bound.answer_bytes} bytes`,
    );
  }
  let n = 0;
  await record('create', (url, _, pid) =>
    load(
      `${url}/v1/reservations`,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({
                confirmation_code: `BENCH-${process.pid}-${n++}`,
                check_in_date: '2027-02-01',
                check_out_date: '2027-02-04',
                total_price: 420,
                guest: { first_name: 'Bench', last_name: `Guest ${n}`, email: `bench${n}@gmail.com` },
              }),
            }),
          },
        ],
      },
      false,
      pid,
    ),
  );
  const peak = peakRssMb(service.pid!);
  service.kill('SIGTERM');
  await new Promise((r) => service.once('exit', r));

  // Screening throughput: the creates above left a backlog of screening runs; one worker drains it.
  log(`${db}: one worker drains the screening runs the creates left`);
  const screening = await drainScreening(env);
  await cleanup();
  return { figures, bounds, getCeiling, coldStartMs, peakRssMb: peak, screeningPerS: screening.screeningPerS, jobsPerS: screening.jobsPerS };
}

/** The least work a read by id adds (bench/bounds.ts), and what the baseline answers with that work added. */
interface GetCeiling extends GetBound {
  rps: number;
  baseline_rps: number;
  ratio: number;
  /** With an answer as long as the read by id's. */
  rps_with_answer: number;
  ratio_with_answer: number;
}

/** Runs one `guestscreen worker` against the screening backlog and measures runs finished per second. */
async function drainScreening(env: Record<string, string>): Promise<{ screeningPerS: number; jobsPerS: number }> {
  const { createDeps } = await import('../src/runtime.js');
  const { loadConfig } = await import('../src/config.js');
  const deps = createDeps(loadConfig(env));
  const count = async () =>
    Number(
      (
        await deps.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('kind', '=', 'screening.run')
          .executeTakeFirstOrThrow()
      ).n,
    );
  const runs = async () =>
    Number(
      (
        await deps.db
          .selectFrom('screening_runs')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const total = await count();
  const before = await runs();
  const jobsBefore = Number(
    (
      await deps.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  const worker = spawn(process.execPath, [CLI, 'worker'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
  const started = performance.now();
  while ((await count()) > 0 && performance.now() - started < 300_000) await new Promise((r) => setTimeout(r, 100));
  const seconds = (performance.now() - started) / 1000;
  const done = (await runs()) - before;
  const jobsDone =
    jobsBefore -
    Number(
      (
        await deps.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  worker.kill('SIGTERM');
  await new Promise((r) => worker.once('exit', r));
  await deps.database.close();
  // The backlog also holds the guest messages the creates queued; the worker sends those too.
  log(`screened ${done} of ${total} in ${seconds.toFixed(1)} s, ${jobsDone} jobs in all (screening runs and guest messages)`);
  return { screeningPerS: Math.round(done / seconds), jobsPerS: Math.round(jobsDone / seconds) };
}

/** The baseline answering after some work a request: its throughput and latencies with CONNECTIONS in flight. */
interface CurvePoint {
  work_us: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
}

/**
 * The least throughput at which the bare baseline, made slower by work a request, keeps its p99 at
 * `targetMs`: interpolated between the curve's points on either side of the target. Little's law
 * gives CONNECTIONS / target; a server with one event loop does worse, since about one request in
 * CONNECTIONS waits out two rounds of the others (docs/performance.md).
 */
function throughputForP99(curve: CurvePoint[], targetMs: number): { rps: number; bound: 'at' | 'above' | 'below' } {
  const points = [...curve].sort((a, b) => a.work_us - b.work_us);
  let last = -1;
  points.forEach((p, i) => p.p99_ms <= targetMs && (last = i));
  if (last === -1) return { rps: points[0]!.rps, bound: 'above' };
  if (last === points.length - 1) return { rps: points[last]!.rps, bound: 'below' };
  const [a, b] = [points[last]!, points[last + 1]!];
  return { rps: Math.round(a.rps + ((targetMs - a.p99_ms) * (b.rps - a.rps)) / (b.p99_ms - a.p99_ms)), bound: 'at' };
}

const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) throw new Error('build failed');
const yardstick = await startBaseline();
// What a p99 takes on this machine with this load generator: the baseline with more and more work a request.
const CURVE_WORK_US = [50, 100, 150, 200, 250, 300, 400, 500];
const p99Curve: CurvePoint[] = [];
for (const us of CURVE_WORK_US) p99Curve.push(await yardstick.measureWorkLatency(us, Math.min(SECONDS, 5)));
const results = [await runOn('sqlite', yardstick)];
if (process.env.DATABASE_URL) results.push(await runOn('postgres', yardstick));
yardstick.stop();
const figures = results.flatMap((r) => r.figures);
// Each ratio is to the baseline measured just before its scenario; this is their mean.
const baselineRps = figures.reduce((sum, f) => sum + f.baseline_rps, 0) / figures.length;

/**
 * `guestscreen --help` and `--version` as an operator runs them (the built command), the median
 * of 7 runs each, beside a bare `node -e ''` of the same machine: the target is half a second.
 */
function commandMs(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${r.status}`);
    times.push(performance.now() - started);
  }
  return Math.round(times.sort((a, b) => a - b)[3]!);
}
const commands = { help_ms: commandMs([...shebangFlags(CLI), CLI, '--help']), version_ms: commandMs([...shebangFlags(CLI), CLI, '--version']), bare_node_ms: commandMs(['-e', '']), target_ms: 500 };

const sqlite = results[0]!;
const P99_TARGETS_MS: Record<string, number> = { 'sqlite search_text': 25, 'sqlite search_filtered': 15, 'sqlite get_reservation': 10, 'postgres search_text': 40 };
const out = {
  date: new Date().toISOString(),
  machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  baseline_rps: Math.round(baselineRps),
  scenarios: figures,
  bounds: results.flatMap((r) => r.bounds),
  get_ceiling: sqlite.getCeiling,
  p99_curve: p99Curve,
  p99_needs: Object.fromEntries(
    Object.entries(P99_TARGETS_MS).map(([name, ms]) => [name, { target_ms: ms, little_rps: Math.ceil((CONNECTIONS * 1000) / ms), bare_rps: throughputForP99(p99Curve, ms) }]),
  ),
  screening_per_s: sqlite.screeningPerS,
  worker_jobs_per_s: sqlite.jobsPerS,
  cold_start_ms: sqlite.coldStartMs,
  peak_rss_mb: sqlite.peakRssMb,
  commands,
  ...(results[1] ? { postgres: { screening_per_s: results[1].screeningPerS, worker_jobs_per_s: results[1].jobsPerS, cold_start_ms: results[1].coldStartMs, peak_rss_mb: results[1].peakRssMb } } : {}),
};
writeFileSync(`${ROOT}bench/results.json`, `${JSON.stringify(out, null, 2)}\n`);

const pad = (s: string | number, n: number) => String(s).padStart(n);
process.stdout.write(`\nbaseline (bare Fastify), measured just before each scenario: ${out.baseline_rps} req/s on average, ${SECONDS} s per scenario, ${CONNECTIONS} connections\n\n`);
process.stdout.write(
  `${'scenario'.padEnd(18)}${'db'.padEnd(10)}${pad('req/s', 9)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('baseline', 10)}${pad('ratio', 9)}   floor route: ${pad('req/s', 7)}${pad('p99 ms', 8)}${pad('ratio', 8)}\n`,
);
for (const f of out.scenarios) {
  const fl = f.floor ? `${pad(f.floor.rps, 7)}${pad(f.floor.p99_ms, 8)}${pad(`${(f.floor.ratio * 100).toFixed(1)}%`, 8)}` : '';
  process.stdout.write(
    `${f.name.padEnd(18)}${f.db.padEnd(10)}${pad(f.rps, 9)}${pad(f.p50_ms, 9)}${pad(f.p99_ms, 9)}${pad(f.baseline_rps, 10)}${pad(`${(f.ratio * 100).toFixed(1)}%`, 9)}${fl ? `                ${fl}` : ''}\n`,
  );
}
for (const f of out.scenarios.filter((s) => s.floor_keyed)) {
  process.stdout.write(
    `${`${f.name} (floor + key + decryption)`.padEnd(67)}${pad(f.floor_keyed!.rps, 7)}${pad(f.floor_keyed!.p99_ms, 8)}${pad(`${(f.floor_keyed!.ratio * 100).toFixed(1)}%`, 8)}  ${f.db}\n`,
  );
}
process.stdout.write(
  '\nfloor route: bench/floor.ts, a bare Fastify route running the same SQL on the same data, no auth, decryption or view;\n+ key + decryption: the same read by id, plus hashing the API key and opening the sealed identification\n',
);
process.stdout.write(`\nthe bare baseline answering after some work a request (${CONNECTIONS} connections): the p99 a throughput comes with on this machine\n`);
process.stdout.write(`${pad('work µs', 8)}${pad('req/s', 9)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}\n`);
for (const p of p99Curve) process.stdout.write(`${pad(p.work_us, 8)}${pad(p.rps, 9)}${pad(p.p50_ms, 9)}${pad(p.p99_ms, 9)}\n`);
process.stdout.write(
  `\nCPU time a request took (µs; the machine's includes the load generator and the database server), and, for a p99 target, the least throughput it takes\n` +
    `(Little's law: ${CONNECTIONS} / target; bare: the baseline's curve above) and the cores that throughput takes at the machine's cost (this machine has ${cpus().length}):\n`,
);
process.stdout.write(
  `${'scenario'.padEnd(18)}${'db'.padEnd(10)}${pad('service', 9)}${pad('machine', 9)}${pad('floor svc', 11)}${pad('floor mach', 12)}${pad('p99 target', 12)}${pad('Little', 8)}${pad('bare', 8)}${pad('cores', 7)}\n`,
);
for (const f of out.scenarios) {
  const need = out.p99_needs[`${f.db} ${f.name}`];
  const bare = need ? `${need.bare_rps.bound === 'above' ? '>' : need.bare_rps.bound === 'below' ? '<' : ''}${need.bare_rps.rps}` : '';
  process.stdout.write(
    `${f.name.padEnd(18)}${f.db.padEnd(10)}${pad(f.cpu_us.process, 9)}${pad(f.cpu_us.machine, 9)}${pad(f.floor?.cpu_us.process ?? '', 11)}${pad(f.floor?.cpu_us.machine ?? '', 12)}` +
      `${pad(need ? `${need.target_ms} ms` : '', 12)}${pad(need?.little_rps ?? '', 8)}${pad(bare, 8)}${pad(need ? ((need.bare_rps.rps * f.cpu_us.machine) / 1e6).toFixed(2) : '', 7)}\n`,
  );
}
process.stdout.write(`\nthe least a page of 20 results costs, timed part by part on one thread (bench/bounds.ts), and the least mean latency that allows with ${CONNECTIONS} in flight:\n`);
process.stdout.write(
  `${'scenario'.padEnd(18)}${'db'.padEnd(10)}${pad('index µs', 10)}${pad('rows µs', 9)}${pad('views µs', 10)}${pad('json µs', 9)}${pad('total µs', 10)}${pad('one thread', 13)}${pad('two cores', 11)}\n`,
);
for (const b of out.bounds) {
  const ms = (v: number | null) => (v === null ? '-' : `${v} ms`);
  process.stdout.write(
    `${b.scenario.padEnd(18)}${b.db.padEnd(10)}${pad(b.parts.index, 10)}${pad(b.parts.rows, 9)}${pad(b.parts.views, 10)}${pad(b.parts.json, 9)}${pad(b.total_us, 10)}${pad(ms(b.mean_ms_one_thread), 13)}${pad(ms(b.mean_ms_two_cores), 11)}\n`,
  );
}
const c = out.get_ceiling;
if (c) {
  process.stdout.write(
    `\nthe least work a read by id adds to a bare route (bench/bounds.ts, SQLite): ${c.total_us} µs (key hash ${c.parts.key}, row ${c.parts.row}, view with the identification opened ${c.parts.view}, JSON ${c.parts.json});\n` +
      `the baseline doing that much work a request answers ${c.rps} req/s, ${(c.ratio * 100).toFixed(1)}% of the ${c.baseline_rps} it answers without;\n` +
      `with an answer of ${c.answer_bytes} bytes, as long as the read's, ${c.rps_with_answer} req/s, ${(c.ratio_with_answer * 100).toFixed(1)}%: the most get_reservation can reach (target 40%)\n`,
  );
}
process.stdout.write(
  `\nguestscreen --help ${commands.help_ms} ms, --version ${commands.version_ms} ms (target ${commands.target_ms} ms; a bare node -e '' ${commands.bare_node_ms} ms: ${(commands.help_ms / commands.bare_node_ms).toFixed(1)} × its time)\n`,
);
process.stdout.write(
  `\nscreening: ${out.screening_per_s} reservations/s (one worker; ${out.worker_jobs_per_s} jobs/s with the guest messages it also sent)\ncold start: ${out.cold_start_ms} ms with ${RESERVATIONS} reservations\npeak RSS: ${out.peak_rss_mb} MB${results[1] ? ` (PostgreSQL: ${results[1].peakRssMb} MB)` : ''}\n`,
);
