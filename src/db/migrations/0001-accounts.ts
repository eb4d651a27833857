import type { Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('parent_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('path', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('company_name', 'text')
    .addColumn('company_email', 'text')
    .addColumn('company_phone', 'text')
    .addColumn('pms', 'text', (c) => c.notNull().defaultTo('api'))
    .addColumn('is_reseller', d.boolType, (c) => c.notNull())
    .addColumn('is_active', d.boolType, (c) => c.notNull())
    .addColumn('is_suspended', d.boolType, (c) => c.notNull())
    .addColumn('webhook_secret_enc', 'text', (c) => c.notNull())
    .addColumn('last_login', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('accounts_parent_idx').on('accounts').columns(['parent_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_account_idx').on('api_keys').column('account_id').execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('webhook_key', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhooks_pk', ['account_id', 'webhook_key'])
    .execute();

  await db.schema
    .createTable('account_settings')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('config_key', 'text', (c) => c.notNull())
    .addColumn('config_data', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_settings_pk', ['account_id', 'config_key'])
    .execute();

  await db.schema
    .createTable('signup_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('reseller_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('pms', 'text', (c) => c.notNull())
    .addColumn('redirect', 'text')
    .addColumn('hide_password', d.boolType, (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', d.serialType, (c) => (d.kind === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('account_id', 'text')
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text')
    .addColumn('detail', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_account_idx').on('audit_log').columns(['account_id', 'id']).execute();
}
