import { sql, type Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';
import { entryFingerprint } from '../../lib/blocklist-fingerprint.js';

/**
 * What a host reviewing guests needs.
 *
 * A blocklist entry's fingerprint (its identifiers, normalised; blocklist/service.ts), unique per
 * account, so the same person added or imported twice is one entry; existing twins are merged
 * into the oldest first.
 *
 * The host's reason for a manual decision, kept with it (beside the note that records it).
 *
 * The review queue by urgency: each reservation's latest risk colour in a column of its own
 * (written with the verdict), and the queue's index by account, colour and check-in, over the
 * undecided reservations whose verdict can put them in the queue. The index it replaces went by
 * verification status, which hid a red guest behind every review of a lighter colour.
 */
export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  await db.schema.alterTable('blocklist_entries').addColumn('fingerprint', 'text').execute();
  const entries = await sql<{ id: string; account_id: string; name: string | null; email: string | null; phone: string | null; document_number: string | null }>`
    select id, account_id, name, email, phone, document_number from blocklist_entries order by created_at, id`.execute(db);
  const seen = new Set<string>();
  for (const e of entries.rows) {
    const fingerprint = entryFingerprint(e);
    if (seen.has(`${e.account_id}\u0000${fingerprint}`)) await sql`delete from blocklist_entries where id = ${e.id}`.execute(db);
    else await sql`update blocklist_entries set fingerprint = ${fingerprint} where id = ${e.id}`.execute(db);
    seen.add(`${e.account_id}\u0000${fingerprint}`);
  }
  // Every entry has one now; PostgreSQL holds the column to it (SQLite cannot add the constraint to a column it has).
  if (d.kind === 'postgres') await sql`alter table blocklist_entries alter column fingerprint set not null`.execute(db);
  await db.schema.createIndex('blocklist_fingerprint_idx').on('blocklist_entries').columns(['account_id', 'fingerprint']).unique().execute();
  await db.schema.alterTable('reservations').addColumn('supervised_reason', 'text').execute();
  await db.schema.alterTable('reservations').addColumn('risk_color', 'text').execute();
  const color = d.kind === 'postgres' ? sql`screening::jsonb ->> 'risk_color'` : sql`json_extract(screening, '$.risk_color')`;
  await sql`update reservations set risk_color = ${color} where screening is not null`.execute(db);
  await db.schema.dropIndex('reservations_waiting_idx').execute();
  await db.schema
    .createIndex('reservations_queue_idx')
    .on('reservations')
    .columns(['account_id', 'risk_color', 'check_in_date', 'id'])
    .where(sql<boolean>`supervised is null and verification_status in ('review', 'declined', 'pending')`)
    .execute();
}
