/**
 * The benchmark's third yardstick: what a page of search results costs at the least, timed part
 * by part in one process over the benchmark's data, with no HTTP at all, and what that cost
 * means with 50 requests in flight. By Little's law the mean latency of a closed loop of 50 is
 * 50 divided by the throughput, and a p99 is never under the mean: a page that needs C of CPU
 * time cannot have a p99 under 50 × C on one thread (better-sqlite3's calls are synchronous: the
 * thread that asks does all the work, as the service's did before its searches went to reader
 * threads), nor under 50 × C / 2 on two cores working perfectly in parallel with nothing else
 * running (the load generator runs there too).
 *
 * The parts, each the mean over the benchmark's search terms or filters:
 * - `index`: finding the matches and counting them. For text search on SQLite, the FTS5
 *   trigram match and its count alone, without the account check the service needs (each
 *   match's row looked up) and without ordering them: less than any query the service could
 *   send. On PostgreSQL and for the filtered search, the service's own count, timed by
 *   PostgreSQL (EXPLAIN ANALYZE: planning and execution).
 * - `rows`: the page's 20 rows, read by key (their view columns).
 * - `views`: the 20 views the API answers (each opens the sealed identification: DESIGN.md
 *   keeps identification documents encrypted at rest).
 * - `json`: the page as JSON.
 *
 *   node --import tsx bench/bounds.ts <account id> <sqlite file | postgres url>   (GUESTSCREEN_SECRET set)
 */
import { openSqliteFile } from '../src/db/sqlite/driver.js';
import pg from 'pg';
import { fileURLToPath } from 'node:url';
import { rowsOf } from '../src/db/sqlite/bind.js';
import { SEARCH_KEY_SEQ } from '../src/db/sqlite/search-index.js';
import { hashApiKey } from '../src/lib/api-keys.js';
import { SecretBox } from '../src/lib/secret-box.js';
import { VIEW_COLUMNS, type ReservationViewRow } from '../src/modules/bookings/index.js';
import { toReservationView } from '../src/modules/reservations/views.js';
import type { Deps } from '../src/deps.js';

export interface Bound {
  scenario: 'search_text' | 'search_filtered';
  db: 'sqlite' | 'postgres';
  /** Microseconds per page, each part on its own. */
  parts: { index: number; rows: number; views: number; json: number };
  total_us: number;
  /** The least mean latency with 50 in flight: with all of a page's work on one thread (SQLite), and over two cores. */
  mean_ms_one_thread: number | null;
  mean_ms_two_cores: number;
}

const CONNECTIONS = 50;
const PAGE = 20;
// As the service orders a search: undated reservations last (migration 0014).
const ORDER = 'order by check_in_date desc nulls last, id desc';
const FILTER = 'account_id = ? and status = ? and source = ? and check_in_date >= ? and check_in_date <= ?';
const FILTERS = ['Airbnb', 'Vrbo', 'Direct'].map((source) => ['CONFIRMED', source, '2026-01-01', '2026-06-30'] as const);

/** Mean microseconds of fn over the inputs, after a warm-up round. */
async function time<T>(inputs: T[], fn: (x: T) => unknown, rounds = 20): Promise<number> {
  for (const x of inputs) await fn(x);
  let total = 0;
  for (let r = 0; r < rounds; r++) {
    for (const x of inputs) {
      const t0 = process.hrtime.bigint();
      await fn(x);
      total += Number(process.hrtime.bigint() - t0) / 1000;
    }
  }
  return total / (rounds * inputs.length);
}

function bound(scenario: Bound['scenario'], db: Bound['db'], parts: Bound['parts']): Bound {
  const round = (n: number) => Math.round(n * 10) / 10;
  const total = parts.index + parts.rows + parts.views + parts.json;
  return {
    scenario,
    db,
    parts: { index: round(parts.index), rows: round(parts.rows), views: round(parts.views), json: round(parts.json) },
    total_us: round(total),
    mean_ms_one_thread: db === 'sqlite' ? round((CONNECTIONS * total) / 1000) : null,
    mean_ms_two_cores: round((CONNECTIONS * total) / 2 / 1000),
  };
}

/** Times the views and the JSON of the pages given, the same on either database. */
async function rendering(pages: ReservationViewRow[][], secret: string) {
  const deps = { secrets: new SecretBox(secret), config: { publicUrl: 'http://127.0.0.1' } } as unknown as Deps;
  const views = await time(pages, (rows) => rows.map((r) => toReservationView(deps, r)));
  const rendered = pages.map((rows) => rows.map((r) => toReservationView(deps, r)));
  const json = await time(rendered, (items) => JSON.stringify({ from: 0, size: PAGE, total: 1000, items }));
  return { views, json };
}

