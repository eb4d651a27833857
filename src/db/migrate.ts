import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider, type MigrationResult, type TableMetadata } from 'kysely';
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
import * as m0009 from './migrations/0009-guest-portal.js';
import * as m0010 from './migrations/0010-lookups.js';
import * as m0011 from './migrations/0011-checks-and-lists.js';
import * as m0012 from './migrations/0012-checkr.js';
import * as m0013 from './migrations/0013-search-keys.js';
import * as m0014 from './migrations/0014-undated-last.js';
import * as m0015 from './migrations/0015-idempotency-owner.js';
import * as m0016 from './migrations/0016-sanctions-version.js';
import * as m0017 from './migrations/0017-match-dismissals.js';
import * as m0018 from './migrations/0018-console.js';
import * as m0019 from './migrations/0019-run-colors.js';
import * as m0020 from './migrations/0020-guest-side.js';
import * as m0021 from './migrations/0021-review.js';
import * as m0022 from './migrations/0022-identity-documents.js';
import * as m0023 from './migrations/0023-run-documents.js';
import * as m0024 from './migrations/0024-selfies.js';
import * as m0025 from './migrations/0025-people.js';
import * as m0026 from './migrations/0026-alerts.js';
import * as m0027 from './migrations/0027-check-bookings.js';
import * as m0028 from './migrations/0028-listings-from-bookings.js';
import * as m0029 from './migrations/0029-alert-risks.js';
import * as m0030 from './migrations/0030-authority.js';
import * as m0031 from './migrations/0031-authority-reports.js';
import * as m0032 from './migrations/0032-authority-claims.js';
import * as m0033 from './migrations/0033-declines-handled.js';
import * as m0034 from './migrations/0034-authority-file-numbers.js';

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
  '0009-guest-portal': m0009,
  '0010-lookups': m0010,
  '0011-checks-and-lists': m0011,
  '0012-checkr': m0012,
  '0013-search-keys': m0013,
  '0014-undated-last': m0014,
  '0015-idempotency-owner': m0015,
  '0016-sanctions-version': m0016,
  '0017-match-dismissals': m0017,
  '0018-console': m0018,
  '0019-run-colors': m0019,
  '0020-guest-side': m0020,
  '0021-review': m0021,
  '0022-identity-documents': m0022,
  '0023-run-documents': m0023,
  '0024-selfies': m0024,
  '0025-people': m0025,
  '0026-alerts': m0026,
  '0027-check-bookings': m0027,
  '0028-listings-from-bookings': m0028,
  '0029-alert-risks': m0029,
  '0030-authority': m0030,
  '0031-authority-reports': m0031,
  '0032-authority-claims': m0032,
  '0033-declines-handled': m0033,
  '0034-authority-file-numbers': m0034,
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

/** True when no migration has run here: the schema (PostgreSQL) or the file (SQLite) is not guestscreen's yet. */
export async function isNewDatabase(handle: DatabaseHandle): Promise<boolean> {
  const { rows } =
    handle.dialect.kind === 'postgres'
      ? await sql<{ n: number }>`select count(*)::int as n from pg_catalog.pg_class c join pg_catalog.pg_namespace s on s.oid = c.relnamespace
          where s.nspname = current_schema() and c.relname = 'kysely_migration'`.execute(handle.db)
      : await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(handle.db);
  return Number(rows[0]?.n ?? 0) === 0;
}

/** Brings the schema to the latest version; throws (never exits 0) when a step fails. */
export async function migrateToLatest(handle: DatabaseHandle): Promise<MigrationResult[]> {
  // On PostgreSQL, name the schema: Kysely's existence check otherwise sees the bookkeeping
  // tables of any schema in the database and skips creating its own.
  const schema = handle.dialect.kind === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(handle.db)).rows[0]?.s : undefined;
  const migrator = new Migrator({
    db: schema ? withIntrospectionOf(handle.db, schema) : handle.db,
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

/**
 * The database handle with an introspector that sees only our schema. Kysely's own lists every
 * table of every schema and names each in a function call, so a schema another session dropped
 * meanwhile failed it with "schema … does not exist" (kysely-org/kysely#1419): the tests, which
 * drop their schemas while others migrate, met that. The migrator only asks which schemas and
 * tables exist; this answers from the catalog, for our schema, with no functions to fail.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function withIntrospectionOf<D extends Kysely<any>>(db: D, schema: string): D {
  const getTables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ name: string }>`select c.relname as name from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v')`.execute(db);
    return rows.map((r) => ({ name: r.name, schema, isView: false, columns: [] }));
  };
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => [{ name: schema }],
    getTables,
    getMetadata: async () => ({ tables: await getTables() }),
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'introspection') return introspection;
      // Kysely's methods use private fields: call them on the instance itself.
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
