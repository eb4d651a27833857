import type { Compilable, CompiledQuery, Kysely } from 'kysely';

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
