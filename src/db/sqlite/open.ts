import type BetterSqlite3 from 'better-sqlite3';
import { openSqliteFile } from './driver.js';
import { Kysely, sql, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { dialectHelpers } from '../dialect.js';
import type { Database } from '../schema.js';
import type { DatabaseHandle, Db, Tx } from '../types.js';
import { bindable, rowsOf } from './bind.js';
import { attachReaders, SqliteReaders } from './readers.js';
import { sqliteSearchKey, sqliteSearchText } from './search-index.js';
import { WalFlush } from './wal.js';

/** The embedded database: one file, WAL, a statement cache, and reader threads for the heavy reads. */
export function openSqlite(file: string, readerThreads: number): DatabaseHandle {
  mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = openSqliteFile(file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL, with the log flushed after every commit by wal.ts rather than inside it: an
  // acknowledged write survives a power cut, as with FULL, and the flush leaves the thread.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // Savepoints (one per write in a group commit, and one for every statement that may need
  // undoing) journal the pages they change; in memory rather than in a temporary file, so a
  // create's insert does not wait on the file.
  sqlite.pragma('temp_store = MEMORY');
  sqlite.pragma('foreign_keys = ON');
  // Erased personal data is overwritten on disk, not just unlinked.
  sqlite.pragma('secure_delete = ON');
  // A process with reader threads has cores to spare for the checkpoints too.
  const wal = new WalFlush(file, sqlite, readerThreads > 0);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite, wal) }) });
  batchers.set(db, new WriteBatcher(db, wal));
  const readers = readerThreads > 0 ? new SqliteReaders(file, readerThreads) : undefined;
  if (readers) attachReaders(db, readers);
  return {
    db,
    dialect: dialectHelpers('sqlite'),
    description: `SQLite ${file}`,
    close: async () => {
      await readers?.close();
      await db.destroy();
      await wal.close();
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
function withStatementCache(sqlite: BetterSqlite3.Database, wal: WalFlush, max = 500) {
  const cache = new Map<string, SqliteStatement>();
  const searchIndex = deferredSearchIndex(sqlite);
  // A process that died between a lone write's commit and its flush left stale rows behind.
  searchIndex.flushAlone();
  const wrap = (stmt: BetterSqlite3.Statement): SqliteStatement => {
    // Kysely commits a transaction with a plain `commit`: the reservations' terms go first.
    if (stmt.source === 'commit') {
      const run = () => {
        searchIndex.flush();
        const result = stmt.run();
        wal.committed();
        return result;
      };
      return { reader: false, all: () => [], iterate: () => [][Symbol.iterator](), run };
    }
    if (stmt.source === 'rollback') return { reader: false, all: () => [], iterate: () => [][Symbol.iterator](), run: () => (wal.rolledBack(), stmt.run()) };
    // A statement that returns rows is only read; one that does not is only run.
    const rows = stmt.reader ? rowsOf(stmt) : undefined;
    return {
      reader: stmt.reader,
      all: (params) => {
        const result = rows ? rows.all(params) : stmt.all(bindable(params));
        // A write that returns rows (`returning`), outside a transaction, committed on its own.
        if (!stmt.readonly && !sqlite.inTransaction) wal.committed();
        return result;
      },
      run: (params) => {
        const result = stmt.run(bindable(params));
        if (!sqlite.inTransaction) {
          // A write outside a transaction committed on its own: its terms go in a transaction of theirs.
          searchIndex.flushAlone();
          if (!stmt.readonly) wal.committed();
        }
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
 * Runs `fn` in a transaction of the next group commit on this handle (WriteBatcher).
 */
export function groupCommit<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = new WriteBatcher(db);
    batchers.set(db, batcher);
  }
  return batcher.run(fn);
}

const batchers = new WeakMap<Db, WriteBatcher>();

interface PendingWrite {
  fn: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** How a group commit makes its batch durable: it claims the commit, then flushes the log itself (wal.ts). */
interface Durability {
  claimNextCommit(): void;
  flush(): Promise<void>;
}

/**
 * Group commit, on SQLite. Writes that arrive while a batch is being written wait and go together in the
 * next one: one transaction, each write in its own savepoint, so one write's failure rolls back
 * only that write. A commit costs a disk flush (and on SQLite only one transaction writes at a
 * time), so under load many writes share each flush instead of queueing
 * for one each. Nobody hears back before the flush that makes their write durable; if the
 * commit or the flush fails, every write of the batch fails with it. The flush runs off the
 * thread (wal.ts), and the next batch starts when it is done: what arrives meanwhile joins it.
 */
export class WriteBatcher {
  readonly #queue: PendingWrite[] = [];
  #draining = false;

  constructor(
    private readonly db: Db,
    private readonly durability?: Durability,
    private readonly maxBatch = 128,
  ) {}

  run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
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
        const outcomes: { ok: boolean; value: unknown }[] = [];
        try {
          await this.db.transaction().execute(async (tx) => {
            if (batch.length === 1) {
              // Nothing to share the commit with: no savepoint. Its failure rolls the transaction back.
              outcomes.push({ ok: true, value: await batch[0]!.fn(tx as Tx) });
            } else {
              for (const write of batch) {
                await sql`savepoint gc`.execute(tx);
                try {
                  const value = await write.fn(tx as Tx);
                  await sql`release savepoint gc`.execute(tx);
                  outcomes.push({ ok: true, value });
                } catch (err) {
                  await sql`rollback to savepoint gc`.execute(tx);
                  await sql`release savepoint gc`.execute(tx);
                  outcomes.push({ ok: false, value: err });
                }
              }
            }
            // The commit that follows is this batch's: it flushes the log itself, below.
            this.durability?.claimNextCommit();
          });
          await this.durability?.flush();
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
