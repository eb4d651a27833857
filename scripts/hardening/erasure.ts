/**
 * Erasure, end to end on the real command: `guestscreen start` at LOG_LEVEL=info, a guest with
 * a canary in every field, the portal (an upload), notes, a payment, webhooks and the outbox
 * invitation; then DELETE, a stop, and a search for the canary in every file of the data
 * directory (database, WAL, outbox), in the service's logs, and in every row of every table.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { generateApiKey } from '../../src/lib/api-keys.js';
import { createDeps } from '../../src/runtime.js';
import { createIsolatedEnv, everyRowAsText, freePort, startReceiver } from '../../test/harness.js';

export interface ErasureFigures {
  canary: string;
  /** Places the canary was found before the erasure (so the search can find it). */
  before: string[];
  /** Places it is still found after. */
  after: string[];
  filesSearched: number;
  logLines: number;
  tablesSearched: number;
}

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

export async function erasureCanary(): Promise<ErasureFigures> {
  const canary = `Qzv${randomBytes(4).toString('hex')}`;
  const receiver = await startReceiver();
  const { env, cleanup } = await createIsolatedEnv({ LOG_LEVEL: 'info', GUESTSCREEN_ROOT_KEY: generateApiKey() });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const key = env.GUESTSCREEN_ROOT_KEY as string;
  const service = spawn(process.execPath, ['--import', 'tsx', CLI, 'start'], {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  service.stdout.on('data', (d: Buffer) => (logs += d.toString()));
  service.stderr.on('data', (d: Buffer) => (logs += d.toString()));
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, { method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const figures: ErasureFigures = { canary, before: [], after: [], filesSearched: 0, logLines: 0, tablesSearched: 0 };
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/readyz`)).ok) break;
      } catch {
        // not up yet
      }
      if (i > 300) throw new Error('the service did not start');
      await sleep(100);
    }
    for (const hook of ['reservation_webhook_url', 'screening_webhook_url', 'guest_portal_webhook_url', 'stargate_webhook_url']) {
      await api('POST', '/v1/accounts/webhooks', { webhook_key: hook, webhook_url: `${receiver.url}/hook` });
    }
    await api('PUT', '/v1/accounts/settings/guest-portal-screens/guest_portal_screens_default', {
      config_key: 'guest_portal_screens_default',
      config_data: [{ guest_portal_screens: { FileUpload: 'required' } }],
    });
    const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const r = await api('POST', '/v1/reservations?sync=1', {
      confirmation_code: `${canary}-CODE`,
      listing_nickname: `${canary} Cottage`,
      check_in_date: day(10),
      check_out_date: day(13),
      guest: { first_name: canary, last_name: `${canary}son`, email: `${canary.toLowerCase()}@example.test`, phone: '+44 7700 900123' },
      identification: { document_number: `${canary}DOC`, birth_date: '1988-01-01' },
    });
    await api('POST', `/v1/reservations/${r.id}/notes`, { text: `Called ${canary} about parking` });
    await api('POST', `/v1/reservations/${r.id}/payment-event`, {
      event_source: 'stripe',
      event_id: 'ch_1',
      event_type: 'charge',
      event_status: 'succeeded',
      billing_name: canary,
      name_on_card: canary,
    });
    const form = new FormData();
    form.append('action', 'save');
    form.append('document', new Blob([Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(`% ${canary}\n`.repeat(10))])], { type: 'application/pdf' }), `${canary}-passport.pdf`);
    const portal = new URL(r.guest_portal_url as string).pathname;
    const upload = await fetch(`${base}${portal}/step/FileUpload`, { method: 'POST', body: form, redirect: 'manual' });
    if (upload.status !== 303) throw new Error(`portal upload answered ${upload.status}`);
    await fetch(`${base}${portal}/submit`, { method: 'POST', body: new FormData(), redirect: 'manual' });
    await api('GET', `/v1/reservations?search=${canary}`);
    // The invitation reaches the outbox, the webhooks their receiver.
    const outbox = path.join(env.GUESTSCREEN_DATA_DIR as string, 'outbox');
    for (let i = 0; i < 200 && !(safeList(outbox).length > 0 && receiver.received.length >= 4); i++) await sleep(100);
    figures.before = await search(canary, env, logs, false);

    await api('DELETE', `/v1/reservations/${r.id}`);
    // The outbox's copies go with a job five seconds later; the search index is merged by another.
    await sleep(8000);
    service.kill('SIGTERM');
    await once(service, 'exit');
    figures.after = await search(canary, env, logs, true, figures);
    figures.logLines = logs.split('\n').filter(Boolean).length;
  } finally {
    if (service.exitCode === null) service.kill('SIGKILL');
    await receiver.close();
    await cleanup();
  }
  return figures;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Where the canary is: files of the data directory (as UTF-8 and UTF-16), the logs, each table's rows. */
async function search(canary: string, env: Record<string, string>, logs: string, count: boolean, figures?: ErasureFigures): Promise<string[]> {
  const hits: string[] = [];
  const needles = [Buffer.from(canary.toLowerCase()), Buffer.from(canary.toLowerCase(), 'utf16le')];
  const files = filesUnder(env.GUESTSCREEN_DATA_DIR as string).filter((f) => !f.endsWith('secret.key'));
  for (const file of files) {
    const bytes = Buffer.from(readFileSync(file).toString('latin1').toLowerCase(), 'latin1');
    if (needles.some((n) => bytes.includes(n))) hits.push(`file ${path.basename(file)}`);
  }
  if (logs.toLowerCase().includes(canary.toLowerCase())) hits.push('service logs');
  const deps = createDeps(loadConfig(env));
  try {
    const tables = await everyRowAsText(deps);
    for (const [table, text] of tables) if (text.toLowerCase().includes(canary.toLowerCase())) hits.push(`table ${table}`);
    if (count && figures) {
      figures.filesSearched = files.length;
      figures.tablesSearched = tables.size;
    }
  } finally {
    await deps.database.close();
  }
  return hits;
}