async function sqliteBounds(file: string, accountId: string, secret: string, terms: string[]): Promise<Bound[]> {
  const db = openSqliteFile(file, { readonly: true });
  try {
    const phrase = (t: string) => `"${t.toLowerCase().replaceAll('"', '""')}"`;
    const matchCount = db.prepare('select count(*) from reservations_fts where reservations_fts match ?').pluck();
    const firstMatches = db.prepare(`select ${SEARCH_KEY_SEQ} from reservations_fts where reservations_fts match ? order by rowid desc limit ${PAGE}`).pluck();
    // Read as the service reads rows (db/sqlite/bind.ts).
    const pageRows = rowsOf(db.prepare(`select ${VIEW_COLUMNS.join(', ')} from reservations where seq in (select value from json_each(?))`));
    const byKeys = { all: (keys: string) => pageRows.all([keys]) };
    const filteredCount = db.prepare(`select count(*) from reservations where ${FILTER}`).pluck();
    const filteredKeys = db.prepare(`select seq from reservations where ${FILTER} ${ORDER} limit ${PAGE}`).pluck();

    const textKeys = terms.map((t) => JSON.stringify(firstMatches.all(phrase(t))));
    const textPages = textKeys.map((k) => byKeys.all(k) as ReservationViewRow[]);
    const text = bound('search_text', 'sqlite', {
      index: await time(terms, (t) => matchCount.get(phrase(t))),
      rows: await time(textKeys, (k) => byKeys.all(k)),
      ...(await rendering(textPages, secret)),
    });

    const args = FILTERS.map((f) => [accountId, ...f] as const);
    const keys = args.map((a) => JSON.stringify(filteredKeys.all(...a)));
    const pages = keys.map((k) => byKeys.all(k) as ReservationViewRow[]);
    const filtered = bound('search_filtered', 'sqlite', {
      index: await time(args, (a) => filteredCount.get(...a), 200),
      rows: await time(keys, (k) => byKeys.all(k), 200),
      ...(await rendering(pages, secret)),
    });
    return [text, filtered];
  } finally {
    db.close();
  }
}

