import type { Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

/**
 * What the lookups keep: answers of network providers for a while (sealed, found by a keyed
 * digest of the input), each account's paid calls per day, and the data sets an operator
 * imports with `guestscreen data import` (IP threat feeds, a breach corpus, registry records).
 */
export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  await db.schema
    .createTable('lookup_cache')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('input_digest', 'text', (c) => c.notNull())
    .addColumn('result_enc', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lookup_cache_pk', ['kind', 'input_digest'])
    .execute();
  await db.schema.createIndex('lookup_cache_expiry_idx').on('lookup_cache').column('expires_at').execute();

  await db.schema
    .createTable('lookup_usage')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('calls', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('lookup_usage_pk', ['account_id', 'day'])
    .execute();

  // Addresses as 32 hex digits (IPv4 mapped into IPv6), so a range test is a text comparison
  // that both databases answer from the index.
  await db.schema
    .createTable('ip_threat_entries')
    .addColumn('id', d.serialType, (c) => (d.kind === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('range_start', 'text', (c) => c.notNull())
    .addColumn('range_end', 'text', (c) => c.notNull())
    .addColumn('cidr', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('link', 'text')
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('data_date', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ip_threat_entries_range_idx').on('ip_threat_entries').columns(['range_start', 'range_end']).execute();
  await db.schema.createIndex('ip_threat_entries_source_idx').on('ip_threat_entries').column('source').execute();

  await db.schema
    .createTable('breach_records')
    .addColumn('id', d.serialType, (c) => (d.kind === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('email_digest', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('breach_date', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('breach_records_email_idx').on('breach_records').column('email_digest').execute();

  await db.schema
    .createTable('sex_offender_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('dob', 'text', (c) => c.notNull())
    .addColumn('city', 'text')
    .addColumn('county', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('zip', 'text')
    .addColumn('charges', 'text', (c) => c.notNull())
    .addColumn('aliases', 'text', (c) => c.notNull())
    .addColumn('image_url', 'text')
    .addColumn('registered_at', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sex_offender_records_state_dob_idx').on('sex_offender_records').columns(['state', 'dob']).execute();
}
