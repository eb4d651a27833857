import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * For long loops on the thread that also answers requests: awaiting what this returns gives the
 * event loop a turn once the loop has held it for `sliceMs`. An await alone is no such turn: a
 * chain of promises that resolve at once (better-sqlite3 under Kysely, an in-memory search) runs
 * to its end before any socket is read.
 */
export function timeSlicer(sliceMs = 10): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await nextTurn();
    since = performance.now();
  };
}
