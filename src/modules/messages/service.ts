import { withTx, type Db } from '../../db/connection.js';
import { badRequest, conflict } from '../../lib/errors.js';
import type { Deps } from '../../deps.js';
import { enqueueAll } from '../../jobs/repo.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import type { ReservationRow } from '../bookings/index.js';
import { guestPortalUrl } from '../guests/index.js';
import { chooseLocale, translator, type Translator } from '../../i18n/index.js';
import { effectiveProfile, type HostProfile } from '../listings/index.js';
import { messageHtml, messageText } from '../mail/index.js';
import * as repo from './repo.js';

type Tag = 'invitation' | 'reminder';

/** Who the message is from, as the catalogues take it: `named` says whether the host gave a display name. */
export const hostValues = (p: HostProfile) => ({ named: p.display_name ? 'yes' : 'no', host: p.display_name ?? '' });

/** The language of a booking's messages: the guest's, else English (no browser to ask). */
export const messageLocale = (r: Pick<ReservationRow, 'guest_language'>) => chooseLocale(undefined, r.guest_language, undefined);

/** The parts every guest message shares: greeting, closing, signature and the host's brand. */
export function messageFrame(deps: Deps, t: Translator, r: ReservationRow, profile: HostProfile) {
  return {
    greeting: r.guest_first_name ? t.t('message.hello', { name: r.guest_first_name }) : t.t('message.hello_anonymous'),
    closing: t.t('message.thanks'),
    signature: t.t('message.signature', hostValues(profile)),
    logoUrl: profile.logo ? `${guestPortalUrl(deps, r)}/logo` : undefined,
    accent: profile.accent_color ?? undefined,
  };
}

/** The booking's place and first day, as the messages' selects take them ("none" when unknown). */
export const stayValues = (t: Translator, r: ReservationRow) => ({ place: r.listing_nickname ?? 'none', from: r.check_in_date ? t.date(r.check_in_date) : 'none' });

/** The messages of the tags given, in the guest's language: what they share is worded once. */
function compose(deps: Deps, r: ReservationRow, profile: HostProfile, tags: Tag[]) {
  const t = translator(messageLocale(r));
  const stay = stayValues(t, r);
  const frame = { ...messageFrame(deps, t, r, profile), url: guestPortalUrl(deps, r) };
  return tags.map((tag) => {
    const parts = { ...frame, lead: t.t(`message.${tag}.lead`, stay) };
    return { subject: t.t(`message.${tag}.subject`, stay), text: messageText(parts), html: messageHtml(parts) };
  });
}

/**
 * Queues the guest-portal invitation now and a reminder some days before check-in, for a
 * confirmed reservation with a way to reach the guest. Runs in the reservation's transaction.
 * `fresh`: the reservation is being created, so it cannot have messages yet (no look-up).
 */
export async function queueGuestMessages(db: Db, deps: Deps, r: ReservationRow, opts: { fresh?: boolean } = {}): Promise<void> {
  if (r.status !== 'CONFIRMED' || (!r.guest_email && !r.guest_phone) || r.guestportal_completed) return;
  if (!opts.fresh) {
    if (await repo.hasMessages(db, r.id)) return;
  }
  const now = deps.clock();
  const profile = await effectiveProfile(db, r.account_id, r.listing_id);
  const plans: { tag: Tag; at: Date }[] = [{ tag: 'invitation', at: now }];
  if (r.check_in_date) {
    const reminder = new Date(Date.parse(`${r.check_in_date}T09:00:00Z`) - deps.config.reminderDays * 86_400_000);
    if (reminder.getTime() > now.getTime() + 3600_000) plans.push({ tag: 'reminder', at: reminder });
  }
  // All messages in one insert and their jobs in another: on PostgreSQL every statement is a
  // round trip, and a create made a dozen of them.
  const contents = compose(
    deps,
    r,
    profile,
    plans.map((p) => p.tag),
  );
  const rows = plans.map((p, i) => ({
    id: newId('not').replace('not_', 'msg_'),
    account_id: r.account_id,
    reservation_id: r.id,
    tag: p.tag,
    method: r.guest_email ? 'email' : 'sms',
    via: null,
    email: r.guest_email,
    phone: r.guest_phone,
    ...contents[i]!,
    send_after: iso(p.at),
    state: 'queued',
    error: null,
    created_at: iso(now),
    updated_at: iso(now),
  }));
  await repo.insertMessages(db, rows);
  await enqueueAll(
    db,
    deps,
    'message.send',
    rows.map((m, i) => ({ payload: { message_id: m.id }, runAt: plans[i]!.at })),
  );
  deps.wakeWorker();
}

