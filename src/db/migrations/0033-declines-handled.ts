import type { Kysely } from 'kysely';

/**
 * A rule's decline is work for the host (cancel the booking in the channel, tell the guest): it
 * stays on the review queue's "Declined by your rules" until the stay is cancelled or a person
 * marks it handled, when and by whom these say (docs/console.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('reservations').addColumn('handled_at', 'text').execute();
  await db.schema.alterTable('reservations').addColumn('handled_by', 'text').execute();
}
