import { followedBy, trackReports, type EstablishmentRow } from '../authority/index.js';
import { withTx, type Tx } from '../../db/connection.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Deps } from '../../deps.js';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { enqueue } from '../../jobs/repo.js';
import type { JobContext } from '../../jobs/worker.js';
import type { JobPayload } from '../../jobs/kinds.js';
import { newId, newPortalToken } from '../../lib/ids.js';
import { DAY_MS, iso } from '../../lib/time.js';
import type { AccountRow } from '../accounts/index.js';
import type { Actor } from '../../lib/actor.js';
import { audit } from '../audit/index.js';
import { emitWebhook } from '../events/index.js';
import { findEnabledWebhookUrl } from '../webhooks/index.js';
import { planCheckIn, cancelQueuedMessages, queueGuestMessages } from '../messages/index.js';
import { requestScreening, forgetHistory, deleteDismissalsOf, openIdentification, sealIdentification, type Identification } from '../screening/index.js';
import { insertNote, systemNote } from '../notes/index.js';
import { trackListing } from './listings.js';
import { assertKnownPms } from '../signup/index.js';
import * as repo from '../bookings/index.js';
import type { ReservationRow } from '../bookings/index.js';
import type { CreateInput, SearchInput, UpdateInput } from './schemas.js';
import { toReservationView } from './views.js';

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

const clean = (v: string | undefined) => (v === undefined ? undefined : v.trim() === '' ? null : v.trim());

/** Applies the spec's derivations and cross-field rules to a merged reservation. */
function finish(r: ReservationRow, given: { nights: boolean; rate: boolean; fullName: boolean; sentNights?: boolean }): ReservationRow {
  if (r.check_in_date && r.check_out_date && daysBetween(r.check_in_date, r.check_out_date) <= 0) {
    throw badRequest(`body.check_out_date: must be after check_in_date (${r.check_in_date})`);
  }
  // Nights sent beside dates that say otherwise: which one is right is the caller's to say.
  if (given.sentNights && r.nights !== null && r.check_in_date && r.check_out_date && r.nights !== daysBetween(r.check_in_date, r.check_out_date)) {
    const apart = daysBetween(r.check_in_date, r.check_out_date);
    throw badRequest(`body.nights: ${r.nights} does not match check_in_date ${r.check_in_date} and check_out_date ${r.check_out_date}, ${apart} ${apart === 1 ? 'night' : 'nights'} apart`);
  }
  if (!given.nights && r.check_in_date && r.check_out_date) r.nights = daysBetween(r.check_in_date, r.check_out_date);
  if (!given.rate && r.total_price !== null && r.nights) r.average_daily_rate = Math.round((r.total_price / r.nights) * 100) / 100;
  if (!given.fullName) r.guest_full_name = [r.guest_first_name, r.guest_last_name].filter(Boolean).join(' ') || null;
  return r;
}

function applyFields(r: ReservationRow, input: UpdateInput, identification: Identification): Identification {
  const set = <K extends keyof ReservationRow>(key: K, value: ReservationRow[K] | undefined) => {
    if (value !== undefined) r[key] = value;
  };
  set('confirmation_code', input.confirmation_code);
  set('status', input.status);
  set('source', clean(input.source));
  set('listing_id', clean(input.listing_id));
  set('listing_nickname', clean(input.listing_nickname));
  set('listing_timezone_name', clean(input.listing_timezone_name));
  set('number_of_guests', input.number_of_guests);
  set('nights', input.nights);
  set('total_price', input.total_price);
  set('average_daily_rate', input.average_daily_rate);
  set('check_in_date', input.check_in_date);
  set('check_out_date', input.check_out_date);
  set('pms_reservation_id', clean(input.pms_reservation_id));
  const g = input.guest;
  if (g) {
    set('guest_first_name', clean(g.first_name));
    set('guest_last_name', clean(g.last_name));
    set('guest_full_name', clean(g.full_name));
    set('guest_phone', clean(g.phone));
    set('guest_email', clean(g.email)?.toLowerCase() ?? (g.email === undefined ? undefined : null));
    set('guest_location', clean(g.location));
    set('guest_language', clean(g.language));
  }
  const merged: Identification = { ...identification };
  for (const [k, v] of Object.entries(input.identification ?? {})) {
    if (v === '' || v === undefined) delete merged[k as keyof Identification];
    else merged[k as keyof Identification] = v;
  }
  return merged;
}

