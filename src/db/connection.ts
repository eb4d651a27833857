import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { dialectHelpers, SqliteBooleanPlugin, type DialectHelpers } from './dialect.js';
import type { Database } from './schema.js';

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
}

export function openDatabase(opts: DatabaseOptions): DatabaseHandle {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10);
  return openSqlite(path.join(opts.dataDir, 'guestscreen.db'));
}

function openSqlite(file: string): DatabaseHandle {
  mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: an acknowledged write survives a power cut, not just a process crash.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Erased personal data is overwritten on disk, not just unlinked.
  sqlite.pragma('secure_delete = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }), plugins: [new SqliteBooleanPlugin()] });
  return { db, dialect: dialectHelpers('sqlite'), description: `SQLite ${file}`, close: () => db.destroy() };
}

/**
 * Kysely asks better-sqlite3 to prepare every statement anew; profiling GET /v1/accounts/me
 * showed a fifth of the CPU time in prepare(). Prepared statements are reusable, so keep the
 * most recent ones by their SQL text.
 */
function withStatementCache(sqlite: BetterSqlite3.Database, max = 500) {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (stmt) {
        cache.delete(sql);
      } else {
        stmt = sqlite.prepare(sql);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, stmt);
      return stmt;
    },
  };
}

function openPostgres(url: string, max: number): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client that loses its server emits 'error'; without a listener the process dies.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
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
 * so repository calls compose.
 */
export async function withTx<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  return db.transaction().execute(fn);
}
