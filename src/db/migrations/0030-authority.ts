import type { Kysely } from 'kysely';

/**
 * Reporting guests to the authorities (docs/authority-reports.md): an establishment is a listing's
 * (or, with listing_id '', the account's default) system, identifiers and sealed credentials; a
 * report is one guest of one stay to one system, with its state and the authority's answer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('authority_establishments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    // '' for the account's default: a listing without its own reports through it.
    .addColumn('listing_id', 'text', (c) => c.notNull())
    .addColumn('system', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    // The identifiers that are not secret (SES's codes, Alloggiati's apartment), as JSON.
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('credentials_enc', 'text', (c) => c.notNull())
    .addColumn('credentials_set_at', 'text', (c) => c.notNull())
    .addColumn('checked_at', 'text')
    // What the authority's own test call said when last tried: null when it answered yes.
    .addColumn('check_problem', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('authority_establishments_scope', ['account_id', 'listing_id'])
    .execute();
}