async function assertCodeFree(deps: Deps, r: ReservationRow): Promise<void> {
  if (!r.confirmation_code) return;
  const other = await repo.findByCode(deps.db, r.account_id, r.pms, r.confirmation_code);
  if (other && other.id !== r.id) {
    throw conflict(`a reservation with confirmation code ${r.confirmation_code} (pms ${r.pms}) already exists: ${other.id}`);
  }
}

async function writeGuarded<T>(deps: Deps, r: ReservationRow, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await assertCodeFree(deps, r);
    throw err;
  }
}

/** A new reservation row from a create body, with every derivation applied; nothing is written. */
export function buildReservation(deps: Deps, account: AccountRow, input: CreateInput): ReservationRow {
  const pms = input.pms ?? 'api';
  assertKnownPms(deps, pms, 'body.pms');
  const now = iso(deps.clock());
  const r: ReservationRow = {
    id: newId('res'),
    account_id: account.id,
    pms,
    pms_reservation_id: null,
    confirmation_code: null,
    status: 'CONFIRMED',
    source: null,
    listing_id: null,
    listing_nickname: null,
    listing_timezone_name: null,
    number_of_guests: null,
    nights: null,
    total_price: null,
    average_daily_rate: null,
    check_in_date: null,
    check_out_date: null,
    guest_first_name: null,
    guest_last_name: null,
    guest_full_name: null,
    guest_phone: null,
    guest_email: null,
    guest_location: null,
    guest_language: null,
    identification_enc: null,
    gp_token: newPortalToken(),
    guestportal_completed: false,
    verification_status: 'pending',
    supervised: null,
    callback_url: null,
    skip_gp: false,
    screening: null,
    risk_color: null,
    supervised_reason: null,
    screened_at: null,
    decided_by: null,
    decided_at: null,
    handled_at: null,
    handled_by: null,
    created_at: now,
    updated_at: now,
  };
  const ident = applyFields(r, input, {});
  finish(r, { nights: input.nights !== undefined, rate: input.average_daily_rate !== undefined, fullName: !!input.guest.full_name, sentNights: input.nights !== undefined });
  r.identification_enc = sealIdentification(deps, r, ident);
  return r;
}

export const creationNote = (r: ReservationRow) => systemNote(r.id, `Reservation created through the API (pms ${r.pms}).`, r.created_at);

export interface WriteOptions {
  callback?: string | undefined;
  skipGp?: boolean | undefined;
}

export async function createReservation(deps: Deps, account: AccountRow, input: CreateInput, opts: WriteOptions = {}): Promise<ReservationRow> {
  const r = buildReservation(deps, account, input);
  if (opts.callback !== undefined) r.callback_url = opts.callback;
  if (opts.skipGp !== undefined) r.skip_gp = opts.skipGp;
  // A code already taken is found by the unique index when the row goes in (writeGuarded says
  // which reservation holds it): a look-up first would cost every create a query.
  const police = await followedBy(deps, r);
  await writeGuarded(deps, r, () =>
    withTx(
      deps.db,
      async (tx) => {
        await repo.insertReservation(tx, r);
        await insertNote(tx, creationNote(r));
        await afterWrite(tx, deps, r, 'reservation.created', police);
      },
      { subject: r.id },
    ),
  );
  return r;
}

/** What every create and update causes, in its transaction: events out and guest messages queued. */
async function afterWrite(tx: Tx, deps: Deps, r: ReservationRow, type: 'reservation.created' | 'reservation.updated', police: EstablishmentRow | null): Promise<void> {
  await emitWebhook(tx, deps, 'reservation_webhook_url', { accountId: r.account_id, type, subjectId: r.id, body: () => toReservationView(deps, r) });
  await trackListing(tx, deps, r);
  await requestScreening(tx, deps, r.id, type === 'reservation.created' ? 'created' : 'updated');
  if (type === 'reservation.updated') await planCheckIn(tx, deps, r);
  // Every guest of a listing that reports is followed to the deadline, whatever the guest did;
  // dates or guests changed after filing: the police reports follow (one filed is sent again).
  await trackReports(tx, deps, r, police);
  if (r.status === 'CANCELED') await cancelQueuedMessages(tx, deps, r.id);
  else await queueGuestMessages(tx, deps, r, { fresh: type === 'reservation.created' });
}

