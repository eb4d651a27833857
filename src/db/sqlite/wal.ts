/**
 * The write-ahead log's flushes and checkpoints, taken off the thread that writes.
 *
 * With `synchronous = FULL`, SQLite flushes the log inside every commit, and the thread that
 * commits (the API's, with every request on it) waits for the disk while it holds the only write
 * lock. Here the connection runs at `synchronous = NORMAL`, which writes the log without flushing
 * it at commit, and this module flushes it itself:
 *
 * - a group commit (open.ts) claims its commit, and its writers hear back once the log has been
 *   flushed on libuv's threads; the next batch waits for that flush, so writes that arrive
 *   meanwhile gather behind it as they did behind a flush inside the commit;
 * - every other commit (a transaction of its own, a write outside any transaction) is flushed
 *   at once, on the thread, as FULL would.
 *
 * Nothing is acknowledged before it is on disk, as before. What changes: another connection may
 * read a batch's rows during the few milliseconds of its flush, before its writers hear back.
 *
 * The checkpoints (copying the log back into the database file, with two more flushes) ran inside
 * whichever commit passed 1,000 pages of log. Where the process has threads to spare, a thread
 * with a connection of its own copies the log every CHECKPOINT_EVERY_MS (checkpoint-thread.ts),
 * and the commit that passes BESIDE_THREAD_PAGES finds little left to copy; if the thread stops,
 * the connection checkpoints by itself as before.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { closeSync, fdatasync, fdatasyncSync, fstatSync, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** How long after the first write the checkpoint thread starts. */
const CHECKPOINTER_AFTER_MS = 3000;
/** How often the checkpoint thread copies the log into the database file. */
const CHECKPOINT_EVERY_MS = 250;
/** SQLite's own default, restored when the checkpoint thread stops. */
const AUTOCHECKPOINT_PAGES = 1000;
/**
 * Beside the thread, the connection still checkpoints past this many pages of log: the thread's
 * checkpoints never wait for the writer, so under a steady stream of writes new frames keep
 * coming while it copies, and only a checkpoint in a commit (with nothing left to copy but the
 * last few hundred milliseconds' frames) lets the next transaction start the log over.
 */
const BESIDE_THREAD_PAGES = 4000;

const fromSources = path.extname(fileURLToPath(import.meta.url)) === '.ts';
const THREAD = new URL(`./checkpoint-thread${fromSources ? '.ts' : '.js'}`, import.meta.url);

export class WalFlush {
  #fd: number | undefined;
  #claimed = false;
  #checkpointer: Worker | undefined;
  #checkpointerDue: NodeJS.Timeout | undefined;
  /** Closing, or the checkpoint thread stopped on its own: no new one is started. */
  #noThread = false;

  constructor(
    private readonly file: string,
    private readonly sqlite: BetterSqlite3.Database,
    private readonly checkpointThread: boolean,
  ) {}

  /** The next commit on this connection is a group commit's, which flushes the log itself (flush()). */
  claimNextCommit(): void {
    this.#claimed = true;
  }

  /** A transaction ended, or a statement outside one wrote: its commit is flushed now unless a group commit claimed it. */
  committed(): void {
    this.#startCheckpointer();
    if (this.#claimed) {
      this.#claimed = false;
      return;
    }
    fdatasyncSync(this.#log());
  }

  /** A rollback: a claim the failed transaction made is void. */
  rolledBack(): void {
    this.#claimed = false;
  }

  /** Flushes the log on libuv's threads: every commit made so far is on disk when it resolves. */
  flush(): Promise<void> {
    return new Promise((resolve, reject) => fdatasync(this.#log(), (err) => (err ? reject(err) : resolve())));
  }

  async close(): Promise<void> {
    this.#noThread = true;
    clearTimeout(this.#checkpointerDue);
    await this.#checkpointer?.terminate();
    this.#checkpointer = undefined;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** The log's file, opened once; reopened if SQLite deleted it (when the last connection to the file closed). */
  #log(): number {
    if (this.#fd !== undefined && fstatSync(this.#fd).nlink > 0) return this.#fd;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = openSync(`${this.file}-wal`, 'r');
    return this.#fd;
  }

  /**
   * A few seconds after the first write: a process that only reads, or writes once and ends (a
   * command), starts no thread, and a start-up does not share its cores with one.
   */
  #startCheckpointer(): void {
    if (!this.checkpointThread || this.#checkpointerDue || this.#noThread) return;
    this.#checkpointerDue = setTimeout(() => this.#spawnCheckpointer(), CHECKPOINTER_AFTER_MS);
    this.#checkpointerDue.unref();
  }

  #spawnCheckpointer(): void {
    if (this.#noThread || !this.sqlite.open) return;
    const workerData = { file: this.file, everyMs: CHECKPOINT_EVERY_MS };
    const thread = fromSources
      ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(THREAD.href)}); });`, { eval: true, workerData })
      : new Worker(THREAD, { workerData });
    // An idle checkpointer does not keep a command-line run alive.
    thread.unref();
    this.#checkpointer = thread;
    this.sqlite.pragma(`wal_autocheckpoint = ${BESIDE_THREAD_PAGES}`);
    const stopped = () => {
      if (this.#checkpointer !== thread) return;
      // Not stopped by close(): this connection checkpoints by itself again.
      this.#checkpointer = undefined;
      this.#noThread = true;
      if (this.sqlite.open) this.sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    };
    thread.on('error', stopped);
    thread.on('exit', stopped);
  }
}
