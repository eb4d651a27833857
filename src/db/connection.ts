import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteAdapter, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type pg from 'pg';
import { dialectHelpers, PLAN_PER_CALL_MARK, sqliteSearchKey, sqliteSearchText, type DialectHelpers } from './dialect.js';
import { attachReaders, SqliteReaders } from './read-pool.js';
import type { Database } from './schema.js';
import { bindable, rowsOf } from './sqlite-bind.js';
import { currentWriteScope } from './write-scope.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  dialect: DialectHelpers;
  /** Where the data lives, for the start-up banner (no credentials). */
  description: string;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** SQLite: threads that answer the heavy reads (read-pool.ts); 0 keeps every read on the main thread. */
  sqliteReaders?: number;
}

export function openDatabase(opts: DatabaseOptions): DatabaseHandle {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10);
  return openSqlite(path.join(opts.dataDir, 'guestscreen.db'), opts.sqliteReaders ?? 0);
}

function openSqlite(file: string, readerThreads: number): DatabaseHandle {
  mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: an acknowledged write survives a power cut, not just a process crash.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  // Savepoints (one per write in a group commit, and one for every statement that may need
  // undoing) journal the pages they change; in memory rather than in a temporary file, so a
  // create's insert does not wait on the file.
  sqlite.pragma('temp_store = MEMORY');
  sqlite.pragma('foreign_keys = ON');
  // Erased personal data is overwritten on disk, not just unlinked.
  sqlite.pragma('secure_delete = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  const readers = readerThreads > 0 ? new SqliteReaders(file, readerThreads) : undefined;
  if (readers) attachReaders(db, readers);
  return {
    db,
    dialect: dialectHelpers('sqlite'),
    description: `SQLite ${file}`,
    close: async () => {
      await readers?.close();
      await db.destroy();
    },
  };
}

/** What Kysely's SQLite driver uses of a prepared statement. */
interface SqliteStatement {
  reader: boolean;
  all(params: readonly unknown[]): unknown[];
  run(params: readonly unknown[]): BetterSqlite3.RunResult;
  iterate(params: readonly unknown[]): IterableIterator<unknown>;
}

/**
 * Kysely asks better-sqlite3 to prepare every statement anew; profiling GET /v1/accounts/me
 * showed a fifth of the CPU time in prepare(). Prepared statements are reusable, so keep the
 * most recent ones by their SQL text. Booleans are mapped here, at binding; a Kysely plugin
 * that rewrote every query's tree for them cost a visible share of a create's CPU.
 */
function withStatementCache(sqlite: BetterSqlite3.Database, max = 500) {
  const cache = new Map<string, SqliteStatement>();
  const searchIndex = deferredSearchIndex(sqlite);
  // A process that died between a lone write's commit and its flush left stale rows behind.
  searchIndex.flushAlone();
  const wrap = (stmt: BetterSqlite3.Statement): SqliteStatement => {
    // Kysely commits a transaction with a plain `commit`: the reservations' terms go first.
    if (stmt.source === 'commit') return { reader: false, all: () => [], iterate: () => [][Symbol.iterator](), run: () => (searchIndex.flush(), stmt.run()) };
    // A statement that returns rows is only read; one that does not is only run.
    const rows = stmt.reader ? rowsOf(stmt) : undefined;
    return {
      reader: stmt.reader,
      all: (params) => (rows ? rows.all(params) : stmt.all(bindable(params))),
      run: (params) => {
        const result = stmt.run(bindable(params));
        // A write outside a transaction committed on its own: its terms go in a transaction of theirs.
        if (!sqlite.inTransaction) searchIndex.flushAlone();
        return result;
      },
      iterate: (params) => (rows ? rows.iterate(params) : stmt.iterate(bindable(params))),
    };
  };
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (stmt) {
        cache.delete(sql);
      } else {
        stmt = wrap(sqlite.prepare(sql));
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, stmt);
      return stmt;
    },
  };
}

/**
 * SQLite's full-text index is written once per transaction, right before it commits, for the
 * rows its triggers noted as stale (migration 0008 says why), under the keys of migration 0013.
 * Before those migrations have run there is nothing to flush, or the index is keyed by row.
 */
