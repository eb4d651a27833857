import { sql, type Kysely } from 'kysely';

/**
 * Every listing a booking names is one of the account's listings, however the booking came in:
 * those named only by bookings written in bulk (the demo's seed, before it kept its listings)
 * are added, with the nickname of their latest booking and the date of their first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    INSERT INTO listings (account_id, listing_id, nickname, created_at, updated_at)
    SELECT r.account_id, r.listing_id,
      (SELECT n.listing_nickname FROM reservations n
        WHERE n.account_id = r.account_id AND n.listing_id = r.listing_id AND n.listing_nickname IS NOT NULL
        ORDER BY n.created_at DESC LIMIT 1),
      MIN(r.created_at), MAX(r.created_at)
    FROM reservations r
    WHERE r.listing_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM listings l WHERE l.account_id = r.account_id AND l.listing_id = r.listing_id)
    GROUP BY r.account_id, r.listing_id`.execute(db);
}
