/**
 * Reads in steps: a generator yields the queries of a step, gets their rows back, and returns
 * the answer, so a read whose next query depends on the last one's rows runs where the data
 * is. On SQLite with reader threads (readers.ts) the whole read runs on one thread, in one
 * snapshot, with no message between steps; elsewhere each step goes to the database handle in
 * turn. A reader thread finds a procedure by its name here.
 */
import type { ReadQuery } from './readers.js';
import { searchByCheckIn } from './text-search.js';

export type ReadSteps<R> = Generator<ReadQuery[], R, unknown[][]>;

export const PROCEDURES = {
  searchByCheckIn,
} satisfies Record<string, (args: never) => ReadSteps<unknown>>;

export type ProcedureName = keyof typeof PROCEDURES;
export type ProcedureArgs<N extends ProcedureName> = Parameters<(typeof PROCEDURES)[N]>[0];
export type ProcedureAnswer<N extends ProcedureName> = ReturnType<(typeof PROCEDURES)[N]> extends ReadSteps<infer R> ? R : never;

/** Drives a procedure's steps with a synchronous query runner (a reader thread's connection). */
export function runStepsSync<R>(steps: ReadSteps<R>, run: (queries: ReadQuery[]) => unknown[][]): R {
  let next = steps.next([]);
  while (!next.done) next = steps.next(run(next.value));
  return next.value;
}

/** Drives a procedure's steps with an asynchronous query runner (a database handle). */
export async function runSteps<R>(steps: ReadSteps<R>, run: (queries: ReadQuery[]) => Promise<unknown[][]>): Promise<R> {
  let next = steps.next([]);
  while (!next.done) next = steps.next(await run(next.value));
  return next.value;
}