function deferredSearchIndex(sqlite: BetterSqlite3.Database) {
  let steps: BetterSqlite3.Statement[] | undefined;
  let pending: BetterSqlite3.Statement | undefined;
  /** True once the steps are those of the latest schema, which a migration in this process may bring. */
  let final = false;
  const exists = sqlite.prepare("select 1 from sqlite_master where type = 'table' and name = 'reservations_fts_stale'").pluck();
  const keyed = sqlite.prepare("select 1 from pragma_table_info('reservations_fts_stale') where name = 'indexed_key'").pluck();
  const ready = () => {
    if (final) return true;
    if (!exists.get()) return false;
    final = keyed.get() !== undefined;
    // Before migration 0013 the index is keyed by row, and the stale list notes no key.
    const [key, indexedKey] = final ? [sqliteSearchKey('r'), 'indexed_key'] : ['r.seq', 'seq'];
    steps = [
      sqlite.prepare(`delete from reservations_fts where rowid in (select ${indexedKey} from reservations_fts_stale where indexed = 1)`),
      sqlite.prepare(`insert into reservations_fts(rowid, search_text) select ${key}, ${sqliteSearchText('r')} from reservations_fts_stale s join reservations r on r.seq = s.seq`),
      sqlite.prepare('delete from reservations_fts_stale'),
    ];
    pending = sqlite.prepare('select 1 from reservations_fts_stale limit 1').pluck();
    return true;
  };
  const stale = () => ready() && pending!.get() !== undefined;
  const flush = () => {
    for (const step of steps!) step.run();
  };
  return {
    flush() {
      if (stale()) flush();
    },
    flushAlone() {
      if (stale()) sqlite.transaction(flush)();
    },
  };
}

/**
 * Kysely sends every query unnamed, so PostgreSQL parses and plans it anew each time. Named, a
 * statement is parsed once per connection and its plan reused, which pays on every read of a
 * reservation. Names go to the first 500
 * distinct SQL texts with parameters (texts that vary with the length of an IN list would
 * otherwise pile up prepared statements on every connection); the rest run unnamed as before,
 * and so do selects marked PLAN_PER_CALL.
 */
function withNamedStatements(pool: pg.Pool, max = 500): pg.Pool {
  const names = new Map<string, string>();
  const wrapped = new WeakSet<pg.PoolClient>();
  const unprepared = new WeakSet<pg.PoolClient>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name && names.size < max) names.set(text, (name = `gs${names.size}`));
    return name;
  };
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop !== 'connect') return Reflect.get(target, prop, receiver) as unknown;
      return async () => {
        const client = await connect();
        if (!wrapped.has(client)) {
          wrapped.add(client);
          const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
          client.query = (async (text: unknown, values?: unknown[]) => {
            const name =
              typeof text === 'string' && values && values.length > 0 && !text.includes(PLAN_PER_CALL_MARK) && !unprepared.has(client) ? nameOf(text) : undefined;
            if (!name) return query(text, values);
            try {
              return await namedQuery(query, name, text as string, values!);
            } catch (err) {
              // A migration from another process changed a table under a prepared `select *`:
              // this connection names no more statements for the rest of its life, and the query
              // runs again unnamed, which works unless it was inside a transaction.
              if ((err as { code?: string }).code !== '0A000') throw err;
              unprepared.add(client);
              return query(text, values).catch(() => Promise.reject(err));
            }
          }) as typeof client.query;
        }
        return client;
      };
    },
  });
}

/**
 * The fields of a named statement's answers, worked out once per process (ShapedResult, below).
 * pg builds a row's type parsers and its empty template anew for every answer, the template as
 * a dictionary-mode object (`Object.create(null)`) that every row is then copied from: for the
 * 29 columns of a reservation that was the largest single cost of GET /v1/reservations/{id} on
 * PostgreSQL (`addFields`, node-postgres issue 3055). A named statement always
 * describes the same columns (a migration that changes them fails it with 0A000, see above), so
 * its parsers and an ordinary object template are kept by name and reused while the answer's
 * columns match.
 */
interface Shape {
  names: string[];
  types: number[];
  parsers: ((value: string) => unknown)[];
  template: Record<string, null>;
}
const shapes = new Map<string, Shape>();

/** pg loads only where PostgreSQL is configured, not in every start on the embedded SQLite. */
let pgModule: { pg: typeof pg; ShapedResult: new (statement: string) => pg.Result } | undefined;
function loadPg() {
  if (pgModule) return pgModule;
  const pgm = createRequire(import.meta.url)('pg') as typeof pg;
  class ShapedResult extends pgm.Result {
    declare _parsers: Shape['parsers'] | undefined;
    declare _prebuiltEmptyResultObject: Record<string, null> | null;

    constructor(readonly statement: string) {
      super(undefined as unknown as string, undefined as unknown as typeof pg.types);
    }

    addFields(fields: pg.FieldDef[]): void {
      let shape = shapes.get(this.statement);
      if (!shape || !sameColumns(shape, fields)) {
        const template: Record<string, null> = {};
        for (const f of fields) template[f.name] = null;
        shape = {
          names: fields.map((f) => f.name),
          types: fields.map((f) => f.dataTypeID),
          parsers: fields.map((f) => pgm.types.getTypeParser(f.dataTypeID, (f.format as 'text' | 'binary' | undefined) ?? 'text')),
          template,
        };
        shapes.set(this.statement, shape);
      }
      this.fields = fields;
      this._parsers = shape.parsers;
      this._prebuiltEmptyResultObject = shape.template;
    }
  }
  return (pgModule = { pg: pgm, ShapedResult });
}

