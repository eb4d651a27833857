import { sql, type Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    // available -> running -> (deleted on success) | available (retry) | failed
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('unique_key', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_claim_idx').on('jobs').columns(['state', 'run_at']).execute();
  await db.schema.createIndex('jobs_lease_idx').on('jobs').columns(['state', 'locked_until']).execute();
  // One waiting job per unique key: repeated requests for the same work coalesce, while a
  // job already running does not stop a newer one from being queued behind it.
  await db.schema.createIndex('jobs_unique_idx').on('jobs').column('unique_key').unique().where(sql.ref('state'), '=', sql.lit('available')).execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_account_idx').on('events').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('events_subject_idx').on('events').column('subject_id').execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_account_idx').on('webhook_deliveries').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('webhook_deliveries_event_idx').on('webhook_deliveries').column('event_id').execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', d.serialType, (c) => (d.kind === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery_idx').on('webhook_attempts').column('delivery_id').execute();

  await db.schema.alterTable('webhooks').addColumn('disabled_at', 'text').execute();
  await db.schema.alterTable('webhooks').addColumn('disabled_reason', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('webhook_secret_prev_enc', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('webhook_secret_rotated_at', 'text').execute();
  await db.schema.alterTable('reservations').addColumn('callback_url', 'text').execute();
  await db.schema
    .alterTable('reservations')
    .addColumn('skip_gp', d.boolType, (c) => c.notNull().defaultTo(sql.lit(d.kind === 'sqlite' ? 0 : false)))
    .execute();

  await db.schema
    .createTable('listings')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('listing_id', 'text', (c) => c.notNull())
    .addColumn('nickname', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('listings_pk', ['account_id', 'listing_id'])
    .execute();

  await db.schema
    .createTable('guest_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('reservation_id', 'text', (c) => c.notNull().references('reservations.id').onDelete('cascade'))
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('via', 'text')
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('html', 'text', (c) => c.notNull())
    .addColumn('send_after', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('guest_messages_res_idx').on('guest_messages').columns(['reservation_id', 'send_after']).execute();
}
