import { sql, type Kysely } from 'kysely';

/**
 * SQLite's full-text index of reservations (FTS5 with the trigram tokenizer, migrations 0007,
 * 0008 and 0013): the text a row is found by, the key its terms are stored under, and the merge
 * of the index's segments. The index is written by the statement cache just before each commit
 * (deferredSearchIndex in open.ts) and read by text-search.ts.
 */

export interface CompactOptions {
  /** Merge only when the index is in at least this many segments (default 8; 1 merges a single segment too, dropping the terms of deleted rows). */
  minSegments?: number;
  /** Leaf pages merged a step (default 100: a short write). */
  pages?: number;
  pauseMs?: number;
}

/**
 * FTS5 writes each transaction's terms as a segment of their own and merges them as they pile
 * up (automerge), so an index written a little at a time sits in tens of segments, and every
 * search looks each term up in each, so one segment answers more searches a second than tens.
 * 'optimize' merges them in one go, a write that holds the database for as long as it takes;
 * FTS5's 'merge' with a negative page count starts the same merge and positive ones go on with
 * it, each step a short write of its own, until a step does nothing (fewer than two changes).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function compactSearchIndex(db: Kysely<any>, opts: CompactOptions = {}): Promise<number> {
  const { minSegments = 8, pages = 100, pauseMs = 20 } = opts;
  const segments = Number((await sql<{ n: number }>`select count(distinct segid) as n from reservations_fts_idx`.execute(db)).rows[0]?.n ?? 0);
  if (segments === 0 || segments < minSegments) return 0;
  const changes = async () => Number((await sql<{ n: number }>`select total_changes() as n`.execute(db)).rows[0]!.n);
  let steps = 0;
  for (let budget = -pages; ; budget = pages) {
    const before = await changes();
    await sql`insert into reservations_fts(reservations_fts, rank) values ('merge', ${budget})`.execute(db);
    steps++;
    if ((await changes()) - before < 2) return steps;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/** An FTS5 query for the term as one phrase: with the trigram tokenizer, the term as a substring. */
export const ftsPhrase = (term: string) => `"${term.toLowerCase().replaceAll('"', '""')}"`;

/**
 * SQLite: the key a reservation's terms have in the full-text index (migration 0013). It orders
 * the index by account, then check-in day, then row: `ord << 43 | day << 27 | seq`, with `ord`
 * the account's number in reservations_fts_accounts (1 to 2^20 - 1), `day` the check-in date's
 * days since 1970 (none, earlier or later held at 0 and 2^16 - 1, so the order holds) and `seq`
 * the row (under 2^27). An account's matches are then one range of the index, newest check-in
 * last, so a text search counts and pages them without reading a row (searchByCheckIn in
 * text-search.ts). A row past those bounds is keyed by its seq alone, under 2^43,
 * where only the general search finds it.
 */
export const SEARCH_KEY = {
  ordShift: 43,
  dayShift: 27,
  /** seq and day fields: 2^27 - 1 and 2^16 - 1. */
  seqMask: 134217727,
  maxDay: 65535,
  /** The first ord past the range, and the first seq past it: 2^20 and 2^27. */
  ordLimit: 1048576,
  seqLimit: 134217728,
  /** Keys under this (2^43) are rows keyed by seq alone. */
  keyedBase: 8796093022208,
} as const;

/** The row (seq) of a full-text index key, as SQL over the index's rowid. */
export const SEARCH_KEY_SEQ = `case when rowid < ${SEARCH_KEY.keyedBase} then rowid else rowid & ${SEARCH_KEY.seqMask} end`;

/** A reservation row's full-text index key (see SEARCH_KEY), as SQL; `row` names the row (a table alias, `new` or `old`). */
export function sqliteSearchKey(row: string): string {
  const k = SEARCH_KEY;
  const ord = `coalesce((select a.ord from reservations_fts_accounts a where a.account_id = ${row}.account_id), 0)`;
  const day = `min(max(coalesce(cast(julianday(${row}.check_in_date) - 2440587.5 as integer), 0), 0), ${k.maxDay})`;
  return `(select case when o.ord between 1 and ${k.ordLimit - 1} and ${row}.seq < ${k.seqLimit} then (o.ord << ${k.ordShift}) | (${day} << ${k.dayShift}) | ${row}.seq else ${row}.seq end from (select ${ord} as ord) o)`;
}

/**
 * SQLite: the text a reservation is found by, as the full-text index holds it (written by
 * deferredSearchIndex in open.ts; PostgreSQL's generated search_text column is the same).
 */
export const sqliteSearchText = (table: string) =>
  `lower(concat_ws(' ', ${['guest_full_name', 'guest_email', 'guest_phone', 'confirmation_code', 'listing_nickname'].map((c) => `${table}.${c}`).join(', ')}))`;
