/**
 * A thread that answers reads from its own read-only connection to the SQLite file (see
 * read-pool.ts). The queries of one message run in one read transaction, so they see one
 * snapshot of the database: a count and its page agree.
 */
import BetterSqlite3 from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { bindable } from './sqlite-bind.js';

export interface ReadRequest {
  id: number;
  queries: { sql: string; parameters: readonly unknown[] }[];
}
export type ReadAnswer = { id: number; rows: unknown[][] } | { id: number; error: { message: string; code?: string } };

const { file } = workerData as { file: string };
const sqlite = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
sqlite.pragma('busy_timeout = 5000');

const cache = new Map<string, BetterSqlite3.Statement>();
const prepared = (sql: string) => {
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = sqlite.prepare(sql);
    if (!stmt.reader) throw new Error('a reader thread only runs statements that return rows');
    if (cache.size >= 200) cache.delete(cache.keys().next().value!);
    cache.set(sql, stmt);
  }
  return stmt;
};
const snapshot = sqlite.transaction((queries: ReadRequest['queries']) => queries.map((q) => prepared(q.sql).all(bindable(q.parameters))));

parentPort!.on('message', ({ id, queries }: ReadRequest) => {
  let answer: ReadAnswer;
  try {
    answer = { id, rows: queries.length === 1 ? [prepared(queries[0]!.sql).all(bindable(queries[0]!.parameters))] : snapshot(queries) };
  } catch (err) {
    const e = err as { message?: string; code?: unknown };
    answer = { id, error: { message: String(e.message ?? err), ...(typeof e.code === 'string' ? { code: e.code } : {}) } };
  }
  parentPort!.postMessage(answer);
});
