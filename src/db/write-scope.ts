import { AsyncLocalStorage } from 'node:async_hooks';
import type { Tx } from './types.js';

/**
 * What a caller asks of every transaction committed through `withTx` on its behalf: one more
 * statement inside it, before the commit. The HTTP layer uses it to record, in the very
 * transaction that does a request's work, that the work was done, so that a record of it exists
 * exactly when the work does (an Idempotency-Key's promise across a crash).
 */
export interface WriteScope {
  /** Runs inside the transaction; throwing rolls the transaction back. `subject`: the object it wrote, if the caller named one. */
  inTransaction(tx: Tx, subject: string | undefined): Promise<void>;
}

const current = new AsyncLocalStorage<WriteScope>();

/** Runs `fn` (and everything it starts) with `scope` applied to its transactions. */
export function runInWriteScope<T>(scope: WriteScope, fn: () => T): T {
  return current.run(scope, fn);
}

export function currentWriteScope(): WriteScope | undefined {
  return current.getStore();
}
