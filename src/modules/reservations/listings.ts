import type { Tx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { iso } from '../../lib/time.js';
import { emitWebhook } from '../events/index.js';
import * as repo from '../bookings/index.js';
import type { ReservationRow } from '../bookings/index.js';

/**
 * Keeps the account's listings as reservations mention them, and tells listing_webhook_url
 * when a listing id is seen for the first time or its nickname changes.
 */
export async function trackListing(tx: Tx, deps: Deps, r: ReservationRow): Promise<void> {
  if (!r.listing_id) return;
  const now = iso(deps.clock());
  const known = await repo.findListing(tx, r.account_id, r.listing_id);
  if (known && (r.listing_nickname === null || known.nickname === r.listing_nickname)) return;
  if (known) {
    await repo.renameListing(tx, r.account_id, r.listing_id, r.listing_nickname, now);
  } else {
    await repo.insertListing(tx, { account_id: r.account_id, listing_id: r.listing_id, nickname: r.listing_nickname, created_at: now, updated_at: now });
  }
  await emitWebhook(tx, deps, 'listing_webhook_url', {
    accountId: r.account_id,
    type: known ? 'listing.renamed' : 'listing.created',
    subjectId: r.listing_id,
    body: {
      id: r.listing_id,
      listing_id: r.listing_id,
      listing_nickname: r.listing_nickname,
      previous_nickname: known?.nickname ?? null,
      listing_timezone_name: r.listing_timezone_name,
      first_seen_reservation_id: known ? null : r.id,
    },
  });
}
