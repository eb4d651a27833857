import type { Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

export async function up(db: Kysely<unknown>, _d: DialectHelpers): Promise<void> {
  await db.schema
    .createTable('blocklist_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text')
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('document_number', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  for (const col of ['email', 'phone', 'document_number']) {
    await db.schema.createIndex(`blocklist_${col}_idx`).on('blocklist_entries').columns(['account_id', col]).execute();
  }
  await db.schema.createIndex('blocklist_account_idx').on('blocklist_entries').columns(['account_id', 'created_at']).execute();
}
