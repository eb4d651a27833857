import { withTx, type Db, type Tx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { translator } from '../../i18n/index.js';
import { enqueueAll } from '../../jobs/repo.js';
import { newId } from '../../lib/ids.js';
import { iso, startOfDayIn } from '../../lib/time.js';
import { emitWebhook } from '../events/index.js';
import { effectiveProfile, CHECK_IN_FIELDS, readCheckIn, type CheckInDetails } from '../listings/index.js';
import * as bookings from '../bookings/index.js';
import type { ReservationRow } from '../bookings/index.js';
import { insertNote, systemNote } from '../notes/index.js';
import { compositeStatus } from '../screening/index.js';
import { messageHtml, messageText } from '../mail/index.js';
import * as repo from './repo.js';
import { messageFrame, messageLocale, stargateView, stayValues, withdrawPortalMessages } from './service.js';
import type { JobContext } from '../../jobs/worker.js';
import type { JobPayload } from '../../jobs/kinds.js';

/**
 * Check-in details held until the guest is verified. Each listing may have instructions (address,
 * door code, Wi-Fi, directions), sealed at rest. Once a confirmed booking's composite status is
 * verified (by screening or by the host's approval) they are queued for the guest, by e-mail or
 * else SMS, to go out `hours` before the check-in day; the send checks again, so a booking
 * declined or cancelled in between gets nothing and its host is told. The instructions are the
 * listing's (listings/check-in.ts).
 */

/** The fields kept out of what is stored of a sent message (the guest_messages row, /stargate). */
const SECRET_FIELDS = new Set<keyof CheckInDetails>(['door_code', 'wifi_password']);
export const CHECK_IN_TAG = 'check_in';

/** When the details go out: `hours` before the check-in day begins where the listing is (its time zone; UTC when the booking names none). */
export const releaseTime = (r: Pick<ReservationRow, 'check_in_date' | 'listing_timezone_name'>, hours: number) =>
  new Date(startOfDayIn(r.check_in_date!, r.listing_timezone_name).getTime() - hours * 3600_000);

/** How the guest will be reached: e-mail if the booking has an address, else SMS. */
export const checkInMethod = (r: Pick<ReservationRow, 'guest_email' | 'guest_phone'>) => (r.guest_email ? 'email' : r.guest_phone ? 'sms' : null);

const lead = (r: ReservationRow, today: string) => r.status === 'CONFIRMED' && Boolean(r.check_in_date && r.check_in_date >= today);

/**
 * The event: a booking's screening status changed. A verified guest's check-in instructions are
 * planned, a declined guest's withheld and the portal's invitation and reminders withdrawn. Read
 * from the booking as it is now, so a late or repeated event plans nothing twice.
 */
export async function onStatusChanged(payload: JobPayload<'status.changed'>, { deps, db }: JobContext): Promise<void> {
  // The reaction's own transaction (withTx joins it).
  await withTx(db, async (tx) => {
    const r = await bookings.findReservation(tx, payload.account_id, payload.reservation_id);
    if (!r) return; // erased meanwhile
    await planCheckIn(tx, deps, r);
    if (compositeStatus(r) === 'declined') await withdrawPortalMessages(tx, deps, r.id, 'declined');
  });
}

/** The event: a listing's instructions were saved; its upcoming bookings already verified get them. */
export async function onCheckInChanged(payload: JobPayload<'check_in.changed'>, { deps, db }: JobContext): Promise<void> {
  const today = iso(deps.clock()).slice(0, 10);
  await withTx(db, async (tx) => {
    for (const r of await bookings.upcomingAtListing(tx, payload.account_id, payload.listing_id, today)) await planCheckIn(tx, deps, r);
  });
}

/**
 * Brings a booking's check-in message in line with its status, in the caller's transaction: a
 * verified booking gets one queued (if its listing has instructions and it has none yet); a
 * declined or cancelled one loses a queued one, and the host is told in the notes and through
 * stargate_webhook_url. Runs whenever the composite status or the booking changes.
 */
export async function planCheckIn(db: Tx, deps: Deps, r: ReservationRow): Promise<void> {
  const now = deps.clock();
  const today = iso(now).slice(0, 10);
  const method = checkInMethod(r);
  if (!r.listing_id || !method || !lead(r, today)) {
    if (r.status === 'CANCELED') await withholdCheckIn(db, deps, r, 'canceled');
    return;
  }
  const status = compositeStatus(r);
  if (status === 'declined') return withholdCheckIn(db, deps, r, 'declined');
  if (status !== 'verified') return;
  const existing = (await repo.listMessages(db, r.id)).filter((m) => m.tag === CHECK_IN_TAG && m.state !== 'canceled');
  if (existing.length) return;
  const setting = await readCheckIn(deps, db, r.account_id, r.listing_id);
  if (!setting) return;
  const at = new Date(Math.max(now.getTime(), releaseTime(r, setting.hours).getTime()));
  const { shown } = await composeCheckIn(deps, db, r, setting.details);
  const id = newId('not').replace('not_', 'msg_');
  await repo.insertMessages(db, [
    {
      id,
      account_id: r.account_id,
      reservation_id: r.id,
      tag: CHECK_IN_TAG,
      method,
      via: null,
      email: r.guest_email,
      phone: r.guest_phone,
      ...shown,
      send_after: iso(at),
      state: 'queued',
      error: null,
      created_at: iso(now),
      updated_at: iso(now),
    },
  ]);
  await enqueueAll(db, deps, 'message.send', [{ payload: { message_id: id }, runAt: at }]);
  deps.wakeWorker();
}

/** A queued check-in message that must not go: canceled, noted for the host and told to stargate_webhook_url. */
async function withholdCheckIn(db: Tx, deps: Deps, r: ReservationRow, why: 'declined' | 'canceled' | 'unverified' | 'no_instructions'): Promise<void> {
  const queued = (await repo.listMessages(db, r.id)).filter((m) => m.tag === CHECK_IN_TAG && m.state === 'queued');
  if (!queued.length) return;
  const now = iso(deps.clock());
  const reason = {
    declined: 'the booking was declined',
    canceled: 'the booking was cancelled',
    unverified: 'the booking is no longer verified',
    no_instructions: 'the listing has no check-in instructions any more',
  }[why];
  for (const m of queued) {
    await repo.cancelMessage(db, m.id, now);
    await insertNote(db, systemNote(r.id, `The check-in details were not sent to the guest: ${reason}.`, now));
  }
  const view = await stargateView({ ...deps, db }, r);
  for (const m of queued) {
    await emitWebhook(db, deps, 'stargate_webhook_url', { accountId: r.account_id, type: 'guest_message.canceled', subjectId: r.id, body: view.find((x) => x.id === m.id) });
  }
}

/**
 * The check-in message in the guest's language, twice: `real`, as it is sent, and `shown`, with
 * the door code and Wi-Fi password replaced, for what is stored and shown.
 */
async function composeCheckIn(deps: Deps, db: Db, r: ReservationRow, details: CheckInDetails) {
  const t = translator(messageLocale(r));
  const profile = await effectiveProfile(db, r.account_id, r.listing_id);
  const stay = stayValues(t, r);
  const label = { address: 'address', door_code: 'door_code', wifi_name: 'wifi', wifi_password: 'wifi_password', directions: 'directions' } as const;
  const frame = { ...messageFrame(deps, t, r, profile), lead: t.t('message.check_in.lead', stay), closing: t.t('message.check_in.keep') };
  const subject = t.t('message.check_in.subject', stay);
  const compose = (masked: boolean) => {
    const lines = CHECK_IN_FIELDS.filter((f) => details[f]).map((f) => [t.t(`message.check_in.${label[f]}`), masked && SECRET_FIELDS.has(f) ? '••••••' : details[f]!] as const);
    const parts = { ...frame, lines };
    return { subject, text: messageText(parts), html: messageHtml(parts) };
  };
  return { real: compose(false), shown: compose(true) };
}

/**
 * What the send job does with a check-in message: the message with the real details, or null
 * after withholding it because the booking is no longer verified, or no longer has instructions.
 */
export async function checkInToSend(deps: Deps, r: ReservationRow) {
  const withhold = async (why: Parameters<typeof withholdCheckIn>[3]) => (await withTx(deps.db, (tx) => withholdCheckIn(tx, deps, r, why)), null);
  if (r.status === 'CANCELED') return withhold('canceled');
  const status = compositeStatus(r);
  if (status !== 'verified') return withhold(status === 'declined' ? 'declined' : 'unverified');
  const setting = r.listing_id ? await readCheckIn(deps, deps.db, r.account_id, r.listing_id) : null;
  if (!setting) return withhold('no_instructions');
  return composeCheckIn(deps, deps.db, r, setting.details);
}

/** What the guest portal's last page says about the check-in details: when they come, or when they went. */
export async function checkInOutlook(deps: Deps, r: ReservationRow): Promise<{ method: 'email' | 'sms'; sentAt?: string; sendAt?: string } | null> {
  const method = checkInMethod(r);
  if (!r.listing_id || !method || r.status !== 'CONFIRMED') return null;
  const message = (await repo.listMessages(deps.db, r.id)).find((m) => m.tag === CHECK_IN_TAG && m.state !== 'canceled');
  if (message?.state === 'sent') return { method, sentAt: message.updated_at };
  const setting = await readCheckIn(deps, deps.db, r.account_id, r.listing_id);
  if (!setting || !r.check_in_date || compositeStatus(r) === 'declined') return null;
  const at = releaseTime(r, setting.hours);
  return at.getTime() > deps.clock().getTime() ? { method, sendAt: iso(at) } : { method };
}
