import type { FastifyInstance, InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { buildApp, type BuildOptions } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Deps } from '../src/deps.js';
import { newId } from '../src/lib/ids.js';
import { findAccount } from '../src/modules/accounts/repo.js';
import { createAccount, toAccountView, type AccountRow } from '../src/modules/accounts/service.js';
import { createDeps, prepare } from '../src/runtime.js';

/**
 * The suite runs on SQLite by default and on PostgreSQL when DATABASE_URL is set; each test
 * app gets its own SQLite file or its own PostgreSQL schema, so files run in parallel.
 */
export const databaseUrl = process.env.DATABASE_URL;
export const dbKind = databaseUrl ? 'postgres' : 'sqlite';

export interface TestApp {
  app: FastifyInstance;
  deps: Deps;
  root: Tenant;
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface Tenant {
  account: AccountRow;
  key: string;
}

export async function createIsolatedEnv(extra: Record<string, string> = {}): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'guestscreen-test-'));
  const env: Record<string, string> = {
    GUESTSCREEN_DATA_DIR: dataDir,
    GUESTSCREEN_SECRET: 'test-secret-that-is-long-enough-0123456789',
    GUESTSCREEN_PUBLIC_URL: 'http://guestscreen.test',
    GUESTSCREEN_RATE_LIMIT_PER_MINUTE: '0',
    GUESTSCREEN_AUTH_FAILURES_PER_MINUTE: '0',
    // Tests deliver to receivers on 127.0.0.1; the guard's refusals have tests of their own.
    GUESTSCREEN_ALLOW_PRIVATE_TARGETS: 'true',
    // RDAP is on by default and asks IANA; tests never leave the machine (provider tests point it at a local server).
    GUESTSCREEN_RDAP_ENABLED: 'false',
    // A verdict's e-mail waits for the screening to settle: a second here, not a minute.
    GUESTSCREEN_ALERT_SETTLE_SECONDS: '1',
    LOG_LEVEL: 'silent',
    ...extra,
  };
  let schema: string | undefined;
  if (databaseUrl) {
    schema = `t_${newId('job').slice(4)}`;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`create schema ${schema}`);
    await client.end();
    const url = new URL(databaseUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    env.DATABASE_URL = url.toString();
  }
  return {
    env,
    async cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
      if (schema && databaseUrl) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`drop schema ${schema} cascade`);
        await client.end();
      }
    },
  };
}

export async function createTestApp(extraEnv: Record<string, string> = {}, opts: BuildOptions = {}): Promise<TestApp> {
  const { env, cleanup } = await createIsolatedEnv(extraEnv);
  const deps = createDeps(loadConfig(env));
  const { rootKey, rootId } = await prepare(deps);
  const rootAccount = await findAccount(deps.db, rootId);
  if (!rootAccount || !rootKey) throw new Error('the test database was not empty');
  const app = await buildApp(deps, { logger: false, ...opts });
  return {
    app,
    deps,
    env,
    root: { account: rootAccount, key: rootKey },
    async close() {
      await app.close();
      await deps.database.close();
      await cleanup();
    },
  };
}

/** A test app with a job worker running in it, as `guestscreen start` has; stops both on close. */
export async function createTestAppWithWorker(extraEnv: Record<string, string> = {}): Promise<TestApp> {
  const t = await createTestApp(extraEnv);
  const { startWorker } = await import('../src/runtime.js');
  const worker = startWorker(t.deps);
  const close = t.close;
  return {
    ...t,
    async close() {
      await worker.stop();
      await close();
    },
  };
}

/** A TCP port that was free a moment ago, for a child process to listen on. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const srv = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => srv.once('listening', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** The app over an existing test environment (one the CLI wrote to), closed with its database. */
export async function openApp(env: Record<string, string>): Promise<FastifyInstance> {
  const deps = createDeps(loadConfig(env));
  return buildApp(deps, { logger: false, configure: (app) => app.addHook('onClose', async () => deps.database.close()) });
}

let counter = 0;

/** A fresh account for one test: a child of the given parent (the test root by default). */
export async function tenant(t: TestApp, opts: { reseller?: boolean; parent?: Tenant; name?: string } = {}): Promise<Tenant> {
  counter += 1;
  const name = opts.name ?? `Tenant ${counter}`;
  const { account, apiKey } = await createAccount(
    t.deps,
    t.deps.db,
    {
      parent: (opts.parent ?? t.root).account,
      name,
      email: `tenant${counter}@example.test`,
      isReseller: opts.reseller ?? false,
    },
    null,
  );
  return { account, key: apiKey };
}

export interface Answer {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  body: string;
  headers: Record<string, string | string[] | number | undefined>;
}

export async function call(
  t: TestApp,
  method: InjectOptions['method'],
  url: string,
  opts: { key?: string | undefined; body?: unknown; headers?: Record<string, string>; rawBody?: string | Buffer } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers['x-api-key'] = opts.key;
  const res = await t.app.inject({
    method,
    url,
    headers,
    ...(opts.rawBody !== undefined ? { payload: opts.rawBody } : opts.body !== undefined ? { payload: opts.body as object } : {}),
  });
  let json: unknown;
  try {
    json = res.json();
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json, body: res.body, headers: res.headers };
}

