/**
 * A thread that answers reads from its own read-only connection to the SQLite file (see
 * readers.ts). The queries of one message, or the steps of one read in steps
 * (procedures.ts), run in one read transaction, so they see one snapshot of the database:
 * a count and its page agree.
 */
import { openSqliteFile } from './driver.js';
import { parentPort, workerData } from 'node:worker_threads';
import type { ReadQuery } from './readers.js';
import { PROCEDURES, runStepsSync, type ProcedureName, type ReadSteps } from './procedures.js';
import { rowsOf } from './bind.js';

export type ReadRequest = { id: number; queries: { sql: string; parameters: readonly unknown[] }[] } | { id: number; procedure: { name: ProcedureName; args: unknown } };
export type ReadAnswer = { id: number; answer: unknown } | { id: number; error: { message: string; code?: string } };

const { file } = workerData as { file: string };
const sqlite = openSqliteFile(file, { readonly: true, fileMustExist: true });
sqlite.pragma('busy_timeout = 5000');

const cache = new Map<string, ReturnType<typeof rowsOf>>();
const prepared = (sql: string) => {
  let rows = cache.get(sql);
  if (!rows) {
    const stmt = sqlite.prepare(sql);
    if (!stmt.reader) throw new Error('a reader thread only runs statements that return rows');
    rows = rowsOf(stmt);
    if (cache.size >= 200) cache.delete(cache.keys().next().value!);
    cache.set(sql, rows);
  }
  return rows;
};
const all = (queries: ReadQuery[]) => queries.map((q) => prepared(q.sql).all(q.parameters));
const snapshot = sqlite.transaction(all);
// A read in steps: all of them in one read transaction.
const procedure = sqlite.transaction(({ name, args }: { name: ProcedureName; args: unknown }) => runStepsSync((PROCEDURES[name] as (a: unknown) => ReadSteps<unknown>)(args), all));

parentPort!.on('message', (request: ReadRequest) => {
  let answer: ReadAnswer;
  try {
    if ('procedure' in request) answer = { id: request.id, answer: procedure(request.procedure) };
    else answer = { id: request.id, answer: request.queries.length === 1 ? all(request.queries) : snapshot(request.queries) };
  } catch (err) {
    const e = err as { message?: string; code?: unknown };
    answer = { id: request.id, error: { message: String(e.message ?? err), ...(typeof e.code === 'string' ? { code: e.code } : {}) } };
  }
  parentPort!.postMessage(answer);
});