function sameColumns(shape: Shape, fields: pg.FieldDef[]): boolean {
  if (shape.names.length !== fields.length) return false;
  for (let i = 0; i < fields.length; i++) if (shape.names[i] !== fields[i]!.name || shape.types[i] !== fields[i]!.dataTypeID) return false;
  return true;
}

function namedQuery(send: (q: pg.Query) => unknown, name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const { pg: pgm, ShapedResult } = loadPg();
    const q = new pgm.Query({ name, text, values }, (err: Error | undefined, result: unknown) => (err ? reject(err) : resolve(result as pg.QueryResult)));
    const internals = q as unknown as { _result: pg.Result; _results: pg.Result };
    internals._result = internals._results = new ShapedResult(name);
    send(q);
  });
}

function openPostgres(url: string, max: number): DatabaseHandle {
  const pool = new (loadPg().pg.Pool)({ connectionString: url, max });
  // An idle client that loses its server emits 'error'; without a listener the process dies.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }) });
  const u = new URL(url);
  return {
    db,
    dialect: dialectHelpers('postgres'),
    description: `PostgreSQL ${u.hostname}:${u.port || 5432}${u.pathname}`,
    close: () => db.destroy(),
  };
}

/**
 * Runs fn in a transaction, or inside the caller's transaction when db already is one,
 * so repository calls compose. Top-level transactions are group-committed (see WriteBatcher):
 * fn's writes are durable, and its result returned, once the batch it joined has committed.
 */
/**
 * Runs `fn` in a transaction (or in the one `db` already is). `subject`: the object the
 * transaction writes, for the caller's write scope (db/write-scope.ts), which adds its own
 * statement before the commit.
 */
export async function withTx<T>(db: Db, fn: (tx: Db) => Promise<T>, opts: { subject?: string } = {}): Promise<T> {
  if (db.isTransaction) return fn(db);
  const scope = currentWriteScope();
  if (scope) {
    const work = fn;
    fn = async (tx) => {
      const value = await work(tx);
      await scope.inTransaction(tx, opts.subject);
      return value;
    };
  }
  // PostgreSQL runs transactions side by side on its pool and shares WAL flushes among
  // concurrent commits by itself; funnelling them into one connection made creates much slower.
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return db.transaction().execute(fn);
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = new WriteBatcher(db);
    batchers.set(db, batcher);
  }
  return batcher.run(fn);
}

const batchers = new WeakMap<Db, WriteBatcher>();

interface PendingWrite {
  fn: (tx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit, on SQLite. Writes that arrive while a batch is being written wait and go together in the
 * next one: one transaction, each write in its own savepoint, so one write's failure rolls back
 * only that write. A commit costs a disk flush (and on SQLite only one transaction writes at a
 * time), so under load many writes share each flush instead of queueing
 * for one each. Nobody hears back before the commit that makes their write durable; if the
 * commit fails, every write of the batch fails with it.
 */
export class WriteBatcher {
  readonly #queue: PendingWrite[] = [];
  #draining = false;

  constructor(
    private readonly db: Db,
    private readonly maxBatch = 128,
  ) {}

  run<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      // One turn of the event loop, so the writes of requests and jobs running alongside join.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.maxBatch);
        if (batch.length === 1) {
          // Nothing to share the commit with: a plain transaction, no savepoint.
          const only = batch[0]!;
          await this.db
            .transaction()
            .execute(only.fn)
            .then(only.resolve, only.reject);
          continue;
        }
        const outcomes: { ok: boolean; value: unknown }[] = [];
        try {
          await this.db.transaction().execute(async (tx) => {
            for (const write of batch) {
              await sql`savepoint gc`.execute(tx);
              try {
                const value = await write.fn(tx);
                await sql`release savepoint gc`.execute(tx);
                outcomes.push({ ok: true, value });
              } catch (err) {
                await sql`rollback to savepoint gc`.execute(tx);
                await sql`release savepoint gc`.execute(tx);
                outcomes.push({ ok: false, value: err });
              }
            }
          });
        } catch (err) {
          for (const write of batch) write.reject(err);
          continue;
        }
        batch.forEach((write, i) => (outcomes[i]!.ok ? write.resolve(outcomes[i]!.value) : write.reject(outcomes[i]!.value)));
      }
    } finally {
      this.#draining = false;
    }
  }
}
