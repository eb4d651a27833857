import type { Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

/**
 * What a guest gives in the guest portal. The answers (names, contact, document numbers) are
 * sealed as one value bound to the reservation, and each uploaded file is sealed on its own;
 * the rest is what the host's views and the portal's own steps need in the clear.
 */
export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  await db.schema
    .createTable('guest_portal')
    .addColumn('reservation_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('answers_enc', 'text', (c) => c.notNull())
    .addColumn('last_step', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('guest_portal_files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('reservation_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('screen', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('data_enc', d.blobType, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('guest_portal_files_reservation_idx').on('guest_portal_files').columns(['reservation_id', 'screen', 'field']).execute();
}
