import type { Kysely } from 'kysely';
import type { DialectHelpers } from '../dialect.js';

/**
 * Search indexes with the equality filters first and the date last, so a filtered, paged search
 * counts and pages through only its own matches. They replace the two-column status and source
 * indexes, which are their prefixes.
 */
export async function up(db: Kysely<unknown>, _d: DialectHelpers): Promise<void> {
  await db.schema.dropIndex('reservations_status_idx').execute();
  await db.schema.dropIndex('reservations_source_idx').execute();
  await db.schema.createIndex('reservations_status_date_idx').on('reservations').columns(['account_id', 'status', 'check_in_date', 'id']).execute();
  await db.schema.createIndex('reservations_status_source_date_idx').on('reservations').columns(['account_id', 'status', 'source', 'check_in_date', 'id']).execute();
  await db.schema.createIndex('reservations_source_date_idx').on('reservations').columns(['account_id', 'source', 'check_in_date', 'id']).execute();
  // Screening compares a booking with the account's last 500 (price and nights): covered by the
  // index it walks, that is 500 index entries rather than 500 row look-ups.
  await db.schema.dropIndex('reservations_created_at_idx').execute();
  await db.schema.createIndex('reservations_created_at_idx').on('reservations').columns(['account_id', 'created_at', 'id', 'total_price', 'nights']).execute();
}
