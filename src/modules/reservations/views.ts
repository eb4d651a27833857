import type { Deps } from '../../deps.js';
import type { ReservationRow, ReservationViewRow } from '../bookings/index.js';
import { guestPortalUrl } from '../guests/index.js';
import { IDENTIFICATION_FIELDS, openIdentification } from '../screening/index.js';

/** The spec's ReservationDetailsResponse. */
export function toReservationView(deps: Deps, r: ReservationViewRow) {
  const ident = openIdentification(deps, r);
  return {
    id: r.id,
    user_id: r.account_id,
    pms: r.pms,
    pms_reservation_id: r.pms_reservation_id,
    confirmation_code: r.confirmation_code,
    status: r.status,
    source: r.source,
    listing_id: r.listing_id,
    listing_nickname: r.listing_nickname,
    listing_timezone_name: r.listing_timezone_name,
    number_of_guests: r.number_of_guests,
    nights: r.nights,
    total_price: r.total_price,
    average_daily_rate: r.average_daily_rate,
    check_in_date: r.check_in_date,
    check_out_date: r.check_out_date,
    guest_portal_url: guestPortalUrl(deps, r),
    guest: {
      first_name: r.guest_first_name,
      last_name: r.guest_last_name,
      full_name: r.guest_full_name,
      phone: r.guest_phone,
      email: r.guest_email,
      location: r.guest_location,
      language: r.guest_language,
    },
    identification: Object.fromEntries(IDENTIFICATION_FIELDS.map((f) => [f, ident[f] ?? null])),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** The guest's name as the host knows it from the booking, or null when the booking names nobody. */
export const guestNameOf = (r: Pick<ReservationRow, 'guest_full_name' | 'guest_first_name' | 'guest_last_name'>): string | null =>
  r.guest_full_name || [r.guest_first_name, r.guest_last_name].filter(Boolean).join(' ') || null;
