import { sql, type Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

/**
 * SQLite only. FTS5 writes the terms it holds in memory to disk, as a new segment, at every
 * savepoint, and every statement that may need undoing (a multi-row insert, an insert into a
 * table with a unique index) opens one. Written by a trigger in the middle of a create, each
 * reservation's terms became a segment of their own, written and later merged: the statements
 * after it in the same create paid for that. The triggers now only note which rows' terms are stale, and the terms of a whole
 * transaction are written once, right before it commits (flushSearchIndex in connection.ts).
 *
 * `indexed` says whether the full-text index holds terms for the row from an earlier
 * transaction (an update or a delete), which must go, or not (a row created in this one).
 */
export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  if (d.kind !== 'sqlite') return;
  await sql`create table reservations_fts_stale (seq integer primary key, indexed integer not null)`.execute(db);
  await sql`drop trigger reservations_fts_ai`.execute(db);
  await sql`drop trigger reservations_fts_au`.execute(db);
  await sql`drop trigger reservations_fts_ad`.execute(db);
  await sql`create trigger reservations_fts_ai after insert on reservations begin
    insert or ignore into reservations_fts_stale(seq, indexed) values (new.seq, 0); end`.execute(db);
  await sql`create trigger reservations_fts_au after update of guest_full_name, guest_email, guest_phone, confirmation_code, listing_nickname on reservations begin
    insert or ignore into reservations_fts_stale(seq, indexed) values (old.seq, 1); end`.execute(db);
  // A deleted row's terms go at once, in its own transaction: erasure must not wait for a flush.
  await sql`create trigger reservations_fts_ad after delete on reservations begin
    delete from reservations_fts where rowid = old.seq and not exists (select 1 from reservations_fts_stale where seq = old.seq and indexed = 0);
    delete from reservations_fts_stale where seq = old.seq; end`.execute(db);
}
