import type { Kysely } from 'kysely';
import type { DialectHelpers } from './dialect.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  dialect: DialectHelpers;
  /** Where the data lives, for the start-up banner (no credentials). */
  description: string;
  close(): Promise<void>;
}