export async function updateReservation(deps: Deps, account: AccountRow, id: string, input: UpdateInput, opts: WriteOptions = {}): Promise<ReservationRow> {
  const current = await getReservation(deps, account, id);
  const r: ReservationRow = { ...current };
  if (input.pms !== undefined) {
    assertKnownPms(deps, input.pms, 'body.pms');
    r.pms = input.pms;
  }
  const ident = applyFields(r, input, openIdentification(deps, current));
  const namesChanged = input.guest?.first_name !== undefined || input.guest?.last_name !== undefined;
  finish(r, {
    nights: input.nights !== undefined || (input.check_in_date === undefined && input.check_out_date === undefined),
    rate: input.average_daily_rate !== undefined || (input.total_price === undefined && input.nights === undefined && input.check_in_date === undefined && input.check_out_date === undefined),
    fullName: input.guest?.full_name !== undefined || !namesChanged,
    sentNights: input.nights !== undefined,
  });
  r.identification_enc = sealIdentification(deps, r, ident);
  r.updated_at = iso(deps.clock());
  if (opts.callback !== undefined) r.callback_url = opts.callback;
  if (opts.skipGp !== undefined) r.skip_gp = opts.skipGp;
  await assertCodeFree(deps, r);
  const police = await followedBy(deps, r);
  await writeGuarded(deps, r, () =>
    withTx(deps.db, async (tx) => {
      await repo.updateReservation(tx, r.id, repo.mutableColumns(r));
      await afterWrite(tx, deps, r, 'reservation.updated', police);
    }),
  );
  forgetHistory(deps.db, r.account_id);
  return r;
}

function assertLookup(deps: Deps, lookup: repo.Lookup) {
  if (lookup.usePmsId && !lookup.pms) throw badRequest('query.usepmsid: must be used with pms');
  if (lookup.pms) assertKnownPms(deps, lookup.pms, 'query.pms');
}

/** The reservation by id, by confirmation code (with pms), or by the PMS's own id (with pms and usepmsid). */
export async function getReservation(deps: Deps, account: AccountRow, id: string, lookup: repo.Lookup = {}): Promise<ReservationRow> {
  assertLookup(deps, lookup);
  const found = await repo.findReservation(deps.db, account.id, id, lookup);
  if (!found) throw notFound(`reservation ${id}`);
  return found;
}

/** getReservation with only what the reservation view shows. */
export async function getReservationView(deps: Deps, account: AccountRow, id: string, lookup: repo.Lookup = {}): Promise<repo.ReservationViewRow> {
  assertLookup(deps, lookup);
  const found = await repo.findReservationView(deps.db, account.id, id, lookup);
  if (!found) throw notFound(`reservation ${id}`);
  return found;
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
const list = (v: string | undefined, lower = false) =>
  v
    ?.split(',')
    .map((s) => (lower ? s.trim().toLowerCase() : s.trim()))
    .filter(Boolean);

export async function searchReservations(deps: Deps, account: AccountRow, q: SearchInput) {
  const from = q.from ?? 0;
  const size = q.size ?? 20;
  const dateField = q.dateField ?? 'check_in_date';
  if (q.startDate && q.endDate && q.startDate > q.endDate) throw badRequest('query.endDate: must not be before startDate');
  const timestamps = dateField === 'created_at' || dateField === 'updated_at';
  const { total, rows } = await repo.searchReservations(deps.db, deps.dialect.kind, account.id, {
    status: q.status && q.status !== 'any' ? q.status : undefined,
    text: q.search?.trim() || undefined,
    listings: list(q.listings),
    emails: list(q.emails, true),
    source: q.source,
    guestportalCompleted: q.guestportal_completed === undefined ? undefined : q.guestportal_completed === 'true',
    active: q.active === undefined ? undefined : { value: q.active === '1', today: iso(deps.clock()).slice(0, 10) },
    pendingReview: q.pending_review === 'true',
    riskColor: q.risk_color,
    dateField,
    from: q.startDate && (timestamps ? `${q.startDate}T00:00:00.000Z` : q.startDate),
    to: q.endDate && (timestamps ? `${nextDay(q.endDate)}T00:00:00.000Z` : q.endDate),
    offset: from,
    limit: size,
  });
  return { from, size, total, rows };
}

/**
 * Erases a reservation's personal data everywhere this service keeps it: the row (and with it
 * the search index entry), notes, payment events, guest messages, the guest portal's answers
 * and uploads, the background checks and news searches ordered from its page, and stored
 * idempotent answers. An audit entry
 * records that it happened, without the data. On SQLite a `search.purge` job then clears the
 * guest's terms out of the full-text index's pages (purgeSearchIndex).
 */
export async function eraseReservation(deps: Deps, account: AccountRow, actor: Actor, id: string): Promise<void> {
  const r = await getReservation(deps, account, id);
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    const messageIds = await repo.eraseGuestRecords(tx, r.id);
    if (messageIds.length) await enqueue(tx, deps, 'message.erase', { message_ids: messageIds }, { runAt: new Date(deps.clock().getTime() + 5_000) });
    await deleteDismissalsOf(tx, r.id);
    await repo.deleteReservation(tx, r.id);
    await audit(tx, { account_id: account.id, actor, action: 'reservation.erased', subject_id: r.id, at: now });
    // In the same transaction, so a crash right after the commit still purges the index.
    if (deps.dialect.keepsDeletedTerms) await enqueue(tx, deps, 'search.purge', {}, { uniqueKey: 'search.purge' });
  });
  forgetHistory(deps.db, r.account_id);
  if (deps.dialect.keepsDeletedTerms) deps.wakeWorker();
}

