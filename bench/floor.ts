/**
 * The benchmark's second yardstick: the least any service could do to answer three of the
 * scenarios from the same database. A bare Fastify route (the baseline's) runs the same SQL the
 * service runs, with the driver's own prepared statements, and returns the rows as they come:
 * no API key, no validation, no query builder, no decryption, no view; on SQLite the searches go
 * to reader threads as the service's do. What it measures is the
 * storage's share of a request on this machine, so a target it misses too is beyond the
 * machine for this schema, not something the service's own code could win back.
 *
 * A second read by id, under /keyed, adds the least that a service which checks API keys and
 * keeps identification documents encrypted at rest must add to it: hash the key and find its
 * account in memory (as the service's key cache does), open the sealed identification and
 * answer it. It needs GUESTSCREEN_SECRET, the service's.
 *
 *   node --import tsx bench/floor.ts <port> <account id> <sqlite file | postgres url>
 */
import { openSqliteFile } from '../src/db/sqlite/driver.js';
import Fastify from 'fastify';
import pg from 'pg';
import { defaultReaders } from '../src/config.js';
import { rowsOf } from '../src/db/sqlite/bind.js';
import { SqliteReaders } from '../src/db/sqlite/readers.js';
import { ftsPhrase } from '../src/db/sqlite/search-index.js';
import { hashApiKey } from '../src/lib/api-keys.js';
import { SecretBox } from '../src/lib/secret-box.js';
import { VIEW_COLUMNS } from '../src/modules/bookings/index.js';

const [portArg, accountId, where] = process.argv.slice(2);
if (!portArg || !accountId || !where) throw new Error('usage: floor.ts <port> <account id> <sqlite file | postgres url>');

interface Query {
  search?: string;
  status?: string;
  source?: string;
  startDate?: string;
  endDate?: string;
  from?: string;
  size?: string;
}

interface Store {
  byId(id: string): Promise<unknown>;
  text(term: string, offset: number, limit: number): Promise<{ total: number; rows: unknown[] }>;
  filtered(q: Required<Pick<Query, 'status' | 'source' | 'startDate' | 'endDate'>>, offset: number, limit: number): Promise<{ total: number; rows: unknown[] }>;
}

// As the service orders a search: undated reservations last (migration 0014).
const ORDER = 'order by check_in_date desc nulls last, id desc';
const FILTER = 'account_id = ? and status = ? and source = ? and check_in_date >= ? and check_in_date <= ?';
// The columns the service reads for a reservation's view, by id and in a page of results.
const VIEW = VIEW_COLUMNS.join(', ');

function sqliteStore(file: string): Store {
  const db = openSqliteFile(file, { readonly: true });
  // Read as the service reads rows (db/sqlite/bind.ts).
  const byId = rowsOf(db.prepare(`select ${VIEW} from reservations where account_id = ? and id = ?`));
  // As the service does (db/sqlite/readers.ts): searches on reader threads, as many as the service starts.
  const readers = new SqliteReaders(file, Number(process.env.GUESTSCREEN_SQLITE_READERS ?? defaultReaders()));
  // As the service does (db/sqlite/text-search.ts): the account's range of the trigram index, keyed by
  // check-in day, counted and paged by its keys, and only the rows of the page's days read.
  return {
    byId: async (id) => byId.all([accountId, id])[0],
    text: async (term, offset, limit) => {
      const answer = await readers.call('searchByCheckIn', { accountId: accountId!, phrase: ftsPhrase(term), offset, limit, columns: VIEW });
      if ('general' in answer) throw new Error("rows past the index keys' bounds: the floor route runs only the keyed search");
      return answer;
    },
    filtered: async (q, offset, limit) => {
      const args = [accountId, q.status, q.source, q.startDate, q.endDate];
      const [count, rows] = await readers.run([
        { sql: `select count(*) as n from reservations where ${FILTER}`, parameters: args },
        { sql: `select ${VIEW} from reservations where ${FILTER} ${ORDER} limit ? offset ?`, parameters: [...args, limit, offset] },
      ]);
      return { total: (count![0] as { n: number }).n, rows: rows! };
    },
  };
}

