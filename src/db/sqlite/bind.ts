import type BetterSqlite3 from 'better-sqlite3';

/** better-sqlite3 cannot bind JavaScript booleans: they go in as 1 and 0, as SQLite stores them. */
export function bindable(params: readonly unknown[]): readonly unknown[] {
  for (const p of params) if (typeof p === 'boolean') return params.map((v) => (typeof v === 'boolean' ? Number(v) : v));
  return params;
}

type Row = Record<string, unknown>;
type BuildRow = (values: unknown[]) => Row;

const builders = new Map<string, BuildRow>();

/**
 * Makes objects of a column list's rows, one constructor per list. A literal with the columns as
 * its keys gives every row the same shape from the start; better-sqlite3 adds the columns to an
 * empty object one by one, which took twice as long for a page of reservations, and its objects
 * were slower to send to another thread.
 * As with better-sqlite3's objects, a name given twice keeps its last value.
 */
export function rowBuilder(names: readonly string[]): BuildRow {
  const key = names.join('\0');
  let build = builders.get(key);
  if (!build) {
    // `__proto__` as a literal's key would set the prototype, not a column.
    build = names.includes('__proto__')
      ? (values) => Object.fromEntries(names.map((n, i) => [n, values[i]]))
      : (new Function('v', `return {${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')}};`) as BuildRow);
    if (builders.size >= 1000) builders.delete(builders.keys().next().value!);
    builders.set(key, build);
  }
  return build;
}

/**
 * A statement that returns rows, read as raw arrays and made into objects by rowBuilder. SQLite
 * prepares a statement again after the schema changes, and a `select *` then answers the columns
 * a migration added too: a row of another width takes the statement's columns anew.
 */
export function rowsOf(stmt: BetterSqlite3.Statement) {
  stmt.raw(true);
  let width = 0;
  let build: BuildRow = () => ({});
  const columns = () => {
    const names = stmt.columns().map((c) => c.name);
    width = names.length;
    build = rowBuilder(names);
  };
  columns();
  const row = (values: unknown[]) => {
    if (values.length !== width) columns();
    return build(values);
  };
  return {
    all: (params: readonly unknown[]): Row[] => (stmt.all(bindable(params)) as unknown[][]).map(row),
    *iterate(params: readonly unknown[]): IterableIterator<Row> {
      for (const values of stmt.iterate(bindable(params)) as IterableIterator<unknown[]>) yield row(values);
    },
  };
}
