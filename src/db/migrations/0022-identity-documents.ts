import type { Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

/**
 * Identity documents read from their photos (modules/identity). A verification is one reading:
 * of a reservation's document (from the API or the guest portal) or, without a reservation, a
 * one-off read for a kiosk. Its photos are kept sealed apart from it, so they can be deleted on
 * their own schedule while what was read stays with the reservation; what was read is sealed too.
 */
export async function up(db: Kysely<unknown>, d: DialectHelpers): Promise<void> {
  await db.schema
    .createTable('identity_verifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('reservation_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('result_enc', 'text')
    .addColumn('error', 'text')
    .addColumn('ms', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('images_deleted_at', 'text')
    .execute();
  await db.schema.createIndex('identity_verifications_reservation_idx').on('identity_verifications').columns(['reservation_id', 'created_at']).execute();
  await db.schema
    .createTable('identity_images')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('verification_id', 'text', (c) => c.notNull().references('identity_verifications.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('side', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('data_enc', d.blobType, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('identity_images_verification_idx').on('identity_images').columns(['verification_id']).execute();
}
