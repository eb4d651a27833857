/** better-sqlite3 cannot bind JavaScript booleans: they go in as 1 and 0, as SQLite stores them. */
export function bindable(params: readonly unknown[]): readonly unknown[] {
  for (const p of params) if (typeof p === 'boolean') return params.map((v) => (typeof v === 'boolean' ? Number(v) : v));
  return params;
}
