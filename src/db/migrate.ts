import { Migrator, sql, type Kysely, type Migration, type MigrationProvider, type MigrationResult } from 'kysely';
import type { DatabaseHandle } from './connection.js';
import type { DialectHelpers } from './dialect.js';
import * as m0001 from './migrations/0001-accounts.js';
import * as m0002 from './migrations/0002-reservations.js';
import * as m0003 from './migrations/0003-jobs-events.js';
import * as m0004 from './migrations/0004-screening.js';
import * as m0005 from './migrations/0005-rules.js';
import * as m0006 from './migrations/0006-blocklist.js';
import * as m0007 from './migrations/0007-search-indexes.js';
import * as m0008 from './migrations/0008-deferred-search-index.js';

type Step = { up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> };

// The list is static (not read from the file system) so the compiled build and the tests
// run exactly the same migrations. Append only; never edit a released step.
const STEPS: Record<string, Step> = {
  '0001-accounts': m0001,
  '0002-reservations': m0002,
  '0003-jobs-events': m0003,
  '0004-screening': m0004,
  '0005-rules': m0005,
  '0006-blocklist': m0006,
  '0007-search-indexes': m0007,
  '0008-deferred-search-index': m0008,
};

class StaticProvider implements MigrationProvider {
  constructor(private readonly d: DialectHelpers) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, step] of Object.entries(STEPS)) out[name] = { up: (db) => step.up(db, this.d) };
    return out;
  }
}

export class MigrationError extends Error {}

/** Brings the schema to the latest version; throws (never exits 0) when a step fails. */
export async function migrateToLatest(handle: DatabaseHandle): Promise<MigrationResult[]> {
  // On PostgreSQL, name the schema: Kysely's existence check otherwise sees the bookkeeping
  // tables of any schema in the database and skips creating its own.
  const schema =
    handle.dialect.kind === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(handle.db)).rows[0]?.s
      : undefined;
  const migrator = new Migrator({
    db: handle.db,
    provider: new StaticProvider(handle.dialect),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) {
    const failed = results.find((r) => r.status === 'Error')?.migrationName ?? 'unknown step';
    throw new MigrationError(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return results;
}
