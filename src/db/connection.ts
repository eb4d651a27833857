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
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), plugins: [new SqliteBooleanPlugin()] });
  return { db, dialect: dialectHelpers('sqlite'), description: `SQLite ${file}`, close: () => db.destroy() };
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
