import type { Kysely, Transaction } from 'kysely';
import type { DialectHelpers } from './dialect.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

/**
 * What a `withTx` callback gets: one transaction's connection. It cannot open another
 * transaction or take a connection of the pool, and a function that takes a `Tx` (a write that
 * must commit with others) cannot be handed the pool, so both mistakes are type errors.
 */
export type Tx = Transaction<Database> & { transaction: never; startTransaction: never; connection: never };

export interface DatabaseHandle {
  db: Db;
  dialect: DialectHelpers;
  /** Where the data lives, for the start-up banner (no credentials). */
  description: string;
  close(): Promise<void>;
}
