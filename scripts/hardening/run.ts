/**
 * The hardening suite: `npm run hardening` (full) or `npm run hardening -- --short` (CI), on
 * SQLite, or on PostgreSQL with DATABASE_URL. Prints each part's figures and the goals of
 * SECURITY.md, and exits 1 when one is missed. `--record` writes the figures to
 * bench/results/hardening-<database>.json.
 *
 *   authorization  every operation of the OpenAPI document × eight principals, against a table
 *   fuzz           requests generated from the OpenAPI schemas, then broken (fast-check)
 *   ssrf           URL forms that reach private ranges, through the guard and the API
 *   crash          kill -9 during writes, unanswered requests retried with their keys (scripts/durability.ts)
 *   erasure        a canary guest erased, then searched for in files, logs and tables
 *   slow           clients that trickle headers or bodies, and oversized ones
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createTestApp, dbKind } from '../../test/harness.js';
import { authorizationMatrix } from './authz.js';
import { erasureCanary } from './erasure.js';
import { fuzzRequests } from './fuzz.js';
import { slowClients } from './slow.js';
import { ssrfCorpus } from './ssrf.js';
import { buildWorld } from './world.js';

const { values } = parseArgs({ options: { short: { type: 'boolean', default: false }, record: { type: 'boolean', default: false }, seed: { type: 'string', default: '20' } } });
const short = values.short ?? false;
const size = short ? { fuzz: 2_000, cycles: 3, slow: 50 } : { fuzz: 100_000, cycles: 20, slow: 150 };
const seed = Number(values.seed);
const out = (line: string) => process.stdout.write(`[hardening ${dbKind}] ${line}\n`);
const goals: { goal: string; met: boolean; figure: string }[] = [];
const goal = (name: string, met: boolean, figure: string) => {
  goals.push({ goal: name, met, figure });
  out(`${met ? 'ok  ' : 'FAIL'} ${name}: ${figure}`);
};
const started = Date.now();
const figures: Record<string, unknown> = { database: dbKind, short, seed, at: new Date().toISOString() };

// One app with short sync waits, so a sync=1 request answers within the fuzzer's hang limit.
// No worker runs here: a one-off document read gives up after a moment instead of 30 s. The
// police systems are a closed local port: an establishment saved here is "not reached" at once.
const t = await createTestApp({
  GUESTSCREEN_SYNC_TIMEOUT_SECONDS: '1',
  GUESTSCREEN_IDENTITY_READ_WAIT_SECONDS: '0.2',
  GUESTSCREEN_SES_URL: 'http://127.0.0.1:9/ses',
  GUESTSCREEN_SES_TEST_URL: 'http://127.0.0.1:9/ses',
  GUESTSCREEN_ALLOGGIATI_URL: 'http://127.0.0.1:9/alloggiati',
  GUESTSCREEN_SIBA_URL: 'http://127.0.0.1:9/siba',
  GUESTSCREEN_SIBA_TEST_URL: 'http://127.0.0.1:9/siba',
});
try {
  const world = await buildWorld(t);
  const authz = await authorizationMatrix(world);
  figures.authorization = authz;
  goal('authorization matrix as the table says', authz.mismatches.length === 0, `${authz.matched} of ${authz.requests} requests (${authz.operations} operations × 8 principals)`);
  for (const m of authz.mismatches.slice(0, 10)) out(`  ${m}`);
  goal('0 cross-tenant answers', authz.crossTenant === 0, String(authz.crossTenant));

  const ssrf = await ssrfCorpus(world);
  figures.ssrf = ssrf;
  goal(
    '0 connections to refused ranges',
    ssrf.connections === 0 && ssrf.leaks.length === 0 && ssrf.rebindingRefused,
    `${ssrf.forms} URL forms, ${ssrf.refusedByGuard} refused by the guard, ${ssrf.refusedAtRegistration} refused as webhook URLs, rebinding refused: ${ssrf.rebindingRefused}, ${ssrf.connections} connections`,
  );
  for (const l of ssrf.leaks.slice(0, 10)) out(`  ${l}`);

  const fuzzStart = Date.now();
  const fuzz = await fuzzRequests(world, size.fuzz, seed);
  figures.fuzz = { ...fuzz, seconds: Math.round((Date.now() - fuzzStart) / 1000) };
  goal(
    '0 unexpected 5xx, 0 hangs under fuzzing',
    fuzz.unexpected5xx === 0 && fuzz.hangs === 0,
    `${fuzz.requests} requests, ${fuzz.unexpected5xx} unexpected 5xx, ${fuzz.hangs} hangs, ${fuzz.providerErrors} lookups without a provider (500 by design); ${JSON.stringify(fuzz.byStatus)}`,
  );
  for (const e of fuzz.examples.slice(0, 10)) out(`  ${e.slice(0, 300)}`);
} finally {
  await t.close();
}

const slowApp = await createTestApp({ GUESTSCREEN_HEADERS_TIMEOUT_SECONDS: '2', GUESTSCREEN_REQUEST_TIMEOUT_SECONDS: '4' });
try {
  const slow = await slowClients(slowApp, size.slow);
  figures.slow = slow;
  goal(
    'every slow client cut off within the configured timeouts',
    slow.slowHeaderCutInTime === slow.slowHeaderConnections && slow.slowBodyCutInTime === slow.slowBodyConnections,
    `headers ${slow.slowHeaderCutInTime}/${slow.slowHeaderConnections} within ${slow.headersTimeoutMs} ms, bodies ${slow.slowBodyCutInTime}/${slow.slowBodyConnections} within ${slow.requestTimeoutMs} ms (+1.5 s for Node's once-a-second check), longest ${slow.longestMs} ms`,
  );
  goal(
    'oversized headers 431, oversized bodies a readable 413',
    slow.oversizedHeader431 && slow.oversizedBody413Readable === slow.oversizedBodyTries,
    `431: ${slow.oversizedHeader431}, 413 read by ${slow.oversizedBody413Readable} of ${slow.oversizedBodyTries} clients that sent 8 MiB first`,
  );
} finally {
  await slowApp.close();
}

const erasure = await erasureCanary();
figures.erasure = erasure;
goal(
  '0 canary hits after erasure',
  erasure.after.length === 0 && erasure.before.length > 0,
  `found before in ${erasure.before.length} places (${erasure.before.join(', ')}); after: ${erasure.after.length ? erasure.after.join(', ') : 'nowhere'} (${erasure.filesSearched} files, ${erasure.tablesSearched} tables, ${erasure.logLines} log lines)`,
);

const crash = await killRun(size.cycles);
figures.crash = crash;
goal(`0 duplicates and 0 losses over ${size.cycles} crash cycles`, crash.passed && crash.duplicates === 0 && crash.losses === 0, crash.summary);

figures.goals = goals;
figures.seconds = Math.round((Date.now() - started) / 1000);
if (values.record) {
  const dir = fileURLToPath(new URL('../../bench/results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}hardening-${dbKind}.json`, `${JSON.stringify(figures, null, 2)}\n`);
}
const missed = goals.filter((g) => !g.met).length;
out(`${goals.length - missed} of ${goals.length} goals met in ${figures.seconds} s`);
process.exit(missed === 0 ? 0 : 1);

/** scripts/durability.ts as a child, its figures read off its last lines. */
async function killRun(cycles: number): Promise<{ passed: boolean; duplicates: number; losses: number; summary: string }> {
  const script = fileURLToPath(new URL('../durability.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, '--cycles', String(cycles)], { env: process.env, stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  child.stdout.on('data', (d: Buffer) => (text += d.toString()));
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  const line = /(\d+) reservations acknowledged across (\d+) kill -9 restarts, (\d+) requests retried[^;]*; (\d+) applied twice, (\d+) lost/.exec(text);
  return {
    passed: code === 0,
    duplicates: Number(line?.[4] ?? -1),
    losses: Number(line?.[5] ?? -1),
    summary: line
      ? `${line[1]} acknowledged, ${line[3]} retried after going unanswered, ${line[2]} kill -9 restarts: ${line[4]} applied twice, ${line[5]} lost`
      : `durability run failed: ${text.slice(-500)}`,
  };
}
