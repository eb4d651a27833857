import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import { checkInOf, checkInView } from './check-in.js';
import * as bookings from '../bookings/index.js';
import { accountProfile, effectiveProfile, storedProfile } from './profile.js';

/** The day of "upcoming": stays that check in today or later. */
const today = (deps: Deps) => deps.clock().toISOString().slice(0, 10);

/** A page of the account's listings, each with its stays to come, for the console's list. */
export async function listListings(deps: Deps, accountId: string, from: number, size: number) {
  const page = await bookings.listingsPage(deps.db, accountId, from, size);
  const upcoming = new Map(
    (
      await bookings.upcomingByListing(
        deps.db,
        accountId,
        page.rows.map((r) => r.listing_id),
        today(deps),
      )
    ).map((u) => [u.listing_id, u]),
  );
  return {
    total: page.total,
    items: page.rows.map((r) => ({ ...r, upcoming: Number(upcoming.get(r.listing_id)?.n ?? 0), next_check_in: upcoming.get(r.listing_id)?.next ?? null })),
  };
}

/** Everything the console shows of one listing: its stays to come, its own profile over the account's, its check-in instructions. */
export async function listingDetail(deps: Deps, accountId: string, listingId: string, stays: number) {
  const listing = await knownListing(deps, accountId, listingId);
  const [upcoming, account, latest] = await Promise.all([
    bookings.upcomingAtListing(deps.db, accountId, listingId, today(deps), stays),
    accountProfile(deps.db, accountId),
    bookings.latestAtListing(deps.db, accountId, listingId),
  ]);
  return { listing, upcoming, own: storedProfile(listing.profile), account, checkIn: checkInView(checkInOf(deps, listing)), previewable: latest !== undefined };
}

/**
 * A listing set up before any booking names it (its police reporting, say): the account's own id
 * for it, as its bookings will name it, and a name. One already known keeps its stays.
 */
export async function addListing(deps: Deps, accountId: string, listingId: string, nickname: string | undefined): Promise<void> {
  const at = deps.clock().toISOString();
  await bookings.saveListingInfo(deps.db, accountId, listingId, {}, at);
  if (nickname) await bookings.renameListing(deps.db, accountId, listingId, nickname, at);
}

/** One of the account's listings, or a 404: the console shows and changes only listings it has. */
export async function knownListing(deps: Deps, accountId: string, listingId: string) {
  const listing = await bookings.findListing(deps.db, accountId, listingId);
  if (!listing) throw notFound(`listing ${listingId}`);
  return listing;
}

/** The booking whose guest's portal a preview shows: the listing's latest. */
export async function previewBooking(deps: Deps, accountId: string, listingId: string) {
  const r = await bookings.latestAtListing(deps.db, accountId, listingId);
  if (!r) throw notFound(`a booking at listing ${listingId}`);
  return r;
}

/** What the guests of one of the account's listings see: its profile over the account's. */
export async function guestsSee(deps: Deps, accountId: string, listingId: string) {
  await knownListing(deps, accountId, listingId);
  return effectiveProfile(deps.db, accountId, listingId);
}
