import type { Kysely } from 'kysely';

/**
 * The account's people told when a guest needs them (docs/decisions/alerts.md): one row per
 * person, reservation and reason, so each is told once whatever runs again; a person's choice
 * (each at once, a daily digest, or none) and when their last digest went; the account's hours
 * before check-in at which an unfinished guest portal is worth a word.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alerts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('reservation_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    // 'red', 'orange' (the verdict turned so) or 'portal' (the guest portal unfinished close to check-in).
    .addColumn('reason', 'text', (c) => c.notNull())
    // 'each' (an e-mail of its own) or 'digest' (in the person's next daily digest).
    .addColumn('mode', 'text', (c) => c.notNull())
    // 'queued', 'sent', or 'dropped' (nothing left to tell: decided, canceled, erased).
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addUniqueConstraint('alerts_once', ['reservation_id', 'reason', 'user_id'])
    .execute();
  await db.schema.createIndex('alerts_user_state_idx').on('alerts').columns(['user_id', 'state']).execute();
  await db.schema
    .alterTable('users')
    .addColumn('alerts', 'text', (c) => c.notNull().defaultTo('each'))
    .execute();
  await db.schema.alterTable('users').addColumn('last_digest_at', 'text').execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('portal_alert_hours', 'integer', (c) => c.notNull().defaultTo(48))
    .execute();
}
