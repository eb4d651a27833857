import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { create, extract, list } from 'tar';
import type { Config } from '../config.js';
import { sqliteFile } from '../db/connection.js';
import { inspectSqlite, snapshotSqlite } from '../db/sqlite/snapshot.js';
import { makePrivate } from '../lib/private-files.js';
import { UsageError } from './context.js';

const DATABASE = path.basename(sqliteFile('.'));
/** The database's own files: the backup holds a snapshot in their place. */
const DATABASE_FILES = new RegExp(`^${DATABASE.replace('.', '\\.')}(-wal|-shm|-journal)?$`);

const PG_DUMP = 'pg_dump --format=custom --file=FILE "$DATABASE_URL", and pg_restore --no-owner --dbname="$DATABASE_URL" FILE into an empty database (docs/deployment.md, "Backups")';

/**
 * A backup of the embedded database's data directory as one gzipped tar: a consistent snapshot
 * of the database (db/sqlite/snapshot.ts), taken while the service runs, and every other file
 * of the directory: the generated secret without which the encrypted fields cannot be read,
 * an imported GeoIP database, the message outbox.
 */
export async function backup(config: Config, file: string): Promise<{ file: string; bytes: number; files: string[] }> {
  if (config.databaseUrl) throw new UsageError(`guestscreen backup copies the embedded SQLite database; on PostgreSQL use ${PG_DUMP}`);
  const source = sqliteFile(config.dataDir);
  if (!existsSync(source)) throw new UsageError(`there is no guestscreen database at ${source}; set GUESTSCREEN_DATA_DIR as the service has it`);
  const target = path.resolve(file);
  if (existsSync(target)) throw new UsageError(`${target} exists; name a new file`);
  if (!existsSync(path.dirname(target))) throw new UsageError(`the folder ${path.dirname(target)} does not exist`);
  if (`${target}${path.sep}`.startsWith(`${config.dataDir}${path.sep}`)) throw new UsageError('write the backup outside the data directory, or the next backup would hold this one');
  // Beside the target, so the finished file is renamed into place; readable by the owner only
  // (mkdtemp makes it 0700), as the backup holds the secret.
  const staging = mkdtempSync(path.join(path.dirname(target), '.guestscreen-backup-'));
  const partial = path.join(staging, 'backup.tar.gz');
  try {
    snapshotSqlite(source, path.join(staging, DATABASE));
    for (const name of readdirSync(config.dataDir)) {
      if (!DATABASE_FILES.test(name)) cpSync(path.join(config.dataDir, name), path.join(staging, name), { recursive: true, preserveTimestamps: true });
    }
    const files = readdirSync(staging).sort();
    await create({ gzip: true, file: partial, cwd: staging, portable: true }, files);
    chmodSync(partial, 0o600);
    // Renamed only when whole: a FILE that exists is a complete backup.
    renameSync(partial, target);
    return { file: target, bytes: statSync(target).size, files };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Unpacks a backup into the configured data directory, which must be empty, and checks the
 * database it holds; `verify` checks more (that the secret opens it) before the restore counts.
 */
export async function restore(config: Config, file: string, verify: () => Promise<void>): Promise<{ dataDir: string; files: string[]; lastMigration: string | null }> {
  if (config.databaseUrl) throw new UsageError(`guestscreen restore unpacks a backup of the embedded SQLite database; on PostgreSQL use ${PG_DUMP}`);
  const archive = path.resolve(file);
  if (!existsSync(archive)) throw new UsageError(`${archive} does not exist`);
  const dir = config.dataDir;
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new UsageError(`the data directory ${dir} is not empty; restore into a new one (set GUESTSCREEN_DATA_DIR to an empty or missing folder), then point the service at it`);
  }
  const entries: string[] = [];
  try {
    await list({ file: archive, onReadEntry: (e) => void entries.push(e.path) });
  } catch (err) {
    throw new UsageError(`${archive} is not a guestscreen backup (${(err as Error).message})`);
  }
  if (!entries.includes(DATABASE)) throw new UsageError(`${archive} is not a guestscreen backup: it holds no ${DATABASE}`);
  mkdirSync(dir, { recursive: true });
  try {
    // strict: a damaged archive fails the restore rather than leaving part of it.
    await extract({ file: archive, cwd: dir, strict: true });
    // The owner's alone, whatever modes the archive's entries carry.
    makePrivate(dir);
    const { integrity, lastMigration } = inspectSqlite(sqliteFile(dir));
    if (integrity.join() !== 'ok') throw new UsageError(`the database in ${archive} fails SQLite's integrity check: ${integrity.slice(0, 5).join('; ')}`);
    await verify();
    return { dataDir: dir, files: readdirSync(dir).sort(), lastMigration };
  } catch (err) {
    // Nothing half-restored is left for a start to pick up.
    for (const name of readdirSync(dir)) rmSync(path.join(dir, name), { recursive: true, force: true });
    throw err;
  }
}
