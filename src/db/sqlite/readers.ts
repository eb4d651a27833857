/**
 * Reader threads for SQLite. better-sqlite3 answers on the thread that asks, so in one process
 * every query, the HTTP work and the job worker take turns on one core: a text search spends
 * about half its time in SQLite, and while it does nothing else runs. SQLite in WAL mode lets other connections read while one writes, so heavy reads (the
 * reservation searches) go to threads with read-only connections of their own, and the main
 * thread keeps the writes, the transactions and the small reads, for which a message to a
 * thread and back would cost more than the query.
 *
 * A reader sees every transaction committed before its query starts: a write that was
 * acknowledged is found. Reads inside a transaction stay on the transaction's connection
 * (`readersOf` answers only for the database handle itself).
 */
import { CompiledQuery } from 'kysely';
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '../types.js';
import { PROCEDURES, runSteps, type ProcedureAnswer, type ProcedureArgs, type ProcedureName } from './procedures.js';
import type { ReadAnswer, ReadRequest } from './read-worker.js';

export interface ReadQuery {
  sql: string;
  parameters: readonly unknown[];
}

interface Pending {
  resolve(answer: unknown): void;
  reject(err: Error): void;
}

interface Reader {
  worker: Worker;
  pending: Map<number, Pending>;
}

const fromSources = path.extname(fileURLToPath(import.meta.url)) === '.ts';
const WORKER = new URL(`./read-worker${fromSources ? '.ts' : '.js'}`, import.meta.url);
/** Run from the sources (tests, tsx), a thread does not inherit tsx's loader (tsx issue 354): it registers it first. */
const startWorker = (workerData: unknown) =>
  fromSources ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER.href)}); });`, { eval: true, workerData }) : new Worker(WORKER, { workerData });

export class SqliteReaders {
  private readers: Reader[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly file: string,
    readonly size: number,
  ) {}

  /** The queries' rows, each query's in order, read in one snapshot on the least busy thread. */
  run(queries: ReadQuery[]): Promise<unknown[][]> {
    return this.send({ queries: queries.map((q) => ({ sql: q.sql, parameters: q.parameters })) }) as Promise<unknown[][]>;
  }

  /** A read in steps (procedures.ts), run whole on the least busy thread in one snapshot. */
  call<N extends ProcedureName>(name: N, args: ProcedureArgs<N>): Promise<ProcedureAnswer<N>> {
    return this.send({ procedure: { name, args } }) as Promise<ProcedureAnswer<N>>;
  }

  private send(request: Omit<ReadRequest, 'id'>): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    const reader = this.leastBusy();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      reader.pending.set(id, { resolve, reject });
      reader.worker.postMessage({ id, ...request });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const readers = this.readers;
    this.readers = [];
    await Promise.all(readers.map((r) => r.worker.terminate()));
  }

  private leastBusy(): Reader {
    while (this.readers.length < this.size) this.readers.push(this.spawn());
    let best = this.readers[0]!;
    for (const r of this.readers) if (r.pending.size < best.pending.size) best = r;
    return best;
  }

  private spawn(): Reader {
    const worker = startWorker({ file: this.file });
    // An idle reader does not keep a command-line run alive.
    worker.unref();
    const reader: Reader = { worker, pending: new Map() };
    worker.on('message', (answer: ReadAnswer) => {
      const p = reader.pending.get(answer.id);
      if (!p) return;
      reader.pending.delete(answer.id);
      if ('answer' in answer) p.resolve(answer.answer);
      else p.reject(Object.assign(new Error(answer.error.message), answer.error.code ? { code: answer.error.code } : {}));
    });
    const fail = (err: Error) => {
      // A thread that died is replaced at the next read; what it was answering fails, not hangs.
      this.readers = this.readers.filter((r) => r !== reader);
      for (const p of reader.pending.values()) p.reject(err);
      reader.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`a reader thread stopped (exit code ${code})`)));
    return reader;
  }
}

const byDb = new WeakMap<object, SqliteReaders>();

export function attachReaders(db: Db, readers: SqliteReaders): void {
  byDb.set(db, readers);
}

/** The reader threads of this database handle; none in a transaction, on PostgreSQL, or when switched off. */
export function readersOf(db: Db): SqliteReaders | undefined {
  return byDb.get(db);
}

/**
 * A read in steps (procedures.ts): whole on a reader thread where the handle has them,
 * otherwise each step's queries on the handle in turn.
 */
export async function readProcedure<N extends ProcedureName>(db: Db, name: N, args: ProcedureArgs<N>): Promise<ProcedureAnswer<N>> {
  const readers = readersOf(db);
  if (readers) return readers.call(name, args);
  const steps = (PROCEDURES[name] as (a: ProcedureArgs<N>) => Generator<ReadQuery[], ProcedureAnswer<N>, unknown[][]>)(args);
  return runSteps(steps, (queries) => Promise.all(queries.map(async (q) => (await db.executeQuery(CompiledQuery.raw(q.sql, [...q.parameters]))).rows)));
}
