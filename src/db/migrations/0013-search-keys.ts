import { sql, type Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

// Frozen as this migration wrote them: the key layout and the indexed text of
// src/db/sqlite/search-index.ts on the day it shipped. A released migration never follows
// later code; a new layout is a new migration.
const sqliteSearchKey = (row: string) =>
  `(select case when o.ord between 1 and 1048575 and ${row}.seq < 134217728 then (o.ord << 43) | ` +
  `(min(max(coalesce(cast(julianday(${row}.check_in_date) - 2440587.5 as integer), 0), 0), 65535) << 27) | ${row}.seq else ${row}.seq end ` +
  `from (select coalesce((select a.ord from reservations_fts_accounts a where a.account_id = ${row}.account_id), 0) as ord) o)`;
const sqliteSearchText = (table: string) => `lower(concat_ws(' ', ${table}.guest_full_name, ${table}.guest_email, ${table}.guest_phone, ${table}.confirmation_code, ${table}.listing_nickname))`;

/**
 * SQLite only. The full-text index was keyed by the reservation's row (seq), so a text search
 * looked up every match's row to learn its account and check-in date, hundreds of look-ups for
 * a common name. Keyed by
 * account, check-in day and row instead (SEARCH_KEY in dialect.ts), an account's matches are
 * one range of the index, in the order the default search answers them, and only the page's
 * rows are read.
 *
 * Accounts get their number in reservations_fts_accounts with their first reservation (a
 * trigger). The stale list (migration 0008) now also notes the key a row was indexed under,
 * since an update of the check-in date moves it, and the index is written anew under the new
 * keys.
 */
export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  if (d.kind !== 'sqlite') return;
  await sql`create table reservations_fts_accounts (ord integer primary key, account_id text not null unique)`.execute(db);
  await sql`insert into reservations_fts_accounts(account_id) select account_id from reservations group by account_id order by min(seq)`.execute(db);

  await sql`drop trigger reservations_fts_ai`.execute(db);
  await sql`drop trigger reservations_fts_au`.execute(db);
  await sql`drop trigger reservations_fts_ad`.execute(db);
  // Everything is indexed anew below, so what was stale does not matter.
  await sql`drop table reservations_fts_stale`.execute(db);
  await sql`create table reservations_fts_stale (seq integer primary key, indexed integer not null, indexed_key integer)`.execute(db);

  await sql`drop table reservations_fts`.execute(db);
  await sql`create virtual table reservations_fts using fts5(search_text, content='', contentless_delete=1, tokenize='trigram')`.execute(db);
  await sql`insert into reservations_fts(rowid, search_text) select ${sql.raw(sqliteSearchKey('r'))}, ${sql.raw(sqliteSearchText('r'))} from reservations r`.execute(db);
  await sql`insert into reservations_fts(reservations_fts) values ('optimize')`.execute(db);

  await sql`create trigger reservations_fts_ai after insert on reservations begin
    insert or ignore into reservations_fts_accounts(account_id) values (new.account_id);
    insert or ignore into reservations_fts_stale(seq, indexed) values (new.seq, 0); end`.execute(db);
  // The first update in a transaction notes the key the row is indexed under; later ones keep it.
  await sql`create trigger reservations_fts_au after update of guest_full_name, guest_email, guest_phone, confirmation_code, listing_nickname, check_in_date on reservations begin
    insert or ignore into reservations_fts_stale(seq, indexed, indexed_key) values (old.seq, 1, ${sql.raw(sqliteSearchKey('old'))}); end`.execute(db);
  // A deleted row's terms go at once, under the key they were indexed with: the one noted by an
  // update in this transaction, else the row's own; none if it was created in this transaction.
  await sql`create trigger reservations_fts_ad after delete on reservations begin
    delete from reservations_fts where rowid = coalesce((select indexed_key from reservations_fts_stale where seq = old.seq), ${sql.raw(sqliteSearchKey('old'))})
      and not exists (select 1 from reservations_fts_stale where seq = old.seq and indexed = 0);
    delete from reservations_fts_stale where seq = old.seq; end`.execute(db);
}
