import { type Kysely, type RawBuilder, sql } from 'kysely';

// Everything that differs between SQLite and PostgreSQL lives here, so the rest of the code
// writes one set of queries.
export type DialectKind = 'sqlite' | 'postgres';

export interface DialectHelpers {
  kind: DialectKind;
  /** Column type for a boolean flag. */
  boolType: 'boolean' | 'integer';
  /** Column type for an auto-incrementing surrogate key. */
  serialType: 'integer' | 'bigserial';
  /** Column type for a blob of bytes. */
  blobType: 'blob' | 'bytea';
  /**
   * SQLite: its full-text index keeps a deleted row's terms in its segments, marked deleted,
   * until those are merged; an erasure queues a `search.purge` job, which merges the whole index
   * in short steps (compactSearchIndex with minSegments 1), so the terms are gone from its pages.
   */
  keepsDeletedTerms: boolean;
  /**
   * SQLite: merges the reservations' full-text index into one segment, a bounded step at a time
   * with a pause between steps, so the process goes on answering meanwhile; resolves with the
   * steps taken. Nothing when the index is in fewer than `minSegments` segments, or on
   * PostgreSQL. See compactSearchIndex.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  compactSearchIndex(db: Kysely<any>, opts?: CompactOptions): Promise<number>;
}

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
async function compactSearchIndex(db: Kysely<any>, opts: CompactOptions = {}): Promise<number> {
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

export function dialectHelpers(kind: DialectKind): DialectHelpers {
  return kind === 'sqlite'
    ? {
        kind,
        boolType: 'integer',
        serialType: 'integer',
        blobType: 'blob',
        keepsDeletedTerms: true,
        compactSearchIndex,
      }
    : { kind, boolType: 'boolean', serialType: 'bigserial', blobType: 'bytea', keepsDeletedTerms: false, compactSearchIndex: async () => 0 };
}

/** count(*) comes back as a string from PostgreSQL (bigint) and a number from SQLite. */
export const countAll = () => sql<number | string>`count(*)`;

/**
 * PostgreSQL: marks a select whose best plan depends on its parameters' values (a LIKE pattern,
 * a date range, an account of 20 or of 100,000 bookings). Such a statement is sent unnamed and
 * planned for its values each time; the others are prepared once per connection and may run a
 * generic plan (see withNamedStatements in connection.ts), which made text search several times
 * slower. Use with `.modifyFront(PLAN_PER_CALL)`.
 */
export const PLAN_PER_CALL_MARK = '/* plan:per-call */';
export const PLAN_PER_CALL = sql.raw(PLAN_PER_CALL_MARK);

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** `column LIKE 'prefix%'`, literally. */
export function startsWithLike(column: string, prefix: string) {
  return sql<boolean>`${sql.ref(column)} like ${`${escapeLike(prefix)}%`} escape '\\'`;
}

/**
 * Case-insensitive substring match over a reservation's guest name, e-mail, phone,
 * confirmation code and listing nickname, through each database's trigram index: FTS5's
 * trigram tokenizer on SQLite, pg_trgm's GIN index on the generated search_text column on
 * PostgreSQL. Terms under three characters have no trigram and fall back to a scan. `shape`
 * names the SQL, `value` is what it binds, and `where(value)` is the condition, so a caller can
 * compile it once per shape (byShape in compiled.ts).
 */
export function reservationTextMatch(kind: DialectKind, term: string): { shape: string; value: string; where: (value: unknown) => RawBuilder<boolean> } {
  const t = term.toLowerCase();
  const contains = `%${escapeLike(t)}%`;
  if (kind === 'postgres') return { shape: 'like', value: contains, where: (v) => sql<boolean>`${sql.ref('reservations.search_text')} like ${v} escape '\\'` };
  if (t.length < 3) return { shape: 'scan', value: contains, where: (v) => sql<boolean>`${sql.raw(sqliteSearchText('reservations'))} like ${v} escape '\\'` };
  return {
    shape: 'fts',
    value: ftsPhrase(t),
    where: (v) => sql<boolean>`reservations.seq in (select ${sql.raw(SEARCH_KEY_SEQ)} from reservations_fts where reservations_fts match ${v})`,
  };
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
 * reservations/text-search.ts). A row past those bounds is keyed by its seq alone, under 2^43,
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
 * flushSearchIndex in connection.ts; PostgreSQL's generated search_text column is the same).
 */
export const sqliteSearchText = (table: string) =>
  `lower(concat_ws(' ', ${['guest_full_name', 'guest_email', 'guest_phone', 'confirmation_code', 'listing_nickname'].map((c) => `${table}.${c}`).join(', ')}))`;

/** A unique constraint refused the write (SQLite SQLITE_CONSTRAINT_UNIQUE / PostgreSQL 23505). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/**
 * The row-claiming difference: PostgreSQL locks the chosen rows and skips rows another worker
 * holds (FOR UPDATE SKIP LOCKED); SQLite serialises writers, so the plain select is enough.
 */
export function lockForClaim<Q extends { forUpdate(): { skipLocked(): Q } }>(kind: DialectKind, query: Q): Q {
  return kind === 'postgres' ? query.forUpdate().skipLocked() : query;
}

/**
 * Articles of the news corpus whose folded text holds the phrase (tokens as nameTokens gives
 * them): FTS5 on SQLite, a tsvector phrase query on PostgreSQL.
 */
export function newsPhraseMatch(kind: DialectKind, tokens: string[]) {
  const words = tokens.map((t) => t.replace(/[^\p{L}\p{N}]/gu, '')).filter(Boolean);
  return kind === 'sqlite'
    ? sql<boolean>`news_articles.id in (select rowid from news_fts where news_fts match ${`"${words.join(' ')}"`})`
    : sql<boolean>`to_tsvector('simple', news_articles.search_text) @@ phraseto_tsquery('simple', ${words.join(' ')})`;
}
