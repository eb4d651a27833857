import { sql, type Kysely } from 'kysely';

/**
 * The host console: sessions (only the token's digest is kept), failed sign-ins (for the
 * lockout), the review queue's index (reservations without a manual decision, by check-in) and
 * screening runs by account and time (the queue page's chart).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_account_idx').on('console_sessions').column('account_id').execute();
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_failures_email_idx').on('sign_in_failures').columns(['email', 'created_at']).execute();
  await db.schema.createIndex('sign_in_failures_address_idx').on('sign_in_failures').columns(['address', 'created_at']).execute();
  await db.schema.createIndex('reservations_waiting_idx').on('reservations').columns(['account_id', 'verification_status', 'check_in_date', 'id']).where(sql.ref('supervised'), 'is', null).execute();
  // Sign-in finds the account by its e-mail, in any case.
  await db.schema
    .createIndex('accounts_email_idx')
    .on('accounts')
    .expression(sql`lower(email)`)
    .execute();
  await db.schema.createIndex('screening_runs_account_idx').on('screening_runs').columns(['account_id', 'created_at']).execute();
}