function postgresStore(url: string): Store {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const numbered = (s: string) => {
    let i = 0;
    return s.replace(/\?/g, () => `$${++i}`);
  };
  const like = (t: string) => `%${t.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const match = "account_id = ? and search_text like ? escape '\\'";
  // As the service does: the read by id prepared once per connection, searches planned per call.
  const byId = { name: 'floor_by_id', text: numbered(`select ${VIEW} from reservations where account_id = ? and id = ?`) };
  const count = async (text: string, values: unknown[]) => Number((await pool.query<{ n: string }>(numbered(text), values)).rows[0]!.n);
  return {
    byId: async (id) => (await pool.query({ ...byId, values: [accountId, id] })).rows[0],
    // As the service does (textSearchOnce in reservations/repo.ts): one scan, the count and the page read from it.
    text: async (term, offset, limit) => {
      const page = await pool.query<{ total: string; id: string | null }>(
        numbered(
          `with m as materialized (select id, check_in_date from reservations where ${match}), p as (select id from m ${ORDER} limit ? offset ?) ` +
            `select t.total, ${VIEW_COLUMNS.map((c) => `r.${c}`).join(', ')} from (select count(*) as total from m) t left join reservations r on r.id in (select id from p) order by r.check_in_date desc nulls last, r.id desc`,
        ),
        [accountId, like(term), limit, offset],
      );
      return { total: Number(page.rows[0]?.total ?? 0), rows: page.rows.filter((r) => r.id !== null) };
    },
    filtered: async (q, offset, limit) => {
      const args = [accountId, q.status, q.source, q.startDate, q.endDate];
      const [total, page] = await Promise.all([
        count(`select count(*) as n from reservations where ${FILTER}`, args),
        pool.query(numbered(`select ${VIEW} from reservations where ${FILTER} ${ORDER} limit ? offset ?`), [...args, limit, offset]),
      ]);
      return { total, rows: page.rows };
    },
  };
}

const store = /^postgres(ql)?:\/\//.test(where) ? postgresStore(where) : sqliteStore(where);
const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>('/v1/reservations/:id', async (request) => store.byId(request.params.id));
if (process.env.GUESTSCREEN_SECRET) {
  const box = new SecretBox(process.env.GUESTSCREEN_SECRET);
  const accounts = new Map<string, string>();
  app.get<{ Params: { id: string } }>('/keyed/v1/reservations/:id', async (request, reply) => {
    const key = request.headers['x-api-key'];
    if (typeof key !== 'string') return reply.code(401).send({ error: 'missing x-api-key header' });
    const hash = hashApiKey(key);
    if (!accounts.has(hash)) accounts.set(hash, accountId);
    const r = (await store.byId(request.params.id)) as { id: string; account_id: string; identification_enc: string | null } | undefined;
    if (!r || r.account_id !== accounts.get(hash)) return reply.code(404).send({ error: 'not found' });
    const identification = r.identification_enc ? (JSON.parse(box.open(r.identification_enc, `identification:${r.account_id}:${r.id}`)) as unknown) : {};
    return { ...r, identification };
  });
}
app.get<{ Querystring: Query }>('/v1/reservations', async (request) => {
  const q = request.query;
  const from = Number(q.from ?? 0);
  const size = Number(q.size ?? 20);
  const { total, rows } = q.search
    ? await store.text(q.search, from, size)
    : await store.filtered({ status: q.status ?? '', source: q.source ?? '', startDate: q.startDate ?? '', endDate: q.endDate ?? '' }, from, size);
  return { from, size, total, items: rows };
});
await app.listen({ port: Number(portArg), host: '127.0.0.1' });
process.stdout.write(`ready ${(app.server.address() as { port: number }).port}\n`);
// A clean exit on a signal, so `node --cpu-prof bench/floor.ts …` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)));
