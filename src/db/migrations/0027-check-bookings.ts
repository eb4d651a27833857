import type { Kysely } from 'kysely';

/**
 * The booking a background check or news search was ordered from, in the console, so the booking's
 * page lists it and its report links back; erasing the guest's records erases these checks too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('background_checks').addColumn('reservation_id', 'text').execute();
  await db.schema.createIndex('background_checks_reservation_idx').on('background_checks').columns(['reservation_id']).execute();
}