async function postgresBounds(url: string, accountId: string, secret: string, terms: string[]): Promise<Bound[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const numbered = (s: string) => {
      let i = 0;
      return s.replace(/\?/g, () => `$${++i}`);
    };
    /** PostgreSQL's own time for a statement: planning (searches are planned per call) and execution. */
    const serverMs = async (text: string, values: unknown[]) => {
      const r = await client.query<{ 'QUERY PLAN': [{ 'Planning Time': number; 'Execution Time': number }] }>(`explain (analyze, format json) ${numbered(text)}`, values);
      const plan = r.rows[0]!['QUERY PLAN'][0];
      return plan['Planning Time'] + plan['Execution Time'];
    };
    const serverUs = async <T>(inputs: T[], fn: (x: T) => Promise<number>, rounds: number) => {
      for (const x of inputs) await fn(x);
      let total = 0;
      for (let r = 0; r < rounds; r++) for (const x of inputs) total += await fn(x);
      return (total * 1000) / (rounds * inputs.length);
    };
    const like = (t: string) => `%${t.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const match = "account_id = ? and search_text like ? escape '\\'";
    const byKeys = numbered(`select ${VIEW_COLUMNS.join(', ')} from reservations where id = any(?)`);
    const keysOf = async (text: string, values: unknown[]) => (await client.query<{ id: string }>(numbered(text), values)).rows.map((r) => r.id);
    // One client answers one query at a time.
    const each = async <T, R>(xs: T[], fn: (x: T) => Promise<R>) => {
      const out: R[] = [];
      for (const x of xs) out.push(await fn(x));
      return out;
    };

    const textKeys = await each(terms, (t) => keysOf(`select id from reservations where ${match} ${ORDER} limit ${PAGE}`, [accountId, like(t)]));
    const textPages = await each(textKeys, async (k) => (await client.query<ReservationViewRow>(byKeys, [k])).rows);
    const text = bound('search_text', 'postgres', {
      // The scan and its count, which the service's one statement runs once (textSearchOnce).
      index: await serverUs(terms, (t) => serverMs(`select count(*) from reservations where ${match}`, [accountId, like(t)]), 3),
      rows: await serverUs(textKeys, (k) => serverMs(`select ${VIEW_COLUMNS.join(', ')} from reservations where id = any(?)`, [k]), 3),
      ...(await rendering(textPages, secret)),
    });

    const args = FILTERS.map((f) => [accountId, ...f]);
    const keys = await each(args, (a) => keysOf(`select id from reservations where ${FILTER} ${ORDER} limit ${PAGE}`, a));
    const pages = await each(keys, async (k) => (await client.query<ReservationViewRow>(byKeys, [k])).rows);
    const filtered = bound('search_filtered', 'postgres', {
      index: await serverUs(args, (a) => serverMs(`select count(*) from reservations where ${FILTER}`, a), 30),
      rows: await serverUs(keys, (k) => serverMs(`select ${VIEW_COLUMNS.join(', ')} from reservations where id = any(?)`, [k]), 30),
      ...(await rendering(pages, secret)),
    });
    return [text, filtered];
  } finally {
    await client.end();
  }
}

/** What a read by id must do on top of any route's work, each part on its own, µs (SQLite). */
export interface GetBound {
  parts: { key: number; row: number; view: number; json: number };
  total_us: number;
  /** The mean length of the views as JSON: the answer's body. */
  answer_bytes: number;
}

/**
 * The least work GET /v1/reservations/{id} adds to a bare route, part by part on one thread:
 * hashing the API key to find its account, reading the row by id (the view's columns, as the
 * service reads rows), its view (the identification opened) and the view as JSON. Left out: the
 * route's validation, the query builder and the account check. The answer's length is measured
 * too, for a bare route to write as many bytes (bench/baseline.ts, `?bytes=`).
 */
export function measureGetBound(file: string, accountId: string, secret: string, apiKey: string, ids: string[]): GetBound {
  const db = openSqliteFile(file, { readonly: true });
  try {
    const byId = rowsOf(db.prepare(`select ${VIEW_COLUMNS.join(', ')} from reservations where account_id = ? and id = ?`));
    const deps = { secrets: new SecretBox(secret), config: { publicUrl: 'http://127.0.0.1' } } as unknown as Deps;
    const rows = ids.map((id) => byId.all([accountId, id])[0] as ReservationViewRow);
    const views = rows.map((r) => toReservationView(deps, r));
    const round = (n: number) => Math.round(n * 10) / 10;
    // Parts of a few microseconds, so timed a round at a time: a clock read each would add to them.
    const each = <T>(inputs: T[], fn: (x: T) => unknown, rounds = 200) => {
      for (const x of inputs) fn(x);
      const t0 = process.hrtime.bigint();
      for (let r = 0; r < rounds; r++) for (const x of inputs) fn(x);
      return round(Number(process.hrtime.bigint() - t0) / 1000 / (rounds * inputs.length));
    };
    const parts = {
      key: each([apiKey], (k) => hashApiKey(k), 20_000),
      row: each(ids, (id) => byId.all([accountId, id])),
      view: each(rows, (r) => toReservationView(deps, r)),
      json: each(views, (v) => JSON.stringify(v)),
    };
    const answerBytes = Math.round(views.reduce((n, v) => n + Buffer.byteLength(JSON.stringify(v)), 0) / views.length);
    return { parts, total_us: round(parts.key + parts.row + parts.view + parts.json), answer_bytes: answerBytes };
  } finally {
    db.close();
  }
}

export function measureBounds(where: string, accountId: string, secret: string, terms: string[]): Promise<Bound[]> {
  return /^postgres(ql)?:\/\//.test(where) ? postgresBounds(where, accountId, secret, terms) : sqliteBounds(where, accountId, secret, terms);
}

/** The benchmark's search terms: the first four letters of the last names of the 100 reservations a first page shows. */
export async function benchTerms(where: string, accountId: string): Promise<string[]> {
  const recent = 'select guest_last_name from reservations where account_id = ? order by check_in_date desc nulls last, id desc limit 100';
  let names: string[];
  if (/^postgres(ql)?:\/\//.test(where)) {
    const c = new pg.Client({ connectionString: where });
    await c.connect();
    names = (await c.query<{ guest_last_name: string }>(recent.replace('?', '$1'), [accountId]).finally(() => c.end())).rows.map((x) => x.guest_last_name);
  } else {
    const db = openSqliteFile(where, { readonly: true });
    names = db.prepare(recent).pluck().all(accountId) as string[];
    db.close();
  }
  return [...new Set(names.map((n) => n.slice(0, 4).toLowerCase()).filter((t) => t.length >= 3))];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [accountId, where] = process.argv.slice(2);
  if (!accountId || !where || !process.env.GUESTSCREEN_SECRET) throw new Error('usage: GUESTSCREEN_SECRET=… bounds.ts <account id> <sqlite file | postgres url>');
  const bounds = await measureBounds(where, accountId, process.env.GUESTSCREEN_SECRET, await benchTerms(where, accountId));
  process.stdout.write(`${JSON.stringify(bounds, null, 2)}\n`);
}
