import { sql, type Kysely } from 'kysely';
import { newId } from '../../lib/ids.js';
import type { DialectHelpers } from '../dialect.js';

/**
 * People in an account (DESIGN.md section 12): users with a role, their one-time tokens
 * (invitations and password resets, only the digest kept), their recovery codes (hashed), and
 * what the rest of the schema needs to say who did what: a session belongs to a user, an audit
 * line names its actor, a manual decision names who made it, an API key may have a name.
 *
 * The account's console password becomes its first owner, named and addressed as the account;
 * the column goes. Sessions opened before this step belonged to no user: they end.
 */
export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('totp_secret_enc', 'text')
    .addColumn('totp_enabled_at', 'text')
    .addColumn('totp_last_step', 'bigint')
    .addColumn('invited_by', 'text')
    .addColumn('joined_at', 'text')
    .addColumn('removed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One person per e-mail in an account; sign-in finds people by e-mail across accounts.
  await db.schema
    .createIndex('users_account_email_idx')
    .on('users')
    .columns(['account_id'])
    .expression(sql`lower(email)`)
    .unique()
    .where(sql.ref('removed_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('users_email_idx')
    .on('users')
    .expression(sql`lower(email)`)
    .execute();

  await db.schema
    .createTable('user_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('user_tokens_user_idx').on('user_tokens').columns(['user_id', 'purpose']).execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addPrimaryKeyConstraint('recovery_codes_pk', ['user_id', 'code_hash'])
    .execute();

  // A session now belongs to a person, so the account-wide ones cannot carry on: everyone signs in
  // again. The table is made anew rather than altered so its new columns are NOT NULL on SQLite too.
  await db.schema.dropTable('console_sessions').execute();
  await db.schema
    .createTable('console_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    // 'in': signed in; 'code': the password was right, the second factor is awaited; 'enrol': the
    // account requires a second factor this user has not set up yet.
    .addColumn('stage', 'text', (c) => c.notNull().defaultTo('in'))
    .addColumn('address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('last_seen_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_account_idx').on('console_sessions').column('account_id').execute();
  await db.schema.createIndex('console_sessions_user_idx').on('console_sessions').column('user_id').execute();

  await db.schema.alterTable('audit_log').addColumn('actor_type', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('actor_name', 'text').execute();
  await db.schema.createIndex('audit_log_account_time_idx').on('audit_log').columns(['account_id', 'created_at']).execute();

  await db.schema.alterTable('api_keys').addColumn('name', 'text').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('read_only', d.boolType, (c) => c.notNull().defaultTo(d.kind === 'postgres' ? sql`false` : 0))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('created_by', 'text').execute();

  await db.schema.alterTable('reservations').addColumn('decided_by', 'text').execute();
  await db.schema.alterTable('reservations').addColumn('decided_at', 'text').execute();

  await db.schema
    .alterTable('accounts')
    .addColumn('require_two_factor', d.boolType, (c) => c.notNull().defaultTo(d.kind === 'postgres' ? sql`false` : 0))
    .execute();

  const withPassword = await sql<{ id: string; name: string; email: string; password_hash: string; created_at: string }>`
    select id, name, email, password_hash, created_at from accounts where password_hash is not null`.execute(db);
  const now = new Date().toISOString();
  for (const a of withPassword.rows) {
    await sql`insert into users (id, account_id, email, name, role, password_hash, joined_at, created_at, updated_at)
      values (${newId('usr')}, ${a.id}, ${a.email}, ${a.name}, 'owner', ${a.password_hash}, ${a.created_at}, ${now}, ${now})`.execute(db);
  }
  await db.schema.alterTable('accounts').dropColumn('password_hash').execute();
}
