import { sql, SqliteAdapter } from 'kysely';
import path from 'node:path';
import { openPostgres } from './postgres/open.js';
import { groupCommit, openSqlite } from './sqlite/open.js';
import type { Database } from './schema.js';
import type { DatabaseHandle, Db, Tx } from './types.js';
import { currentWriteScope } from './write-scope.js';

export type { DatabaseHandle, Db, Tx } from './types.js';
export { ensurePostgresDatabase } from './postgres/open.js';

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** SQLite: threads that answer the heavy reads (sqlite/readers.ts); 0 keeps every read on the main thread. */
  sqliteReaders?: number;
}

/** The embedded database's file in a data directory. */
export const sqliteFile = (dataDir: string) => path.join(dataDir, 'guestscreen.db');

/** The database the configuration names: PostgreSQL given a URL, else the embedded SQLite file in the data directory. */
export function openDatabase(opts: DatabaseOptions): DatabaseHandle {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10);
  return openSqlite(sqliteFile(opts.dataDir), opts.sqliteReaders ?? 0);
}

/**
 * Runs `fn` in a transaction, or inside the caller's transaction when `db` already is one, so
 * repository calls compose. On SQLite top-level transactions are group-committed
 * (sqlite/open.ts): fn's writes are durable, and its result returned, once the batch it joined
 * has committed. `subject`: the object the transaction writes, for the caller's write scope
 * (write-scope.ts), which adds its own statement before the commit.
 */
export async function withTx<T>(db: Db, fn: (tx: Tx) => Promise<T>, opts: { subject?: string } = {}): Promise<T> {
  if (db.isTransaction) return fn(db as Tx);
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
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return db.transaction().execute((tx) => fn(tx as Tx));
  return groupCommit(db, fn);
}

/** Throws when the database does not answer (readiness). */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * PostgreSQL: vacuums and analyzes tables just filled in bulk, so the planner's statistics and
 * the visibility map know them; SQLite keeps no statistics unless asked, and has nothing to do.
 */
export async function analyzeTables(db: Db, tables: (keyof Database)[]): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`vacuum (analyze) ${sql.join(tables.map((t) => sql.table(t)))}`.execute(db);
}