/**
 * A message the host sends now, from the reservation page: the guest-portal link again, or words
 * of their own framed in the guest's language (greeting, closing and the host's name). It goes
 * the way the others go (e-mail, else SMS) and shows in the booking's messages.
 */
export async function sendFromHost(deps: Deps, r: ReservationRow, input: { kind: 'portal' } | { kind: 'words'; text: string }): Promise<{ to: string }> {
  if (!r.guest_email && !r.guest_phone) throw badRequest('the booking has no e-mail address or phone number for the guest');
  if (r.status === 'CANCELED') throw conflict('the booking is canceled');
  if (input.kind === 'portal' && r.guestportal_completed) throw conflict('the guest has completed the guest portal already');
  const text = input.kind === 'words' ? input.text.trim() : '';
  if (input.kind === 'words' && !text) throw badRequest('write the message to the guest');
  const profile = await effectiveProfile(deps.db, r.account_id, r.listing_id);
  let content;
  if (input.kind === 'portal') content = compose(deps, r, profile, ['invitation'])[0]!;
  else {
    const t = translator(messageLocale(r));
    const parts = { ...messageFrame(deps, t, r, profile), lead: text };
    content = { subject: t.t('message.host.subject', hostValues(profile)), text: messageText(parts), html: messageHtml(parts) };
  }
  const now = deps.clock();
  const row = {
    id: newId('not').replace('not_', 'msg_'),
    account_id: r.account_id,
    reservation_id: r.id,
    tag: input.kind === 'portal' ? 'invitation' : 'host',
    method: r.guest_email ? 'email' : 'sms',
    via: null,
    email: r.guest_email,
    phone: r.guest_phone,
    ...content,
    send_after: iso(now),
    state: 'queued',
    error: null,
    created_at: iso(now),
    updated_at: iso(now),
  };
  await withTx(deps.db, async (tx) => {
    await repo.insertMessages(tx, [row]);
    await enqueueAll(tx, deps, 'message.send', [{ payload: { message_id: row.id }, runAt: now }]);
  });
  deps.wakeWorker();
  return { to: (r.guest_email ?? r.guest_phone)! };
}

/** A canceled reservation sends nothing more. */
export async function cancelQueuedMessages(db: Db, deps: Deps, reservationId: string): Promise<void> {
  await repo.cancelQueued(db, reservationId, iso(deps.clock()));
}

/**
 * The messages asking the guest to complete the portal that are still to go, withdrawn once they
 * are pointless: the reminder when the guest has completed it, the invitation and the reminder
 * when the booking is declined.
 */
export async function withdrawPortalMessages(db: Db, deps: Deps, reservationId: string, why: 'completed' | 'declined'): Promise<void> {
  await repo.cancelQueued(db, reservationId, iso(deps.clock()), why === 'completed' ? ['reminder'] : ['invitation', 'reminder']);
}

export async function stargateView(deps: Deps, r: ReservationRow) {
  const rows = await repo.listMessages(deps.db, r.id);
  return rows.map((m) => ({
    id: m.id,
    email: m.email ?? '',
    phone: m.phone ?? '',
    tag: m.tag,
    method: m.method,
    via: m.via ?? '',
    status: m.state,
    sendAfter: m.send_after,
    created: m.created_at,
    updated: m.updated_at,
    reservation_id: r.id,
    listing_id: r.listing_id ?? '',
    confirmation_code: r.confirmation_code ?? '',
    message: { subject: m.subject, text: m.text, html: m.html },
  }));
}
