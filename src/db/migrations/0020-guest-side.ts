import type { Kysely } from 'kysely';

/**
 * The guest's side: each listing's own words and brand for the portal (JSON, over the account's),
 * its check-in instructions (sealed) and how long before check-in they are sent; and the
 * guest's language on the booking.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('listings').addColumn('profile', 'text').execute();
  await db.schema.alterTable('listings').addColumn('check_in_enc', 'text').execute();
  await db.schema.alterTable('listings').addColumn('check_in_hours', 'integer').execute();
  await db.schema.alterTable('reservations').addColumn('guest_language', 'text').execute();
}
