import { sql, type Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  // On SQLite the full-text index refers to rows by an integer key, which must survive VACUUM:
  // so there the table gets an INTEGER PRIMARY KEY `seq` and the text id is unique beside it.
  const table =
    d.kind === 'sqlite'
      ? db.schema
          .createTable('reservations')
          .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
          .addColumn('id', 'text', (c) => c.notNull().unique())
      : db.schema.createTable('reservations').addColumn('id', 'text', (c) => c.primaryKey());
  await table
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('pms', 'text', (c) => c.notNull())
    .addColumn('pms_reservation_id', 'text')
    .addColumn('confirmation_code', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text')
    .addColumn('listing_id', 'text')
    .addColumn('listing_nickname', 'text')
    .addColumn('listing_timezone_name', 'text')
    .addColumn('number_of_guests', 'integer')
    .addColumn('nights', 'integer')
    .addColumn('total_price', 'double precision')
    .addColumn('average_daily_rate', 'double precision')
    .addColumn('check_in_date', 'text')
    .addColumn('check_out_date', 'text')
    .addColumn('guest_first_name', 'text')
    .addColumn('guest_last_name', 'text')
    .addColumn('guest_full_name', 'text')
    .addColumn('guest_phone', 'text')
    .addColumn('guest_email', 'text')
    .addColumn('guest_location', 'text')
    // The identification object, document number included, sealed with AES-256-GCM bound to the record.
    .addColumn('identification_enc', 'text')
    .addColumn('gp_token', 'text', (c) => c.notNull().unique())
    .addColumn('guestportal_completed', d.boolType, (c) => c.notNull())
    .addColumn('verification_status', 'text', (c) => c.notNull())
    .addColumn('supervised', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createIndex('reservations_code_uq').on('reservations').columns(['account_id', 'pms', 'confirmation_code']).unique().execute();
  await db.schema.createIndex('reservations_pms_id_idx').on('reservations').columns(['account_id', 'pms', 'pms_reservation_id']).execute();
  for (const col of ['check_in_date', 'check_out_date', 'created_at', 'updated_at']) {
    await db.schema.createIndex(`reservations_${col}_idx`).on('reservations').columns(['account_id', col, 'id']).execute();
  }
  for (const col of ['status', 'source', 'listing_id', 'guest_email', 'guest_phone', 'verification_status']) {
    await db.schema.createIndex(`reservations_${col}_idx`).on('reservations').columns(['account_id', col]).execute();
  }

  // Substring search over name, e-mail, phone, confirmation code and listing nickname: a trigram
  // index on both databases, kept in step with the rows by the database itself.
  if (d.kind === 'sqlite') {
    await sql`create virtual table reservations_fts using fts5(search_text, content='', contentless_delete=1, tokenize='trigram')`.execute(db);
    const text = (p: string) => sql.raw(`lower(concat_ws(' ', ${['guest_full_name', 'guest_email', 'guest_phone', 'confirmation_code', 'listing_nickname'].map((c) => `${p}.${c}`).join(', ')}))`);
    await sql`create trigger reservations_fts_ai after insert on reservations begin
      insert into reservations_fts(rowid, search_text) values (new.seq, ${text('new')}); end`.execute(db);
    await sql`create trigger reservations_fts_ad after delete on reservations begin
      delete from reservations_fts where rowid = old.seq; end`.execute(db);
    await sql`create trigger reservations_fts_au after update of guest_full_name, guest_email, guest_phone, confirmation_code, listing_nickname on reservations begin
      delete from reservations_fts where rowid = old.seq;
      insert into reservations_fts(rowid, search_text) values (new.seq, ${text('new')}); end`.execute(db);
  } else {
    // In public, so that dropping a tenant schema never drops the extension others use.
    await sql`create extension if not exists pg_trgm schema public`.execute(db);
    await sql`alter table reservations add column search_text text generated always as (lower(
      coalesce(guest_full_name, '') || ' ' || coalesce(guest_email, '') || ' ' || coalesce(guest_phone, '') || ' ' ||
      coalesce(confirmation_code, '') || ' ' || coalesce(listing_nickname, ''))) stored`.execute(db);
    await sql`create index reservations_search_trgm on reservations using gin (search_text public.gin_trgm_ops)`.execute(db);
  }

  await db.schema
    .createTable('reservation_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('reservation_id', 'text', (c) => c.notNull().references('reservations.id').onDelete('cascade'))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('author_name', 'text', (c) => c.notNull())
    .addColumn('author_type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reservation_notes_res_idx').on('reservation_notes').columns(['reservation_id', 'created_at']).execute();

  await db.schema
    .createTable('payment_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('reservation_id', 'text', (c) => c.notNull().references('reservations.id').onDelete('cascade'))
    .addColumn('event_source', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('event_status', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_events_uq').on('payment_events').columns(['reservation_id', 'event_source', 'event_id']).unique().execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('resource_id', 'text')
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_resource_idx').on('idempotency_keys').column('resource_id').execute();
  await db.schema.createIndex('idempotency_keys_expiry_idx').on('idempotency_keys').column('expires_at').execute();
}
