import { sql, type Compilable, type CompiledQuery, type Insertable, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Db } from './types.js';

const PLACEHOLDER = '\u0000guestscreen-argument:';

/**
 * A query that Kysely builds and compiles once per database handle; each call runs that SQL with
 * its own values. Building and compiling a select anew took about a tenth of the CPU of
 * `GET /v1/reservations/{id}` (Kysely's tree copies and the garbage they leave). `build` is called
 * once, with placeholders for its arguments, so it must put each argument into the query as a
 * value, as it is: no branching on it and no transforming it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function compiledOnce<D extends Kysely<any>, A extends string[], R>(build: (db: D, ...args: A) => Compilable<R>): (db: D, ...args: A) => Promise<R[]> {
  const cache = new WeakMap<D, { compiled: CompiledQuery<R>; slots: ({ arg: number } | { value: unknown })[] }>();
  const prepare = (db: D, arity: number) => {
    const compiled = build(db, ...(Array.from({ length: arity }, (_, i) => `${PLACEHOLDER}${i}`) as A)).compile();
    const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(PLACEHOLDER) ? { arg: Number(p.slice(PLACEHOLDER.length)) } : { value: p }));
    const used = new Set(slots.flatMap((s) => ('arg' in s ? [s.arg] : [])));
    if (used.size !== arity) throw new Error(`compiledOnce: the query uses ${used.size} of its ${arity} arguments as values`);
    const entry = { compiled, slots };
    cache.set(db, entry);
    return entry;
  };
  return async (db, ...args) => {
    const { compiled, slots } = cache.get(db) ?? prepare(db, args.length);
    const parameters = slots.map((s) => ('arg' in s ? args[s.arg] : s.value));
    return (await db.executeQuery<R>({ ...compiled, parameters })).rows;
  };
}

const shapes = new WeakMap<object, Map<string, { compiled: CompiledQuery; slots: ({ name: string } | { value: unknown })[] }[]>>();

/**
 * Queries whose SQL is fixed by a shape (which filters a search has, how many values a list
 * holds): Kysely builds and compiles them once per database handle and shape, and each call runs
 * that SQL with its own values, by name. `build` gets `v(name)`, a placeholder for the value of
 * that name, and must put each into a query as a value, untouched; the shape must say everything
 * else the SQL depends on. Building a reservation search anew was a visible share of the main
 * thread's time under a load of searches.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function byShape<D extends Kysely<any>>(db: D, shape: string, values: Record<string, unknown>, build: (v: (name: string) => never) => Compilable<unknown>[]): Compilable<unknown>[] {
  // By the dialect's adapter, so a transaction's handle shares the queries of the database's.
  const adapter: object = db.getExecutor().adapter;
  let byKey = shapes.get(adapter);
  if (!byKey) shapes.set(adapter, (byKey = new Map()));
  let queries = byKey.get(shape);
  if (!queries) {
    queries = build(((name: string) => `${PLACEHOLDER}${name}`) as (name: string) => never).map((q) => {
      const compiled = q.compile();
      return { compiled, slots: compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(PLACEHOLDER) ? { name: p.slice(PLACEHOLDER.length) } : { value: p })) };
    });
    const used = new Set(queries.flatMap((q) => q.slots.flatMap((s) => ('name' in s ? [s.name] : []))));
    const missing = Object.keys(values).filter((name) => !used.has(name));
    if (missing.length || [...used].some((name) => !(name in values))) throw new Error(`byShape: the queries of ${shape} do not use exactly its values as values (${[...used].join(', ')})`);
    byKey.set(shape, queries);
  }
  return queries.map(({ compiled, slots }) => ({ compile: () => ({ ...compiled, parameters: slots.map((s) => ('name' in s ? values[s.name] : s.value)) }) }));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const insertShapes = new WeakMap<object, Map<string, CompiledQuery<never>>>();

/**
 * `on conflict (column) where whereColumn = 'whereValue' do update set c = excluded.c, ...`:
 * the row joins the one a partial unique index already holds, taking its new values (and its
 * row lock, so a worker claiming with SKIP LOCKED waits for this transaction to commit).
 */
export interface Coalesce {
  column: string;
  whereColumn: string;
  whereValue: string;
  update: string[];
}

/**
 * Inserts rows of plain values (strings, numbers, booleans, null), all with the same columns.
 * The SQL for a table, its columns and the number of rows is built and compiled by Kysely once
 * per dialect and reused, transactions included: building and compiling the five inserts of a
 * create anew took about a tenth of its CPU. `ignoreConflicts` adds `on conflict do nothing`.
 * Returns the number of rows inserted.
 */
export async function insertRows<T extends keyof Database & string>(
  db: Db,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  opts: { ignoreConflicts?: boolean; coalesce?: Coalesce } = {},
): Promise<number> {
  const values = rows as readonly Record<string, unknown>[];
  const first = values[0];
  if (!first) return 0;
  const columns = Object.keys(first).filter((c) => first[c] !== undefined);
  for (const row of values) {
    if (Object.keys(row).filter((c) => row[c] !== undefined).length !== columns.length || columns.some((c) => row[c] === undefined)) {
      throw new Error(`insertRows: every row into ${table} must have the same columns`);
    }
  }
  const adapter: object = db.getExecutor().adapter;
  let shapes = insertShapes.get(adapter);
  if (!shapes) insertShapes.set(adapter, (shapes = new Map()));
  const c = opts.coalesce;
  const key = `${table}\u0000${rows.length}\u0000${opts.ignoreConflicts ? 1 : 0}\u0000${c ? JSON.stringify(c) : ''}\u0000${columns.join('\u0000')}`;
  let compiled = shapes.get(key);
  if (!compiled) {
    const placeholders = rows.map((_, i) => Object.fromEntries(columns.map((col, j) => [col, `${PLACEHOLDER}${i * columns.length + j}`])));
    const query = (db as AnyDb).insertInto(table).values(placeholders);
    const withConflict = c
      ? query.onConflict((oc) =>
          oc
            .column(c.column)
            .where(sql.ref(c.whereColumn), '=', sql.lit(c.whereValue))
            .doUpdateSet(Object.fromEntries(c.update.map((col) => [col, sql.ref(`excluded.${col}`)])) as never),
        )
      : opts.ignoreConflicts
        ? query.onConflict((oc) => oc.doNothing())
        : query;
    compiled = withConflict.compile();
    if (!compiled.parameters.every((p, i) => p === `${PLACEHOLDER}${i}`)) throw new Error(`insertRows: unexpected parameters in ${compiled.sql}`);
    shapes.set(key, compiled);
  }
  const parameters: unknown[] = [];
  for (const row of values) for (const c of columns) parameters.push(row[c]);
  const result = await db.executeQuery({ ...compiled, parameters });
  return Number(result.numAffectedRows ?? 0);
}