/**
 * The `search.purge` job: SQLite's full-text index drops an erased guest's terms from its pages
 * only when the segments holding them are merged, so it is merged whole, in short steps with
 * pauses between (compactSearchIndex): the service goes on answering meanwhile. An 'optimize'
 * right in the erasure did the same in one write, which held the database far too long.
 */
export async function purgeSearchIndex(_payload: JobPayload<'search.purge'>, { deps }: JobContext): Promise<void> {
  await deps.dialect.compactSearchIndex(deps.db, { minSegments: 1 });
}

export { QUEUE_COLORS, type QueueColor } from '../bookings/index.js';

/** How far ahead a pending reservation joins the review queue (a red or orange one joins whatever its date). */
export const QUEUE_HORIZON_DAYS = 7;

/** The review queue (repo.waitingForDecision) as of today, of one colour or all. */
export async function reviewQueue(deps: Deps, account: AccountRow, page: { from: number; size: number; color?: repo.QueueColor | undefined }) {
  const now = deps.clock().getTime();
  const day = (offset: number) => iso(new Date(now + offset * DAY_MS)).slice(0, 10);
  const { total, byColor, rows } = await repo.waitingForDecision(deps.db, account.id, {
    today: day(0),
    horizon: day(QUEUE_HORIZON_DAYS),
    offset: page.from,
    limit: page.size,
    color: page.color,
  });
  return { ...page, total, byColor, rows };
}

/**
 * The guests a rule declined that the host still has to act on (repo.declinedByRules): none
 * where a connected system hears of verdicts (the account's screening webhook), which acts on them.
 */
export async function declinedByRules(deps: Deps, account: AccountRow, page: { from: number; size: number }) {
  if (await findEnabledWebhookUrl(deps.db, account.id, 'screening_webhook_url')) return { ...page, total: 0, rows: [] as ReservationRow[] };
  const today = iso(deps.clock()).slice(0, 10);
  return { ...page, ...(await repo.declinedByRules(deps.db, account.id, { today, offset: page.from, limit: page.size })) };
}

/** Marks a rule's decline handled (the booking cancelled in its channel, the guest told): it leaves the queue. */
export async function markHandled(deps: Deps, actor: Actor, r: ReservationRow): Promise<void> {
  if (r.verification_status !== 'declined' || r.supervised) throw badRequest('only a decline made by a rule, with no decision of a person, is marked handled');
  if (r.handled_at) return;
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    await repo.updateReservation(tx, r.id, { handled_at: now, handled_by: JSON.stringify({ type: actor.type, id: actor.id, name: actor.name }) });
    await audit(tx, { account_id: r.account_id, actor, action: 'reservation.decline_handled', subject_id: r.id, at: now });
  });
}

/** Reservations of the account by id, in that order; those not found (erased, another account's) left out. */
export const reservationsById = (deps: Deps, account: AccountRow, ids: string[]) => repo.findReservations(deps.db, account.id, ids);

/** searchReservations with each row whole (its verdict too), for pages that show colours and risks. */
export async function searchWithVerdicts(deps: Deps, account: AccountRow, q: SearchInput) {
  const found = await searchReservations(deps, account, q);
  return {
    ...found,
    rows: await repo.findReservations(
      deps.db,
      account.id,
      found.rows.map((r) => r.id),
    ),
  };
}

/** Runs screening again now (trigger `manual`); the run itself is a job. Answers when it was asked, for waitForScreening. */
export async function screenAgain(deps: Deps, r: ReservationRow): Promise<string> {
  const asked = iso(deps.clock());
  await withTx(deps.db, (tx) => requestScreening(tx, deps, r.id, 'manual'));
  return asked;
}
