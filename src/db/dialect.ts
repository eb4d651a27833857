import { type Kysely, type RawBuilder, sql } from 'kysely';
import { compactSearchIndex, ftsPhrase, SEARCH_KEY_SEQ, sqliteSearchText, type CompactOptions } from './sqlite/search-index.js';

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
 * generic plan (see withNamedStatements in postgres/open.ts), which made text search several times
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
