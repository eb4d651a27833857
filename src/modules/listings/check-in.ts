import { withTx, type Db } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { recordEvent } from '../../jobs/repo.js';
import { iso } from '../../lib/time.js';
import * as bookings from '../bookings/index.js';
import type { ListingRow } from '../bookings/index.js';

/**
 * A listing's check-in instructions (address, door code, Wi-Fi, directions), sealed at rest, and
 * how many hours before the check-in day they go out. The messages module sends them to a
 * verified guest; this module keeps them.
 */
export interface CheckInDetails {
  address: string | null;
  door_code: string | null;
  wifi_name: string | null;
  wifi_password: string | null;
  directions: string | null;
}
export const CHECK_IN_FIELDS = ['address', 'door_code', 'wifi_name', 'wifi_password', 'directions'] as const;
export const DEFAULT_CHECK_IN_HOURS = 48;

const aad = (accountId: string, listingId: string) => `listing_check_in:${accountId}:${listingId}`;

export interface CheckInSetting {
  details: CheckInDetails;
  hours: number;
}

export async function readCheckIn(deps: Deps, db: Db, accountId: string, listingId: string): Promise<CheckInSetting | null> {
  const row = await bookings.findListing(db, accountId, listingId);
  return row ? checkInOf(deps, row) : null;
}

/** A listing row's instructions, opened. */
export function checkInOf(deps: Deps, row: Pick<ListingRow, 'account_id' | 'listing_id' | 'check_in_enc' | 'check_in_hours'>): CheckInSetting | null {
  if (!row.check_in_enc) return null;
  return { details: JSON.parse(deps.secrets.open(row.check_in_enc, aad(row.account_id, row.listing_id))) as CheckInDetails, hours: row.check_in_hours ?? DEFAULT_CHECK_IN_HOURS };
}

/** Saves (or, with null, removes) a listing's instructions. */
export async function writeCheckIn(deps: Deps, accountId: string, listingId: string, setting: CheckInSetting | null): Promise<void> {
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    await bookings.saveListingInfo(
      tx,
      accountId,
      listingId,
      setting ? { check_in_enc: deps.secrets.seal(JSON.stringify(setting.details), aad(accountId, listingId)), check_in_hours: setting.hours } : { check_in_enc: null, check_in_hours: null },
      now,
    );
    // Planning the release for bookings already verified is the messages module's, from the event.
    if (setting) await recordEvent(tx, deps, 'check_in.changed', { account_id: accountId, listing_id: listingId });
  });
}

/** A change to a listing's instructions: a field given replaces, null or blank clears, one left out stays. */
export type CheckInChange = { [F in (typeof CHECK_IN_FIELDS)[number]]?: string | null | undefined } & { send_hours_before?: number | undefined };

/** The instructions as the API and the console show them: every field, and the hours with their default. */
export function checkInView(s: CheckInSetting | null) {
  const d = s?.details;
  return {
    address: d?.address ?? null,
    door_code: d?.door_code ?? null,
    wifi_name: d?.wifi_name ?? null,
    wifi_password: d?.wifi_password ?? null,
    directions: d?.directions ?? null,
    send_hours_before: s?.hours ?? DEFAULT_CHECK_IN_HOURS,
  };
}

/** Applies a change to a listing's instructions and saves them; with every field cleared they are removed. */
export async function changeCheckIn(deps: Deps, accountId: string, listingId: string, change: CheckInChange): Promise<CheckInSetting | null> {
  const current = await readCheckIn(deps, deps.db, accountId, listingId);
  const details: CheckInDetails = { ...(current?.details ?? { address: null, door_code: null, wifi_name: null, wifi_password: null, directions: null }) };
  for (const f of CHECK_IN_FIELDS) {
    const v = change[f];
    if (v !== undefined) details[f] = v?.trim() || null;
  }
  const hours = change.send_hours_before ?? current?.hours ?? DEFAULT_CHECK_IN_HOURS;
  const next = CHECK_IN_FIELDS.every((f) => !details[f]) ? null : { details, hours };
  await writeCheckIn(deps, accountId, listingId, next);
  return next;
}
