import { openSqliteFile } from './driver.js';

/**
 * A consistent copy of the database file at `target`, taken while the service keeps writing.
 * VACUUM INTO reads the whole database in one read transaction, which WAL lets writers run
 * beside, so the copy is the database as of one commit. SQLite's page-by-page backup API
 * starts over whenever another process writes meanwhile, and on a busy service may never end.
 */
export function snapshotSqlite(source: string, target: string): void {
  const db = openSqliteFile(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    db.prepare('vacuum into ?').run(target);
  } finally {
    db.close();
  }
}

/** What a restored file holds: SQLite's integrity check ('ok' or its complaints) and the last migration it ran. */
export function inspectSqlite(file: string): { integrity: string[]; lastMigration: string | null } {
  const db = openSqliteFile(file, { fileMustExist: true, readonly: true });
  try {
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    const hasMigrations = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    const last = hasMigrations ? (db.prepare('select name from kysely_migration order by name desc limit 1').get() as { name: string } | undefined) : undefined;
    return { integrity, lastMigration: last?.name ?? null };
  } finally {
    db.close();
  }
}
