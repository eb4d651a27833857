/**
 * The thread that copies SQLite's write-ahead log into the database file (wal.ts says why), on a
 * connection of its own. PASSIVE: it copies what no reader still needs and never waits for a
 * reader or the writer, so it holds nobody up; a checkpoint with nothing new to copy costs
 * microseconds. An error ends the thread, and the writing connection checkpoints by itself again.
 */
import { workerData } from 'node:worker_threads';
import { openSqliteFile } from './driver.js';

const { file, everyMs } = workerData as { file: string; everyMs: number };
const sqlite = openSqliteFile(file, { fileMustExist: true });
sqlite.pragma('busy_timeout = 5000');
const checkpoint = sqlite.prepare('pragma wal_checkpoint(PASSIVE)');
setInterval(() => checkpoint.get(), everyMs);
