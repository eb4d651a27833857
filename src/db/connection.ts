import { SqliteAdapter } from 'kysely';
import path from 'node:path';
import { openPostgres } from './postgres/open.js';
import { groupCommit, openSqlite } from './sqlite/open.js';
import type { DatabaseHandle, Db } from './types.js';
import { currentWriteScope } from './write-scope.js';

export type { DatabaseHandle, Db } from './types.js';

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** SQLite: threads that answer the heavy reads (sqlite/readers.ts); 0 keeps every read on the main thread. */
  sqliteReaders?: number;
}

/** The database the configuration names: PostgreSQL given a URL, else the embedded SQLite file in the data directory. */
export function openDatabase(opts: DatabaseOptions): DatabaseHandle {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10);
  return openSqlite(path.join(opts.dataDir, 'guestscreen.db'), opts.sqliteReaders ?? 0);
}

/**
 * Runs `fn` in a transaction, or inside the caller's transaction when `db` already is one, so
 * repository calls compose. On SQLite top-level transactions are group-committed
 * (sqlite/open.ts): fn's writes are durable, and its result returned, once the batch it joined
 * has committed. `subject`: the object the transaction writes, for the caller's write scope
 * (write-scope.ts), which adds its own statement before the commit.
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
  return groupCommit(db, fn);
}
