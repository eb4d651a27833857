/**
 * npm run bench:documents:memory: what reading identity documents adds to the peak memory of the
 * processes a user runs, `guestscreen serve` and `guestscreen worker` apart (the issue's target:
 * at most 200 MB to the worker, nothing to serve). Seeds an account, lets the worker screen it,
 * then sends every guest's document photos at once through the API, as a busy check-in morning
 * would, and waits until each is read. Each process's peak RSS (VmHWM) before the photos is
 * compared with its peak after. Writes bench/results/documents-memory.json.
 *
 *   npm run bench:documents:memory                 (24 documents, generated)
 *   DOCUMENTS_DIR=dir npm run bench:documents:memory   (the first DOCUMENTS photos of a set generate.ts made)
 *   TRACE=1 …                                      (the worker's log, its reading processes, and its RSS every 250 ms)
 *   SELFIES=1 …                                    (each guest sends a selfie too, a phone's 12 megapixels: the faces'
 *                                                   models load in the reading processes; documents-memory-selfies.json)
 *
 * The photos are sent as a phone takes them, 12 megapixels (4,000 pixels on the long side, JPEG
 * quality 88), scaled up from the generated ones (1,600 pixels): a reading's memory grows with the
 * photo, up to the reader's working size (2,400 pixels).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { generateApiKey } from '../../src/lib/api-keys.js';
import { createIsolatedEnv, freePort, multipartBody } from '../../test/harness.js';
import { peakRssMb, rssMb, shebangFlags } from '../processes.js';
import { generateDocuments, type GeneratedPhoto } from './generate.js';

const COUNT = Number(process.env.DOCUMENTS ?? 24);
const SELFIES = Boolean(process.env.SELFIES);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = `${ROOT}dist/cli.js`;
const log = (m: string) => process.stderr.write(`[documents memory] ${m}\n`);

/** A process's children: the worker's reading processes. */
const childrenOf = (pid: number) => readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The processes measured are the built ones, as a user runs them.
if (spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('build failed');

const dir = process.env.DOCUMENTS_DIR ?? mkdtempSync(path.join(tmpdir(), 'documents-memory-'));
const labels = path.join(dir, 'labels.json');
const all: GeneratedPhoto[] = existsSync(labels) ? JSON.parse(readFileSync(labels, 'utf8')) : (log(`generating ${COUNT} photos in ${dir}`), await generateDocuments(dir, COUNT, 5, { fronts: true }));
const photos = all.slice(0, COUNT);
const PHONE_SIDE = 4000;
/** A generated photo as a phone's camera would have taken it. */
async function asPhoneTakes(file: string): Promise<Buffer> {
  const image = sharp(readFileSync(file));
  const { width = 0, height = 0 } = await image.metadata();
  const scale = PHONE_SIDE / Math.max(width, height);
  return image
    .resize(Math.round(width * scale), Math.round(height * scale))
    .jpeg({ quality: 88 })
    .toBuffer();
}
const phone = new Map<string, Buffer>();
for (const p of photos) for (const file of [p.file, ...(p.front ? [p.front] : [])]) phone.set(file, await asPhoneTakes(file));
// The guests' selfie: a public-domain portrait (test/fixtures/faces/SOURCES.md), as a phone takes it.
const SELFIE = `${ROOT}test/fixtures/faces/collins.jpg`;
if (SELFIES) phone.set(SELFIE, await asPhoneTakes(SELFIE));

const { env, cleanup } = await createIsolatedEnv({ LOG_LEVEL: 'warn', GUESTSCREEN_ROOT_KEY: generateApiKey(), GUESTSCREEN_RATE_LIMIT_PER_MINUTE: '0' });
delete env.DATABASE_URL;
const childEnv = { PATH: process.env.PATH ?? '', ...env };
const cli = (args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { env: childEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`guestscreen ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
};
const flags = shebangFlags(CLI);
const children: ChildProcess[] = [];
const launch = (args: string[], extra: Record<string, string> = {}) => {
  const child = spawn(process.execPath, [...flags, CLI, ...args], { env: { ...childEnv, ...extra }, stdio: process.env.TRACE && args[0] === 'worker' ? ['ignore', 'ignore', 'inherit'] : 'ignore' });
  children.push(child);
  return child;
};
process.once('exit', () => children.forEach((c) => c.kill('SIGTERM')));

try {
  const seeded = JSON.parse(cli(['demo', '--accounts', '1', '--reservations', String(Math.max(COUNT, 50)), '--per-account', '0', '--json'])) as { accounts: { api_key: string }[] };
  const headers = { 'x-api-key': seeded.accounts[0]!.api_key };
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const serve = launch(['serve'], { PORT: String(port), HOST: '127.0.0.1' });
  const worker = launch(['worker']);
  for (;;) {
    const up = await fetch(`${base}/v1/accounts/me`, { headers })
      .then((r) => r.ok)
      .catch(() => false);
    if (up) break;
    await sleep(20);
  }
  // The seed's screenings run, and serve answers some reads, before the peaks are taken.
  const idle = async () => {
    for (;;) {
      await sleep(1000);
      const jobs = JSON.parse(cli(['jobs', 'list', '--json'])) as { state: string }[];
      if (!jobs.some((j) => j.state === 'available' || j.state === 'running')) return;
    }
  };
  await idle();
  const page = (await (await fetch(`${base}/v1/reservations?size=100`, { headers })).json()) as { items: { id: string }[] };
  for (let i = 0; i < 200; i++) await fetch(`${base}/v1/reservations/${page.items[i % page.items.length]!.id}`, { headers });
  const before = { serve: peakRssMb(serve.pid!), worker: peakRssMb(worker.pid!), worker_rss: rssMb(worker.pid!) };
  log(`before the photos: serve's peak ${before.serve} MB, the worker's ${before.worker} MB`);

  const started = performance.now();
  const trace: string[] = [];
  /** The reading processes' peaks, as last seen (a process leaves a while after its last read). */
  const readers = new Map<number, number>();
  let together = 0;
  const sampler = setInterval(() => {
    const own = rssMb(worker.pid!);
    let rss = own;
    for (const pid of childrenOf(worker.pid!)) {
      try {
        if (!readers.has(pid) && process.env.TRACE) log(`child ${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')}`);
        readers.set(pid, peakRssMb(pid));
        rss += rssMb(pid);
      } catch {
        // gone between the listing and the reading
      }
    }
    together = Math.max(together, rss);
    trace.push(`${Math.round(performance.now() - started)}:${own}+${rss - own}`);
  }, 250);
  // Every guest sends at once: an ID card its front and its back (the zone), the others their page.
  const sent = await Promise.all(
    photos.map(async (p, i) => {
      const jpeg = (file: string, name: string) => ({ name, filename: `${name}.jpg`, type: 'image/jpeg', data: phone.get(file)! });
      const parts = [...(p.truth.format === 'TD1' && p.front ? [jpeg(p.front, 'front'), jpeg(p.file, 'back')] : [jpeg(p.file, 'front')]), ...(SELFIES ? [jpeg(SELFIE, 'selfie')] : [])];
      const { payload, headers: h } = multipartBody(parts);
      const r = await fetch(`${base}/v1/reservations/${page.items[i]!.id}/identity-documents`, { method: 'POST', headers: { ...headers, ...h }, body: new Uint8Array(payload) });
      if (r.status !== 202) throw new Error(`upload ${p.id}: ${r.status} ${await r.text()}`);
      return ((await r.json()) as { id: string }).id;
    }),
  );
  const ms: number[] = [];
  let valid = 0;
  for (const id of sent) {
    for (;;) {
      const v = (await (await fetch(`${base}/v1/identity-verifications/${id}`, { headers })).json()) as { status: string; ms?: number; document?: { valid?: boolean } | null };
      if (v.status !== 'pending') {
        ms.push(v.ms ?? 0);
        if (v.document?.valid) valid++;
        break;
      }
      await sleep(250);
    }
  }
  const wall = Math.round(performance.now() - started);
  clearInterval(sampler);
  if (process.env.TRACE) log(`the worker's RSS and its reading processes' (ms:MB+MB): ${trace.join(' ')}`);
  await idle();
  const after = { serve: peakRssMb(serve.pid!), worker: peakRssMb(worker.pid!) };
  log(`after: serve's peak ${after.serve} MB, the worker's ${after.worker} MB; ${valid} of ${sent.length} zones valid in ${wall} ms`);
  const result = {
    date: new Date().toISOString(),
    machine: `${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 3).join(' ')}, Node ${process.version}`,
    documents: sent.length,
    photos: photos.reduce((n, p) => n + (p.truth.format === 'TD1' && p.front ? 2 : 1), 0),
    selfies: SELFIES ? sent.length : 0,
    photo_pixels: `${PHONE_SIDE} on the long side`,
    photos_mb: Math.round(([...phone].reduce((n, [file, b]) => n + (file === SELFIE ? b.length * (SELFIES ? sent.length : 0) : b.length), 0) / 2 ** 20) * 10) / 10,
    zones_valid: valid,
    seconds_to_read_all: Math.round(wall / 100) / 10,
    worker_peak_mb: { before: before.worker, after: after.worker, added: after.worker - before.worker },
    /** The peak of each reading process the worker started, and what they add to the worker at most: its own growth plus their peaks. */
    reading_processes_peak_mb: [...readers.values()],
    worker_with_reading_processes_added_mb: after.worker - before.worker + [...readers.values()].reduce((a, b) => a + b, 0),
    /** The most the worker and its reading processes held together at any sample (every 250 ms), against the worker's peak before. */
    worker_with_reading_processes_sampled_peak_mb: together,
    serve_peak_mb: { before: before.serve, after: after.serve, added: after.serve - before.serve },
    worker_rss_after_mb: rssMb(worker.pid!),
    // With selfies, face matching may add 300 MB more (the faces issue's target).
    target: { worker_with_reading_processes_added_mb: SELFIES ? 500 : 200, serve_added_mb: 0 },
  };
  writeFileSync(new URL(`../results/documents-memory${SELFIES ? '-selfies' : ''}.json`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  children.forEach((c) => c.kill('SIGTERM'));
  await Promise.all(children.filter((c) => c.exitCode === null).map((c) => new Promise((r) => c.once('exit', r))));
  await cleanup();
  if (!process.env.DOCUMENTS_DIR) rmSync(dir, { recursive: true, force: true });
}