export { toAccountView };

/** A multipart/form-data body of file parts, and its content-type header. */
export function multipartBody(parts: { name: string; filename: string; type: string; data: Buffer }[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----gs${Math.random().toString(36).slice(2)}`;
  const chunks = parts.flatMap((p) => [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type}\r\n\r\n`),
    p.data,
    Buffer.from('\r\n'),
  ]);
  return { payload: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Sets the account's default guest-portal screens (each required, optional or disabled; the rest as the settings default them). */
export function setPortalScreens(t: TestApp, key: string, screens: Record<string, string>) {
  return call(t, 'PUT', '/v1/accounts/settings/guest-portal-screens/guest_portal_screens_default', {
    key,
    body: { config_key: 'guest_portal_screens_default', config_data: [{ guest_portal_screens: screens }] },
  });
}

export interface Received {
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Decodes a quoted-printable e-mail body: soft line breaks, then the UTF-8 bytes written as =XX. */
export const decodeQuotedPrintable = (text: string) =>
  Buffer.from(
    text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

/** The messages in the outbox (where mail goes without SMTP) now, to tell the ones written after. */
export function mailSince(t: TestApp): Set<string> {
  const outbox = path.join(t.deps.config.dataDir, 'outbox');
  return new Set(existsSync(outbox) ? readdirSync(outbox) : []);
}

/** The token of the first console link of this kind (an invitation, a password reset) in the mail written since `before`. */
export function linkInNewMail(t: TestApp, before: Set<string>, kind: 'invitation' | 'reset'): string | undefined {
  const outbox = path.join(t.deps.config.dataDir, 'outbox');
  for (const file of existsSync(outbox) ? readdirSync(outbox).filter((f) => !before.has(f)) : []) {
    const token = new RegExp(`/console/${kind}/([A-Za-z0-9_-]+)`).exec(decodeQuotedPrintable(readFileSync(path.join(outbox, file), 'utf8')))?.[1];
    if (token) return token;
  }
  return undefined;
}

/** A real SMTP server on 127.0.0.1 that records every mail: its recipients and its raw data. */
export async function startSmtp() {
  const mails: { to: string; data: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, cb) {
      let data = '';
      stream.on('data', (c: Buffer) => (data += c.toString()));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), data });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as { port: number }).port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A real HTTP receiver on 127.0.0.1 that records requests and answers with `respond`. */
export async function startReceiver(respond: (req: Received, n: number) => { status: number; body?: string; headers?: Record<string, string> } = () => ({ status: 200 }), delayMs = 0) {
  const { createServer } = await import('node:http');
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const r = { url: req.url ?? '/', headers: req.headers, body };
      received.push(r);
      const answer = respond(r, received.length);
      setTimeout(() => res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? ''), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls until the condition holds (what a person would do: look again shortly). */
export async function eventually<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A raw TCP connection to a listening app: `feed` writes to it; resolves with all the server
 * sent and how long the connection lasted. `readAfterMs` leaves the answer unread that long, as
 * a client that sends its whole request before reading does.
 */
export function rawConnection(port: number, feed: (s: Socket) => void, readAfterMs = 0): Promise<{ text: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const s = connect(port, '127.0.0.1');
    let text = '';
    if (readAfterMs) {
      s.pause();
      setTimeout(() => s.resume(), readAfterMs);
    }
    s.on('data', (d: Buffer) => (text += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => resolve({ text, ms: Date.now() - started }));
    feed(s);
  });
}

/** Posts a body of `size` bytes (chunked or with its length) before reading the answer: what the server sent. */
export async function postOversized(port: number, key: string, size: number, chunked: boolean): Promise<string> {
  const { text } = await rawConnection(
    port,
    (s) => {
      s.write(`POST /v1/reservations HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\n${chunked ? 'transfer-encoding: chunked' : `content-length: ${size}`}\r\n\r\n`);
      const piece = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < size) {
          sent += piece.length;
          if (!s.write(chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece)) return void s.once('drain', pump);
        }
        if (chunked) s.end('0\r\n\r\n');
        else s.end();
      };
      pump();
    },
    300,
  );
  return text;
}

/** Every row of every table in the test database, as text (blobs as latin1), to look for a value in. */
export async function everyRowAsText(deps: Deps): Promise<Map<string, string>> {
  const tables =
    deps.dialect.kind === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(deps.db)).rows.map((r) => r.name)
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(deps.db)).rows.map((r) => r.name);
  const out = new Map<string, string>();
  for (const table of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(deps.db)).rows;
    out.set(
      table,
      rows
        .map((row) =>
          Object.values(row)
            .map((v) => (Buffer.isBuffer(v) || v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : String(v)))
            .join('|'),
        )
        .join('\n'),
    );
  }
  return out;
}
