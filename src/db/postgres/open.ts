import { Kysely, PostgresDialect } from 'kysely';
import { createRequire } from 'node:module';
import type pg from 'pg';
import { dialectHelpers, PLAN_PER_CALL_MARK } from '../dialect.js';
import type { Database } from '../schema.js';
import type { DatabaseHandle } from '../types.js';

/**
 * Kysely sends every query unnamed, so PostgreSQL parses and plans it anew each time. Named, a
 * statement is parsed once per connection and its plan reused, which pays on every read of a
 * reservation. Names go to the first 500
 * distinct SQL texts with parameters (texts that vary with the length of an IN list would
 * otherwise pile up prepared statements on every connection); the rest run unnamed as before,
 * and so do selects marked PLAN_PER_CALL.
 */
function withNamedStatements(pool: pg.Pool, max = 500): pg.Pool {
  const names = new Map<string, string>();
  const wrapped = new WeakSet<pg.PoolClient>();
  const unprepared = new WeakSet<pg.PoolClient>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name && names.size < max) names.set(text, (name = `gs${names.size}`));
    return name;
  };
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop !== 'connect') return Reflect.get(target, prop, receiver) as unknown;
      return async () => {
        const client = await connect();
        if (!wrapped.has(client)) {
          wrapped.add(client);
          const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
          client.query = (async (text: unknown, values?: unknown[]) => {
            const name = typeof text === 'string' && values && values.length > 0 && !text.includes(PLAN_PER_CALL_MARK) && !unprepared.has(client) ? nameOf(text) : undefined;
            if (!name) return query(text, values);
            try {
              return await namedQuery(query, name, text as string, values!);
            } catch (err) {
              // A migration from another process changed a table under a prepared `select *`:
              // this connection names no more statements for the rest of its life, and the query
              // runs again unnamed, which works unless it was inside a transaction.
              if ((err as { code?: string }).code !== '0A000') throw err;
              unprepared.add(client);
              return query(text, values).catch(() => Promise.reject(err));
            }
          }) as typeof client.query;
        }
        return client;
      };
    },
  });
}

/**
 * The fields of a named statement's answers, worked out once per process (ShapedResult, below).
 * pg builds a row's type parsers and its empty template anew for every answer, the template as
 * a dictionary-mode object (`Object.create(null)`) that every row is then copied from: for the
 * 29 columns of a reservation that was the largest single cost of GET /v1/reservations/{id} on
 * PostgreSQL (`addFields`, node-postgres issue 3055). A named statement always
 * describes the same columns (a migration that changes them fails it with 0A000, see above), so
 * its parsers and an ordinary object template are kept by name and reused while the answer's
 * columns match.
 */
interface Shape {
  names: string[];
  types: number[];
  parsers: ((value: string) => unknown)[];
  template: Record<string, null>;
}
const shapes = new Map<string, Shape>();

/** pg loads only where PostgreSQL is configured, not in every start on the embedded SQLite. */
let pgModule: { pg: typeof pg; ShapedResult: new (statement: string) => pg.Result } | undefined;
function loadPg() {
  if (pgModule) return pgModule;
  const pgm = createRequire(import.meta.url)('pg') as typeof pg;
  class ShapedResult extends pgm.Result {
    declare _parsers: Shape['parsers'] | undefined;
    declare _prebuiltEmptyResultObject: Record<string, null> | null;

    constructor(readonly statement: string) {
      super(undefined as unknown as string, undefined as unknown as typeof pg.types);
    }

    addFields(fields: pg.FieldDef[]): void {
      let shape = shapes.get(this.statement);
      if (!shape || !sameColumns(shape, fields)) {
        const template: Record<string, null> = {};
        for (const f of fields) template[f.name] = null;
        shape = {
          names: fields.map((f) => f.name),
          types: fields.map((f) => f.dataTypeID),
          parsers: fields.map((f) => pgm.types.getTypeParser(f.dataTypeID, (f.format as 'text' | 'binary' | undefined) ?? 'text')),
          template,
        };
        shapes.set(this.statement, shape);
      }
      this.fields = fields;
      this._parsers = shape.parsers;
      this._prebuiltEmptyResultObject = shape.template;
    }
  }
  return (pgModule = { pg: pgm, ShapedResult });
}

function sameColumns(shape: Shape, fields: pg.FieldDef[]): boolean {
  if (shape.names.length !== fields.length) return false;
  for (let i = 0; i < fields.length; i++) if (shape.names[i] !== fields[i]!.name || shape.types[i] !== fields[i]!.dataTypeID) return false;
  return true;
}

function namedQuery(send: (q: pg.Query) => unknown, name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const { pg: pgm, ShapedResult } = loadPg();
    const q = new pgm.Query({ name, text, values }, (err: Error | undefined, result: unknown) => (err ? reject(err) : resolve(result as pg.QueryResult)));
    const internals = q as unknown as { _result: pg.Result; _results: pg.Result };
    internals._result = internals._results = new ShapedResult(name);
    send(q);
  });
}

/** PostgreSQL through a pool of pg connections whose statements are named and their answers' shapes kept. */
export function openPostgres(url: string, max: number): DatabaseHandle {
  const pool = new (loadPg().pg.Pool)({ connectionString: url, max });
  // An idle client that loses its server emits 'error'; without a listener the process dies.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }) });
  const u = new URL(url);
  return {
    db,
    dialect: dialectHelpers('postgres'),
    description: `PostgreSQL ${u.hostname}:${u.port || 5432}${u.pathname}`,
    close: () => db.destroy(),
  };
}

/**
 * Makes the database DATABASE_URL names when the server has none of that name, as `createdb`
 * would, through the server's `postgres` database with the same role: the first start on a new
 * server then needs nothing done by hand. 'exists' when it was there; a role that may not create
 * databases gets an error that says what to run instead.
 */
export async function ensurePostgresDatabase(url: string): Promise<'exists' | 'created'> {
  const { pg: pgm } = loadPg();
  const probe = new pgm.Client({ connectionString: url });
  try {
    await probe.connect();
    return 'exists';
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const admin = new pgm.Client({ connectionString: maintenance.toString() });
  try {
    await admin.connect();
    await admin.query(`create database ${admin.escapeIdentifier(name)}`);
    return 'created';
  } catch (err) {
    const code = (err as { code?: string }).code;
    // Another node made it meanwhile.
    if (code === '42P04') return 'exists';
    throw new Error(
      `the PostgreSQL database "${name}" does not exist and could not be made (${(err as Error).message}): make it with \`createdb ${name}\` as a role that may, or point DATABASE_URL at one that exists`,
    );
  } finally {
    await admin.end().catch(() => undefined);
  }
}
