/**
 * Police reports (docs/authority-reports.md): one a guest of a stay, to the system its listing
 * reports to. Planned when the guest completes the portal (or the host says "send now"), sent by
 * the `authority.send` job once the arrival day has come in the listing's time zone, and followed
 * until the authority has answered. A report is never filed twice on its own: a send is tried
 * again only when nothing reached the authority, and a lot already taken is queried, not resent.
 */
import { dateInWords } from '../../lib/host-messages.js';
import { createHash } from 'node:crypto';
import { withTx, type Db, type Tx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { DAY_MS, dayIn, iso, localTimeIn, startOfDayIn } from '../../lib/time.js';
import { addWorkingDays } from '../../lib/working-days.js';
import { enqueue } from '../../jobs/repo.js';
import type { JobContext } from '../../jobs/worker.js';
import { emitWebhook } from '../events/index.js';
import { answerText, findPortal, guestCount, openAnswers, type Answer, type Answers, type System } from '../guests/index.js';
import * as bookings from '../bookings/index.js';
import type { ReservationRow } from '../bookings/index.js';
import { alloggiatiConnection, openEstablishment, sesConnection, sibaConnection, sibaUnit, SYSTEM_NAMES } from './establishments.js';
import { AlloggiatiRefusal, generateToken, receipt, submitRows } from './alloggiati.js';
import { orderedRows, type Outcome } from './alloggiati-files.js';
import { alloggiatiTablesAsOf } from './tables.js';
import { alloggiatiRows, guestGiven, guestName, guestProblems, sesPerson, sibaBulletin, sibaExempt } from './guests.js';
import * as repo from './repo.js';
import { cancelCommunications, queryLots, sendPart, SesRefusal } from './ses.js';
import type { SesStay } from './ses-files.js';
import { deliverBulletins, SibaRefusal } from './siba.js';
import { movimentoBal } from './siba-files.js';
import { AuthorityUnreachable } from './soap.js';

/** `not_required`: a guest the system does not take (a Portuguese citizen, for SIBA): nothing to send, nothing due. */
export type ReportState = 'missing' | 'ready' | 'sending' | 'sent' | 'accepted' | 'rejected' | 'not_required';

/** The error code of a send never answered: it may be filed, so only the host sends it again. */
const UNCONFIRMED = 'unconfirmed';
/** Alloggiati Web: its code tables are not imported; the arrival is too old for its web service; a guest changed after filing; a stay's guest held back by another's refusal. */
const NO_TABLES = 'no_tables';
const TOO_LATE = 'too_late';
const CHANGED = 'changed_after_filing';
const HELD_BACK = 'held_back';
/** SIBA: the connection dropped before its answer; the same file, its number unchanged, goes again (SIBA takes a number once). */
const RESEND = 'resend_same_file';
/** Seconds to the next look at a lot SES has not processed yet, after `polls` looks. */
const pollDelay = (polls: number) => Math.min(600, 15 * 2 ** polls);
/** The host is alerted this long before a report not accepted falls due. */
export const ALERT_HOURS_BEFORE = 6;

/** Refusals of ours, before any authority was asked: nothing was tested or filed. */
const LOCAL_CODES = new Set([NO_TABLES, TOO_LATE, CHANGED]);
/** How long a send holds its stay's reports: past the job's own time-out, so a claim lapses only once its sender is gone. */
const CLAIM_MS = 120_000;

/** Filed for real: accepted by the authority's production service. A test answer is never a filing. */
export const isFiled = (row: Pick<repo.ReportRow, 'state' | 'mode'>) => row.state === 'accepted' && row.mode === 'production';
/** Nothing more is owed for a guest: filed for real, or not one the system takes. */
export const isSettled = (row: Pick<repo.ReportRow, 'state' | 'mode'>) => isFiled(row) || row.state === 'not_required';

/** A report as the API and the console show it. */
export function reportView(row: repo.ReportRow, now: Date) {
  const state = row.state as ReportState;
  const mode = row.mode as 'test' | 'production';
  return {
    id: row.id,
    guest: row.guest_index + 1,
    guest_name: row.guest_name || null,
    system: row.system as System,
    system_name: SYSTEM_NAMES[row.system as System],
    mode,
    // What the authority's test service answered: a refusal of ours before any call is not a test.
    tested: mode === 'test' && (state === 'accepted' || state === 'sent' || state === 'sending' || (state === 'rejected' && !LOCAL_CODES.has(row.error_code ?? ''))),
    state: state === 'sending' ? ('sent' as const) : state,
    late: !isSettled(row) && Date.parse(row.due_at) < now.getTime(),
    missing: JSON.parse(row.missing) as string[],
    due_at: row.due_at,
    sent_at: row.sent_at,
    answered_at: row.answered_at,
    receipt: row.receipt,
    error: row.error_code || row.error_message ? { code: row.error_code, message: row.error_message, fix: fixFor(row.error_code, row.system as System) } : null,
  };
}

/** What the host does about an answer of SES, by its code. */
const SES_FIXES: Record<string, string> = {
  '10103': 'SES does not know this landlord code: check the código de arrendador in the police settings of the listing, then send again.',
  '10107': 'SES refused the web-service user or password: set them again in the police settings of the listing, then send again.',
  '10120': 'Sending by web service is not enabled for this landlord: tick "Envío de comunicaciones por servicio web" in the SES portal, then send again.',
  '10121': 'SES refused the file: a guest’s details break its rules (its words above). Correct them with the guest, then send again.',
  '10130': 'SES found a field missing or wrong (its words above): correct it, then send again.',
  '10131': 'SES found a field missing or wrong (its words above): correct it, then send again.',
};

/** What the host does about Alloggiati Web's answers and ours. */
const ALLOGGIATI_FIXES: Record<string, string> = {
  [UNCONFIRMED]: 'Look for these guests on the day’s receipt (Ricevuta) in the Alloggiati Web portal. If they are there, nothing more is needed; if not, send again.',
  [NO_TABLES]:
    'Alloggiati Web’s tables of places and documents are not installed: save the listing’s police settings again (they are fetched with its credentials), or run guestscreen data import alloggiati-tables on the server; then send again.',
  [TOO_LATE]: 'Alloggiati Web takes only arrivals of today and yesterday by web service: file these guests by hand in its portal.',
  [CHANGED]: 'The stay changed after its guests were filed, and Alloggiati Web takes no correction by web service: correct or add the guests in its portal.',
  [HELD_BACK]: 'Not sent: another guest of the stay was refused. Fix that guest’s details, then send again.',
};

/** What the host does about SIBA's answers and ours. */
const SIBA_FIXES: Record<string, string> = {
  [UNCONFIRMED]: 'SIBA did not answer this send, and gives no receipt: look for these guests’ bulletins in the SIBA portal. If they are there, nothing more is needed; if not, send again.',
  [HELD_BACK]: 'Not sent: SIBA refused another guest of this file. Fix that guest’s details, then send again.',
  [RESEND]: 'The connection to SIBA dropped before its answer: the same file goes again on its own, with its number unchanged, so SIBA cannot take it twice.',
  '60': 'SIBA did not recognise the NIPC, the establishment number or the access key: check them in the police settings of the listing (the key is in the SIBA portal, under the web-service sending mode), then send again.',
};

/** What to do about a report's error, in words. */
export function fixFor(code: string | null, system: System = 'ses'): string {
  if (system === 'siba') {
    if (code && SIBA_FIXES[code]) return SIBA_FIXES[code];
    return 'SIBA refused this guest’s bulletin (its words above): correct the guest’s details with them, then send again.';
  }
  if (system === 'alloggiati') {
    if (code && ALLOGGIATI_FIXES[code]) return ALLOGGIATI_FIXES[code];
    return 'Alloggiati Web refused this guest’s row (its words above): correct the guest’s details with them, then send again.';
  }
  if (code === UNCONFIRMED) return 'Look for this stay in the SES portal (Comunicaciones). If it is there, nothing more is needed; if not, send again.';
  if (code && SES_FIXES[code]) return SES_FIXES[code];
  if (code && /validaci/i.test(code)) return 'SES refused a guest’s details (its words above): correct them with the guest or in the booking, then send again.';
  return 'Read the authority’s words above; once the cause is fixed, send again.';
}
export type ReportView = ReturnType<typeof reportView>;

/**
 * When a stay's reports fall due: 24 hours from arrival (the time the guest gave, else the start
 * of the arrival day) in the listing's time zone; for SIBA, the end of the third working day after
 * the arrival day in Portugal (weekends and national holidays not counted). Undefined without an
 * arrival date.
 */
export function dueAt(r: Pick<ReservationRow, 'check_in_date' | 'listing_timezone_name'>, system: string, arrivalTime?: string): Date | undefined {
  if (!r.check_in_date) return undefined;
  if (system === 'siba') return new Date(startOfDayIn(addWorkingDays(r.check_in_date, 3, 'PT'), stayZone(r, system)).getTime() + DAY_MS);
  const [h, m] = (arrivalTime ?? '00:00').split(':').map(Number) as [number, number];
  return new Date(startOfDayIn(r.check_in_date, stayZone(r, system)).getTime() + ((h + 24) * 60 + m) * 60_000);
}

/** Where each authority's law counts the hours: the mainland's time, for a booking that does not say its listing's zone. */
const SYSTEM_ZONES: Record<string, string> = { ses: 'Europe/Madrid', alloggiati: 'Europe/Rome', siba: 'Europe/Lisbon' };

/** The time zone a stay's police deadlines are counted and shown in: the listing's, else that of the country whose authority it reports to. */
export const stayZone = (r: Pick<ReservationRow, 'listing_timezone_name'>, system: string): string | null => r.listing_timezone_name ?? SYSTEM_ZONES[system] ?? null;

const digest = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('base64url').slice(0, 22);

/** What a guest's report would send (the guest and the stay's dates), to tell a change after sending. */
function reportDigest(deps: Deps, system: System, r: ReservationRow, answers: Answers, guest: number): string {
  const answer = answers.AuthorityReporting?.answer ?? {};
  const times = answers.TimeInfoEdit?.answer;
  const person = system === 'ses' ? sesPerson(answer, guest, deps.config.dataDir) : Object.entries(answer).filter(([k]) => (guest === 0 ? !k.startsWith('guest_') : k.startsWith(`guest_${guest}_`)));
  // SIBA's bulletin carries the days only: a time given later changes nothing it was sent.
  if (system === 'siba') return digest([person, r.check_in_date, r.check_out_date]);
  return digest([person, r.check_in_date, r.check_out_date, answerText(times, 'arrival_time'), answerText(times, 'departure_time')]);
}

/**
 * Brings a booking's reports up to date with the booking and what its guests answered: a report
 * for every guest the booking counts, whether or not they opened the portal (the host's duty does
 * not wait for the guest), each `missing` what it lacks or `ready`; a report filed and since
 * changed made ready to be cancelled and sent again; one only tested, once the establishment
 * reports for real, ready to be sent for real; and the sending job queued for the arrival day (or
 * now). No establishment: no reports. A cancelled booking's reports are left as they are.
 */
export async function planReports(tx: Tx, deps: Deps, r: ReservationRow, opts: { now: boolean; force?: boolean; establishment?: repo.EstablishmentRow }): Promise<repo.ReportRow[]> {
  const establishment = opts.establishment ?? (await repo.establishmentFor(tx, r.account_id, r.listing_id));
  if (!establishment) return [];
  if (r.status === 'CANCELED') return repo.reportsOf(tx, r.id);
  const system = establishment.system as System;
  const answers = openAnswers(deps, r, await findPortal(tx, r.id));
  const answer = answers.AuthorityReporting?.answer ?? {};
  const due = dueAt(r, system, answerText(answers.TimeInfoEdit?.answer, 'arrival_time'));
  const now = deps.clock();
  const arrival = r.check_in_date ?? iso(now).slice(0, 10);
  const count = guestCount(r.number_of_guests);
  await repo.deleteUnsentReports(tx, r.id, count);
  // Each report written only over what was read: a send's claim or another planning committed
  // in between (PostgreSQL reads without locking) makes it read again, and never undone.
  const plan = async (existing: repo.ReportRow[]): Promise<repo.ReportRow[] | null> => {
    const changed: repo.ReportRow[] = [];
    for (let g = 0; g < count; g++) {
      const before = existing.find((x) => x.guest_index === g && x.system === system);
      // A test answer is never a filing: once the establishment reports for real, what was only
      // tested starts again, its test answers dropped.
      const testedOnly = before?.mode === 'test' && establishment.mode === 'production' && ['accepted', 'sent', 'rejected'].includes(before.state);
      const kept = testedOnly ? undefined : before;
      const missing = [...new Set(guestProblems(system, answer, g, arrival, deps.config.dataDir).map((p) => p.field))];
      if (!r.check_in_date) missing.unshift('check_in_date');
      if (!r.check_out_date && system === 'ses') missing.unshift('check_out_date');
      const given = guestGiven(system, answer, g) && Boolean(answers.AuthorityReporting?.answer);
      const sent = reportDigest(deps, system, r, answers, g);
      // A report on its way stays so until the authority answers (then it is planned again); one
      // filed stays filed while what it sent holds, and a change makes it ready to go again.
      // A refusal stays until something changes, or the host sends again (then after fixing the
      // establishment, say); so does a send never answered, which the host has looked for.
      const unconfirmed = kept?.state === 'sent' && kept.error_code === UNCONFIRMED;
      const again = opts.force && kept && (kept.state === 'rejected' || unconfirmed);
      const onItsWay = kept && !again && (kept.state === 'sending' || (kept.state === 'sent' && !kept.receipt));
      const filed = kept && !again && (kept.state === 'accepted' || kept.state === 'sent' || kept.state === 'rejected') && kept.sent_digest === sent;
      // Alloggiati Web takes no correction by web service: a guest filed for real and changed since stays filed, with a note.
      const uncorrectable = system === 'alloggiati' && kept !== undefined && isFiled(kept) && kept.sent_digest !== sent;
      const stays = onItsWay || filed || uncorrectable;
      // A guest SIBA does not take (a Portuguese citizen) has nothing to send: the report says so.
      const exempt = system === 'siba' && given && sibaExempt(answer, g);
      const state: ReportState = stays ? (kept.state as ReportState) : exempt ? 'not_required' : missing.length || !given ? 'missing' : 'ready';
      const row: repo.ReportRow = {
        id: before?.id ?? newId('rep'),
        account_id: r.account_id,
        reservation_id: r.id,
        guest_index: g,
        guest_name: guestName(answer, g) || (g === 0 ? (r.guest_full_name ?? '') : ''),
        system,
        // What was sent keeps the mode it went in; what is still to go, the establishment's.
        mode: stays ? kept.mode : establishment.mode,
        state,
        missing: JSON.stringify(state === 'not_required' ? [] : state === 'missing' && !given && !missing.length ? ['first_name'] : missing),
        sent_digest: kept?.sent_digest ?? null,
        lot: kept?.lot ?? null,
        receipt: kept?.receipt ?? null,
        error_code: uncorrectable ? CHANGED : state === kept?.state ? kept.error_code : null,
        error_message: uncorrectable ? null : state === kept?.state ? kept.error_message : null,
        due_at: iso(due ?? now),
        polls: kept?.polls ?? 0,
        alerted_at: before?.alerted_at ?? null,
        sent_at: kept?.sent_at ?? null,
        answered_at: kept?.answered_at ?? null,
        claimed_until: kept?.claimed_until ?? null,
        sent_enc: kept?.sent_enc ?? null,
        answer: kept?.answer ?? null,
        created_at: before?.created_at ?? iso(now),
        updated_at: iso(now),
        version: 0,
      };
      const { id: _id, account_id: _a, reservation_id: _r, version: _v, ...patch } = row;
      if (!(before ? await repo.updateReportIfUnchanged(tx, before, patch) : await repo.insertReport(tx, row))) return null;
      if (!before || before.state !== row.state || before.missing !== row.missing || before.mode !== row.mode) changed.push(row);
    }
    return changed;
  };
  let changed: repo.ReportRow[] | null = null;
  for (let attempt = 1; !changed; attempt++) {
    changed = await plan(await repo.reportsOf(tx, r.id));
    if (!changed && attempt >= 5) throw new AppError('conflict', `the police reports of reservation ${r.id} are being changed by another request: try again`);
  }
  const rows = await repo.reportsOf(tx, r.id);
  if (rows.some((x) => x.state === 'ready')) {
    const arrivalDay = r.check_in_date ? startOfDayIn(r.check_in_date, stayZone(r, system)) : now;
    const runAt = opts.now || arrivalDay <= now ? now : arrivalDay;
    await enqueue(tx, deps, 'authority.send', { reservation_id: r.id }, { runAt, uniqueKey: `authority.send:${r.id}:${opts.now ? 'now' : 'arrival'}` });
    if (runAt === now) deps.wakeWorker();
  }
  for (const row of changed) await tellHost(tx, deps, row);
  return rows;
}

/**
 * The establishment a booking's reports follow from the booking itself, on every create and
 * update: every guest of a stay that has not ended, at a listing that reports, whatever the guest
 * did (a stay over before it was written, a PMS's history, is not the host's to report now; "send
 * now" still can). Read before the write's transaction, where a read costs the writer's round trip
 * on every create; a listing set up while the write runs is caught by the hourly look
 * (trackMissedStays). Null when there is nothing to follow.
 */
export async function followedBy(deps: Deps, r: ReservationRow): Promise<repo.EstablishmentRow | null> {
  const today = iso(deps.clock()).slice(0, 10);
  const ended = (r.check_out_date ?? r.check_in_date ?? today) < today;
  if (!r.guestportal_completed && (!r.check_in_date || ended)) return null;
  return (await repo.establishmentFor(deps.db, r.account_id, r.listing_id)) ?? null;
}

/** A booking's reports planned in its write's transaction, with the establishment `followedBy` found. */
export async function trackReports(tx: Tx, deps: Deps, r: ReservationRow, establishment: repo.EstablishmentRow | null): Promise<void> {
  if (establishment) await planReports(tx, deps, r, { now: false, establishment });
}

/** The hourly look: stays that have not ended at listings that report, written without their reports (a race with the set-up), planned. */
export async function trackMissedStays(deps: Deps): Promise<number> {
  const missed = await repo.staysWithoutReports(deps.db, iso(deps.clock()).slice(0, 10), 500);
  for (const { account_id, id } of missed) {
    const r = await bookings.findById(deps.db, account_id, id);
    if (r) await withTx(deps.db, (tx) => planReports(tx, deps, r, { now: false }));
  }
  return missed.length;
}

/** Whether a booking's guest has opened its portal (saved a step): who can give what a report lacks. */
export const portalOpened = async (db: Db, reservationId: string) => Boolean(await findPortal(db, reservationId));

/**
 * The `authority.plan` job: an establishment saved or switched, the reports of the stays that have
 * not ended planned: at its listing, or, for the account's default, at every listing that reports
 * through it. Each booking in a transaction of its own; planning twice changes nothing.
 */
export async function runAuthorityPlan(payload: { account_id: string; listing_id: string }, ctx: JobContext): Promise<void> {
  const { deps } = ctx;
  const today = iso(deps.clock()).slice(0, 10);
  let after = '';
  for (;;) {
    const page = await bookings.staysNotEnded(deps.db, payload.account_id, payload.listing_id || null, today, after, 200);
    for (const r of page) {
      const establishment = await repo.establishmentFor(deps.db, r.account_id, r.listing_id);
      if (establishment?.listing_id === payload.listing_id) await withTx(deps.db, (tx) => planReports(tx, deps, r, { now: false }));
    }
    if (page.length < 200) return;
    after = page.at(-1)!.id;
    await ctx.breathe();
  }
}

/** The booking's reports, as the API answers them. */
export async function reportsView(deps: Deps, accountId: string, reservationId: string): Promise<(ReportView & { proof: ReturnType<typeof reportProof> })[]> {
  const r = await bookings.findById(deps.db, accountId, reservationId);
  if (!r) throw notFound(`reservation ${reservationId}`);
  const now = deps.clock();
  return (await repo.reportsOf(deps.db, r.id)).map((row) => ({ ...reportView(row, now), proof: reportProof(deps, row) }));
}

/** Why "send now" sends nothing: each reason a code, and its words for the host. */
export type NothingSent = { code: 'filed' | 'on_its_way' | 'missing' | 'no_tables' | 'not_arrived' | 'too_late' | 'changed'; message: string };

/**
 * Why a stay planned just now will not go at once, or null when it goes: the same tests the
 * sending job makes before it calls the authority, in the host's words.
 */
export function whyNothingGoes(rows: repo.ReportRow[], r: ReservationRow, dataDir: string, now: Date): NothingSent | null {
  const name = SYSTEM_NAMES[rows[0]!.system as System];
  const who = (x: repo.ReportRow) => x.guest_name || `Guest ${x.guest_index + 1}`;
  if (rows.some((x) => x.state === 'sending' || (x.state === 'sent' && !x.receipt && x.error_code !== UNCONFIRMED)))
    return { code: 'on_its_way', message: `Nothing sent now: a send to ${name} is already on its way; its answer shows here.` };
  if (!rows.some((x) => x.state === 'ready')) {
    if (rows.every(isFiled)) return { code: 'filed', message: `Nothing sent: every guest is filed with ${name} already.` };
    if (rows.every(isSettled)) return { code: 'filed', message: `Nothing sent: every guest ${name} takes is filed with it already; the others are not reported to it.` };
    const missing = rows.filter((x) => x.state === 'missing');
    if (missing.length) return { code: 'missing', message: `Nothing sent: ${missing.map(who).join(', ')} ${missing.length === 1 ? 'has' : 'have'} not given all ${name} needs (below).` };
    return { code: 'changed', message: 'Nothing sent: no report is ready to go (below, what each needs).' };
  }
  const missing = rows.filter((x) => x.state === 'missing');
  if (missing.length)
    return { code: 'missing', message: `Nothing sent: the stay goes whole, and ${missing.map(who).join(', ')} ${missing.length === 1 ? 'has' : 'have'} not given all ${name} needs (below).` };
  if (rows[0]!.system === 'siba' && sibaNotArrived(r, now))
    return {
      code: 'not_arrived',
      message: `Nothing sent yet: SIBA takes no correction or cancellation, so a stay goes from its arrival day; it goes on its own on ${dateInWords(r.check_in_date ?? '')}.`,
    };
  const held = rows[0]!.system === 'alloggiati' ? alloggiatiHold(rows, r, dataDir, now) : null;
  if (held === 'not_arrived') return { code: held, message: `Nothing sent yet: Alloggiati Web takes a stay only from its arrival day; it goes on its own on ${dateInWords(r.check_in_date ?? '')}.` };
  if (held) return { code: held, message: `Nothing sent: ${ALLOGGIATI_FIXES[{ changed: CHANGED, too_late: TOO_LATE, no_tables: NO_TABLES }[held]]}` };
  return null;
}

/**
 * Why an Alloggiati Web stay cannot go now, before any call, or null: filed for real already (its
 * rows would be filed twice), an arrival older than yesterday or not come yet (Italian time: the
 * web service takes only today's and yesterday's), or its tables not installed.
 */
function alloggiatiHold(stay: repo.ReportRow[], r: ReservationRow, dataDir: string, now: Date): 'changed' | 'too_late' | 'not_arrived' | 'no_tables' | null {
  if (stay.some((x) => isFiled(x) && x.receipt)) return 'changed';
  const today = dayIn(iso(now), 'Europe/Rome');
  const yesterday = dayIn(iso(new Date(now.getTime() - 86_400_000)), 'Europe/Rome');
  if (!r.check_in_date || r.check_in_date < yesterday) return 'too_late';
  if (r.check_in_date > today) return 'not_arrived';
  return alloggiatiTablesAsOf(dataDir) ? null : 'no_tables';
}

/**
 * The host's "send now": the reports planned from the booking and what its guests answered, and
 * sent at once, whatever the day. A report the authority has taken is not sent again unless its
 * guest changed. Says what it did: sending, or nothing sent and why.
 */
export async function sendNow(deps: Deps, accountId: string, reservationId: string): Promise<{ reports: ReportView[]; sent: boolean; nothing_sent: NothingSent | null }> {
  const { rows, why } = await withTx(deps.db, async (tx) => {
    const r = await bookings.findById(tx, accountId, reservationId);
    if (!r) throw notFound(`reservation ${reservationId}`);
    if (r.status === 'CANCELED') throw new AppError('conflict', 'this reservation was cancelled: its guests are not reported');
    // Planned, a booking has a report for each guest; none, when no police system is set.
    const planned = await planReports(tx, deps, r, { now: true, force: true });
    if (!planned.length)
      throw new AppError('conflict', `no police system is set for listing ${r.listing_id ?? '(none)'} or for the account: set one with PUT /v1/listings/{listing_id}/authority-establishment`);
    return { rows: planned, why: whyNothingGoes(planned, r, deps.config.dataDir, deps.clock()) };
  });
  const now = deps.clock();
  return { reports: rows.map((row) => reportView(row, now)), sent: !why, nothing_sent: why };
}

/** A report's new state, told to the account's reservation webhook. */
async function tellHost(tx: Tx, deps: Deps, row: repo.ReportRow): Promise<void> {
  await emitWebhook(tx, deps, 'reservation_webhook_url', {
    accountId: row.account_id,
    type: 'authority_report.updated',
    subjectId: row.reservation_id,
    body: { reservation_id: row.reservation_id, report: reportView(row, deps.clock()) },
  });
}

/** Rows changed together (one stay's guests), each told to the host. */
async function setReports(deps: Deps, rows: repo.ReportRow[], patch: Partial<repo.ReportRow>): Promise<void> {
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    for (const row of rows) {
      const next = { ...row, ...patch, updated_at: now };
      await repo.updateReport(tx, row.id, { ...patch, updated_at: now });
      if (next.state !== row.state || next.error_message !== row.error_message || next.receipt !== row.receipt) await tellHost(tx, deps, next);
    }
  });
}

/** Another send holds a report of the stay. */
class ClaimTaken extends Error {}

/**
 * The stay's reports claimed for one send, before the authority is called: each changed only if
 * nobody changed it since it was read, all or none, in one transaction. On PostgreSQL a second
 * job's update waits for the first's and then finds the row changed; SQLite has one writer. Null
 * when another job or write came first: that one sends, this one does nothing.
 */
async function claimStay(deps: Deps, stay: repo.ReportRow[], mode: string, filing: boolean): Promise<repo.ReportRow[] | null> {
  const now = deps.clock();
  const patch = {
    state: 'sending',
    mode,
    claimed_until: iso(new Date(now.getTime() + CLAIM_MS)),
    // When the call that files goes (SES's part right after the claim; Alloggiati's Send only after Test): a sender stopped before it filed nothing.
    sent_at: filing ? iso(now) : null,
    error_code: null,
    error_message: null,
    polls: 0,
    updated_at: iso(now),
  } satisfies Partial<repo.ReportRow>;
  try {
    return await withTx(deps.db, async (tx) => {
      const claimed: repo.ReportRow[] = [];
      for (const row of stay) {
        if (!(await repo.updateReportIfUnchanged(tx, row, patch))) throw new ClaimTaken();
        const next = { ...row, ...patch, version: row.version + 1 };
        if (row.state !== 'sending') await tellHost(tx, deps, next);
        claimed.push(next);
      }
      return claimed;
    });
  } catch (err) {
    if (err instanceof ClaimTaken) return null;
    throw err;
  }
}

/** What was sent for a guest, sealed to its report: the host's proof. */
const sealSent = (deps: Deps, row: Pick<repo.ReportRow, 'id' | 'account_id'>, sent: string) => deps.secrets.seal(sent, `authority_report:${row.account_id}:${row.id}`);

/** What was sent for a guest and what the authority answered, for the host's proof; null once erased or before any send. */
export function reportProof(deps: Deps, row: repo.ReportRow): { sent: string | null; answer: string | null } {
  return { sent: row.sent_enc ? deps.secrets.open(row.sent_enc, `authority_report:${row.account_id}:${row.id}`) : null, answer: row.answer };
}

/** The `authority.send` job: a booking's reports sent, or their lot looked at again. */
export async function runAuthoritySend(payload: { reservation_id: string }, ctx: JobContext): Promise<void> {
  const { deps } = ctx;
  const rows = await repo.reportsOf(deps.db, payload.reservation_id);
  if (!rows.length) return;
  const r = await bookings.findById(deps.db, rows[0]!.account_id, payload.reservation_id);
  const establishment = r && (await repo.establishmentFor(deps.db, r.account_id, r.listing_id));
  if (!r || !establishment) return;
  const open = openEstablishment(deps, establishment);
  let stay = rows.filter((x) => x.system === open.system);
  const now = iso(deps.clock());

  // A send in flight elsewhere holds the stay: looked at again once its claim lapses, in case its sender stopped.
  const held = stay.filter((x) => x.state === 'sending');
  const lapses =
    held
      .map((x) => x.claimed_until ?? '')
      .sort()
      .at(-1) ?? '';
  if (lapses > now) {
    await enqueue(deps.db, deps, 'authority.send', { reservation_id: r.id }, { runAt: new Date(Date.parse(lapses) + 1000), uniqueKey: `authority.claim:${r.id}` });
    return;
  }
  if (held.length) {
    // Its sender stopped. Once the call that files had gone, it may have been filed, and neither
    // service can be asked about a send it did not answer: not sent again on its own. Before, nothing was filed.
    if (held.some((x) => x.sent_at)) {
      await setReports(deps, held, {
        state: 'sent',
        claimed_until: null,
        error_code: UNCONFIRMED,
        error_message: `${SYSTEM_NAMES[open.system]} did not answer this send: it may have been filed.`,
      });
      return;
    }
    await setReports(deps, held, { state: 'ready', claimed_until: null });
    stay = (await repo.reportsOf(deps.db, r.id)).filter((x) => x.system === open.system);
  }
  // Only tested, and the establishment now reports for real: planned again, and sent by the job that queues.
  if (open.mode === 'production' && stay.some((x) => x.mode === 'test' && ['accepted', 'sent', 'rejected'].includes(x.state))) {
    await withTx(deps.db, (tx) => planReports(tx, deps, r, { now: true }));
    return;
  }
  if (open.system === 'alloggiati') return sendAlloggiati(deps, r, establishment, open, stay);
  if (open.system === 'siba') return sendSiba(deps, r, open, stay);
  const conn = sesConnection(deps, open.settings, open.credentials, open.mode);

  // A lot SES has taken: asked about, never sent again.
  const pending = stay.filter((x) => x.state === 'sent' && x.lot && !x.receipt);
  if (pending.length) return followLot(deps, conn, r, pending);

  // A booking cancelled before its reports went has nobody to report.
  if (r.status === 'CANCELED') return;
  // The stay goes whole, one communication: every guest ready (or filed and unchanged).
  if (!stay.some((x) => x.state === 'ready') || stay.some((x) => x.state === 'missing' || x.state === 'sent')) return;
  // Filed before in this mode and changed since: its communication is cancelled, then the stay sent again.
  const stale = [...new Set(stay.filter((x) => x.mode === open.mode && x.receipt).map((x) => x.receipt!))];
  const claimed = await claimStay(deps, stay, open.mode, true);
  if (!claimed) return;
  const answers = openAnswers(deps, r, await findPortal(deps.db, r.id));
  const answer = answers.AuthorityReporting?.answer ?? {};
  try {
    if (stale.length) {
      await cancelCommunications(conn, stale);
      await setReports(deps, claimed, { receipt: null, lot: null });
    }
    const { lot, file } = await sendPart(conn, open.settings.establishment_code ?? '', [sesStay(r, answers.TimeInfoEdit?.answer, answer, claimed.length, deps.config.dataDir)]);
    for (const row of claimed)
      await setReports(deps, [row], {
        state: 'sent',
        lot,
        claimed_until: null,
        sent_digest: reportDigest(deps, 'ses', r, answers, row.guest_index),
        sent_enc: sealSent(deps, row, file),
        answer: JSON.stringify({ codigo: 0, lote: lot }),
      });
    await enqueue(deps.db, deps, 'authority.send', { reservation_id: r.id }, { runAt: new Date(deps.clock().getTime() + pollDelay(0) * 1000), uniqueKey: `authority.poll:${r.id}` });
  } catch (err) {
    if (err instanceof SesRefusal) {
      await setReports(deps, claimed, {
        state: 'rejected',
        claimed_until: null,
        error_code: String(err.code),
        error_message: err.description,
        answer: JSON.stringify({ codigo: err.code, descripcion: err.description }),
        answered_at: iso(deps.clock()),
      });
      return;
    }
    return afterFailure(deps, claimed, err, true);
  }
}

/**
 * A send that failed on the way: nothing reached the authority (or what reached it files nothing,
 * as Alloggiati's `Test`), so the stay is ready again and the job tries later (its backoff); or
 * the answer of a call that files was lost, so it may be filed and waits for the host. Anything
 * else is not the way's, and goes on up.
 */
async function afterFailure(deps: Deps, stay: repo.ReportRow[], err: unknown, filing: boolean): Promise<void> {
  if (!(err instanceof AuthorityUnreachable) || !filing || !err.mayHaveArrived) {
    await setReports(deps, stay, { state: 'ready', sent_at: null, claimed_until: null });
    throw err;
  }
  await setReports(deps, stay, { state: 'sent', claimed_until: null, error_code: UNCONFIRMED, error_message: `${err.message}. It may have been filed.` });
}

/** A lot looked at: each guest's code or error once processed, or another look later. */
async function followLot(deps: Deps, conn: ReturnType<typeof sesConnection>, r: ReservationRow, pending: repo.ReportRow[]): Promise<void> {
  const lot = pending[0]!.lot!;
  const [result] = await queryLots(conn, [lot]);
  const now = iso(deps.clock());
  if (!result || result.state === 4 || result.state === 5) {
    const polls = pending[0]!.polls + 1;
    await setReports(deps, pending, { polls });
    await enqueue(deps.db, deps, 'authority.send', { reservation_id: r.id }, { runAt: new Date(deps.clock().getTime() + pollDelay(polls) * 1000), uniqueKey: `authority.poll:${r.id}` });
    return;
  }
  if (result.state === 2 || result.state === 3) {
    await setReports(deps, pending, {
      state: 'rejected',
      error_code: `lot ${result.state}`,
      error_message: result.stateWords,
      answer: JSON.stringify({ lote: lot, codigoEstado: result.state, descEstado: result.stateWords }),
      answered_at: now,
    });
    return;
  }
  // One stay a part: its one communication answers for every guest of it.
  const c = result.results[0];
  const answer = JSON.stringify({ lote: lot, codigoEstado: result.state, ...(c?.code ? { codigoComunicacion: c.code } : { tipoError: c?.errorType ?? null, error: c?.error ?? null }) });
  if (c?.code) await setReports(deps, pending, { state: 'accepted', receipt: c.code, error_code: null, error_message: null, answer, answered_at: now });
  else await setReports(deps, pending, { state: 'rejected', error_code: c?.errorType ?? `lot ${result.state}`, error_message: c?.error ?? result.stateWords, answer, answered_at: now });
  // What changed while the lot was processed goes now: planned again against the answers of today.
  await withTx(deps.db, (tx) => planReports(tx, deps, r, { now: true }));
}

/** SES's payment types: a booking from a platform was paid through it. */
const PLATFORMS = new Set(['airbnb', 'booking', 'vrbo', 'expedia', 'homeaway']);

/** A booking's stay as SES's communication: its contract, dates, and every guest. */
export function sesStay(r: ReservationRow, times: Answer | undefined, answer: Answer, guests: number, dataDir?: string): SesStay {
  const time = (k: string, fallback: string) => (answerText(times, k) ?? fallback).padEnd(5, '0');
  return {
    referencia: r.id,
    fechaContrato: r.created_at.slice(0, 10),
    fechaEntrada: `${r.check_in_date}T${time('arrival_time', '00:00')}:00`,
    fechaSalida: `${r.check_out_date}T${time('departure_time', '00:00')}:00`,
    internet: false,
    pago: { tipoPago: PLATFORMS.has((r.source ?? '').toLowerCase()) ? 'PLATF' : 'OTRO' },
    personas: Array.from({ length: guests }, (_, g) => sesPerson(answer, g, dataDir)),
  };
}

/** The account's reports still open, as the console's Reports page groups them. */
export async function openReportsView(deps: Deps, accountId: string, listingId: string | undefined) {
  const now = deps.clock();
  const [rows, listings] = await Promise.all([repo.openReports(deps.db, accountId, listingId, 500), repo.reportListings(deps.db, accountId)]);
  const items = rows.map((row) => ({
    ...reportView(row, now),
    reservation_id: row.reservation_id,
    listing_id: row.listing_id,
    listing_nickname: row.listing_nickname,
    check_in_date: row.check_in_date,
    timezone: stayZone(row, row.system),
    booked_by: row.guest_full_name,
  }));
  const day = now.getTime() + 86_400_000;
  return {
    late: items.filter((x) => x.late),
    rejected: items.filter((x) => !x.late && x.state === 'rejected'),
    due: items.filter((x) => !x.late && x.state !== 'rejected' && Date.parse(x.due_at) <= day),
    later: items.filter((x) => !x.late && x.state !== 'rejected' && Date.parse(x.due_at) > day),
    listings,
  };
}

/**
 * A stay filed with Alloggiati Web: its rows (head first, members after) checked by `Test`,
 * then, in production, filed by `Send` and the day's receipt fetched and kept. In test mode the
 * check is the answer: nothing is filed. Alloggiati has no cancellation by web service: a change
 * after filing is left for the host to correct in its portal.
 */
async function sendAlloggiati(deps: Deps, r: ReservationRow, establishment: repo.EstablishmentRow, open: ReturnType<typeof openEstablishment>, stay: repo.ReportRow[]): Promise<void> {
  // Filed, its day's receipt not kept yet (it could not be fetched after sending): fetched now.
  const filedOn = stay.find((x) => isFiled(x) && x.receipt)?.receipt;
  if (filedOn && !(await repo.findReceipt(deps.db, establishment.account_id, establishment.id, filedOn))) {
    const conn = alloggiatiConnection(deps, open.settings, open.credentials);
    await keepReceipt(deps, conn, await generateToken(conn), establishment, filedOn);
    return;
  }
  if (r.status === 'CANCELED') return;
  if (!stay.some((x) => x.state === 'ready') || stay.some((x) => x.state === 'missing' || x.state === 'sent')) return;
  const now = deps.clock();
  const answered = { answered_at: iso(now) };
  const held = alloggiatiHold(stay, r, deps.config.dataDir, now);
  // Not arrived yet: the job queued for the arrival day sends it.
  if (held === 'not_arrived') return;
  if (held) {
    // A stay filed for real goes no more: only a guest added since is refused, with the note to add them in its portal.
    const refused = held === 'changed' ? stay.filter((x) => x.state === 'ready') : stay;
    await setReports(deps, refused, { state: 'rejected', error_code: { changed: CHANGED, too_late: TOO_LATE, no_tables: NO_TABLES }[held], error_message: null, ...answered });
    return;
  }
  const answers = openAnswers(deps, r, await findPortal(deps.db, r.id));
  const answer = answers.AuthorityReporting?.answer ?? {};
  const today = dayIn(iso(now), 'Europe/Rome');
  const arrival = r.check_in_date!; // a stay without one is held as too late
  const nights = r.check_out_date ? Math.round((Date.parse(r.check_out_date) - Date.parse(arrival)) / 86_400_000) : 1;
  const { rows, unknown } = alloggiatiRows(answer, stay.length, { arrival, nights }, deps.config.dataDir);
  if (unknown.length) {
    // The guest wrote a place the tables do not know (they were imported after the portal was filled in).
    for (const row of stay) {
      const own = unknown.filter((f) => (row.guest_index === 0 ? !f.startsWith('guest_') : f.startsWith(`guest_${row.guest_index}_`)));
      await setReports(deps, [row], own.length ? { state: 'missing', missing: JSON.stringify(own) } : {});
    }
    return;
  }
  // Claimed before the first call: a second job, or a second "send now", finds it taken and does nothing.
  const claimed = await claimStay(deps, stay, open.mode, false);
  if (!claimed) return;
  const conn = alloggiatiConnection(deps, open.settings, open.credentials);
  const lines = orderedRows([rows], open.settings.apartment_id);
  // Each guest's answer: filed (or, checked only, accepted when the whole stay passed), held back
  // by another guest's refusal, or refused in the service's words; with the row sent and the answer kept.
  const verdicts = (outcomes: Outcome[], sent: boolean) =>
    claimed.map((row) => {
      const o = outcomes[row.guest_index];
      const patch: Partial<repo.ReportRow> =
        o?.ok && (sent || outcomes.every((x) => x.ok))
          ? { state: 'accepted', error_code: null, error_message: null, receipt: sent ? today : null }
          : o?.ok
            ? { state: 'rejected', error_code: HELD_BACK, error_message: null }
            : { state: 'rejected', error_code: o?.code ?? null, error_message: [o?.name, o?.detail].filter(Boolean).join(': ') || null };
      const proof = {
        sent_enc: sealSent(deps, row, lines[row.guest_index] ?? ''),
        answer: JSON.stringify({ operation: sent ? 'Send' : 'Test', esito: o?.ok ?? false, ErroreCod: o?.code ?? null, ErroreDes: o?.name ?? null, ErroreDettaglio: o?.detail ?? null }),
      };
      return { row, patch: { ...patch, ...proof, ...answered, claimed_until: null, sent_digest: reportDigest(deps, 'alloggiati', r, answers, row.guest_index) } };
    });
  let filing = false;
  try {
    const token = await generateToken(conn);
    const checked = await submitRows(conn, token, lines, false);
    if (open.mode === 'test' || checked.some((o) => !o.ok)) {
      // Test mode's answer, or a refusal: a stay goes whole or not at all (a family's members need their head).
      for (const { row, patch } of verdicts(checked, false)) await setReports(deps, [row], patch);
      return;
    }
    // From here the call files: a sender stopped past this point may have filed the stay.
    filing = true;
    await setReports(deps, claimed, { sent_at: iso(deps.clock()) });
    const filed = await submitRows(conn, token, lines, true);
    for (const { row, patch } of verdicts(filed, true)) await setReports(deps, [row], patch);
    try {
      await keepReceipt(deps, conn, token, establishment, today);
    } catch (err) {
      // Filed: the receipt is fetched by a job of its own, retried with its backoff.
      deps.log?.warn({ err: (err as Error).message, establishment: establishment.id, day: today }, 'Alloggiati Web receipt not fetched yet');
      await enqueue(deps.db, deps, 'authority.send', { reservation_id: r.id }, { uniqueKey: `authority.receipt:${r.id}` });
    }
  } catch (err) {
    if (err instanceof AlloggiatiRefusal) {
      await setReports(deps, claimed, {
        state: 'rejected',
        claimed_until: null,
        error_code: err.outcome.code,
        error_message: [err.outcome.name, err.outcome.detail].filter(Boolean).join(': ') || err.message,
        answer: JSON.stringify({ esito: false, ErroreCod: err.outcome.code, ErroreDes: err.outcome.name, ErroreDettaglio: err.outcome.detail }),
        ...answered,
      });
      return;
    }
    return afterFailure(deps, claimed, err, filing);
  }
}

/** Whether a stay's arrival day has not come yet in Portugal (or the stay has none). */
const sibaNotArrived = (r: ReservationRow, now: Date) => !r.check_in_date || r.check_in_date > dayIn(iso(now), stayZone(r, 'siba'));

/**
 * A stay's foreign guests filed with SIBA: one `MovimentoBAL` of the guests ready (those filed and
 * unchanged are not sent again; a Portuguese guest never), its number the establishment's next,
 * delivered on the arrival day. SIBA's `0` is the filing, and the proof is the file, its number
 * and that answer: it gives no receipt. A changed guest or departure goes again in a new file, as
 * SIBA takes no correction. A refusal names the bulletin (`Linha`): that guest is refused in
 * SIBA's words, the others of the file held back. A dropped connection sends the same file again,
 * its number unchanged, which SIBA cannot take twice; a send not answered (a time-out) waits for
 * the host to look in SIBA's portal.
 */
async function sendSiba(deps: Deps, r: ReservationRow, open: ReturnType<typeof openEstablishment>, stay: repo.ReportRow[]): Promise<void> {
  if (r.status === 'CANCELED') return;
  const owed = stay.filter((x) => x.state !== 'not_required');
  if (!owed.some((x) => x.state === 'ready') || owed.some((x) => x.state === 'missing' || x.state === 'sent')) return;
  // Not arrived yet: the job queued for the arrival day sends it.
  if (sibaNotArrived(r, deps.clock())) return;
  const ready = owed.filter((x) => x.state === 'ready');
  // A file whose answer a dropped connection lost goes again under its own number.
  const again = ready.every((x) => x.error_code === RESEND && x.lot && x.lot === ready[0]!.lot) ? Number(ready[0]!.lot) : null;
  // Claimed before the number is taken and the call made: a second job, or a second "send now", finds it taken and does nothing.
  const claimed = await claimStay(deps, ready, open.mode, true);
  if (!claimed) return;
  const conn = sibaConnection(deps, open.settings, open.credentials, open.mode);
  const number = again ?? (await repo.nextFileNumber(deps.db, 'siba', conn.unit, conn.establishment));
  const answers = openAnswers(deps, r, await findPortal(deps.db, r.id));
  const answer = answers.AuthorityReporting?.answer ?? {};
  const arrival = r.check_in_date!; // a stay without one is not arrived
  const file = movimentoBal(
    sibaUnit(open.settings),
    claimed.map((row) => sibaBulletin(answer, row.guest_index, { arrival, departure: r.check_out_date })),
    { number, at: localTimeIn(deps.clock(), 'Europe/Lisbon') },
  );
  const sent = (row: repo.ReportRow) => ({
    claimed_until: null,
    lot: String(number),
    sent_digest: reportDigest(deps, 'siba', r, answers, row.guest_index),
    sent_enc: sealSent(deps, row, file),
    answered_at: iso(deps.clock()),
  });
  try {
    await deliverBulletins(conn, file);
    const taken = JSON.stringify({ Numero_Ficheiro: number, EntregaBoletinsAlojamentoResult: '0' });
    for (const row of claimed) await setReports(deps, [row], { ...sent(row), state: 'accepted', error_code: null, error_message: null, answer: taken });
  } catch (err) {
    if (err instanceof SibaRefusal) {
      const refused = JSON.stringify({ Numero_Ficheiro: number, ErrosBA: err.errors });
      // The same file refused whole on its second delivery: the first, whose answer was lost, may have been taken.
      if (again !== null && !err.unauthorised && err.errors.every((e) => e.line === 0)) {
        for (const row of claimed)
          await setReports(deps, [row], { ...sent(row), state: 'sent', error_code: UNCONFIRMED, error_message: err.errors.map((e) => e.description).join('; '), answer: refused });
        return;
      }
      const whole = err.errors.filter((e) => e.line === 0 || e.line > claimed.length);
      for (const [i, row] of claimed.entries()) {
        const own = err.errors.filter((e) => e.line === i + 1);
        const words = own.length ? own : whole;
        const patch = words.length ? { error_code: words[0]!.code || null, error_message: words.map((e) => e.description).join('; ') || null } : { error_code: HELD_BACK, error_message: null };
        await setReports(deps, [row], { ...sent(row), ...patch, state: 'rejected', answer: refused });
      }
      return;
    }
    if (err instanceof AuthorityUnreachable && err.dropped) {
      await setReports(deps, claimed, { state: 'ready', claimed_until: null, sent_at: null, lot: String(number), error_code: RESEND, error_message: err.message });
      throw err;
    }
    return afterFailure(deps, claimed, err, true);
  }
}

/** The day's receipt fetched and kept (the one kept before, listing fewer guests, replaced). */
async function keepReceipt(deps: Deps, conn: ReturnType<typeof alloggiatiConnection>, token: string, establishment: repo.EstablishmentRow, day: string): Promise<void> {
  await storeReceipt(deps, establishment, day, await receipt(conn, token, day));
}

/** A day's receipt of an establishment kept, sealed, bound to the account, the establishment and the day. */
export async function storeReceipt(deps: Deps, establishment: Pick<repo.EstablishmentRow, 'id' | 'account_id'>, day: string, pdf: Buffer): Promise<void> {
  await repo.saveReceipt(deps.db, {
    id: newId('rcp'),
    account_id: establishment.account_id,
    establishment_id: establishment.id,
    day,
    pdf_enc: deps.secrets.seal(pdf.toString('base64'), `authority_receipt:${establishment.account_id}:${establishment.id}:${day}`),
    fetched_at: iso(deps.clock()),
  });
}

/** A day's receipt of the establishment a booking reports through, as a PDF; undefined when none was kept. */
export async function receiptPdf(deps: Deps, accountId: string, reservationId: string, day: string): Promise<Buffer | undefined> {
  const r = await bookings.findById(deps.db, accountId, reservationId);
  const establishment = r && (await repo.establishmentFor(deps.db, accountId, r.listing_id));
  const row = establishment && (await repo.findReceipt(deps.db, accountId, establishment.id, day));
  return row ? Buffer.from(deps.secrets.open(row.pdf_enc, `authority_receipt:${accountId}:${establishment.id}:${day}`), 'base64') : undefined;
}

/**
 * How long the law asks a host to keep the proof of each report, in years: Spain's register of
 * guests 3 years (Real Decreto 933/2021), Italy's receipts 5 years [implementations], Portugal's
 * bulletins 1 year from the day after the departure (Lei 23/2007, art. 15). Kept that long from
 * the report's making (SIBA's, from the stay's departure), then deleted (docs/privacy.md).
 */
export const RETENTION_YEARS: Record<System, number> = { ses: 3, alloggiati: 5, siba: 1 };
/** The systems whose retention runs from the stay's departure rather than the report's making. */
const FROM_DEPARTURE = new Set<string>(['siba']);

/** The hourly chore: reports and receipts past their legal retention deleted. */
export async function purgeExpiredReports(deps: Deps): Promise<number> {
  const now = deps.clock();
  const yearsAgo = (years: number) => new Date(Date.UTC(now.getUTCFullYear() - years, now.getUTCMonth(), now.getUTCDate()));
  let erased = 0;
  for (const [system, years] of Object.entries(RETENTION_YEARS))
    erased += FROM_DEPARTURE.has(system)
      ? await repo.deleteReportsDepartedBefore(deps.db, system, iso(new Date(yearsAgo(years).getTime() - DAY_MS)).slice(0, 10))
      : await repo.deleteReportsBefore(deps.db, system, iso(yearsAgo(years)));
  erased += await repo.deleteReceiptsBefore(deps.db, iso(yearsAgo(RETENTION_YEARS.alloggiati)).slice(0, 10));
  if (erased > 0) deps.log?.info({ erased }, 'erased police reports and receipts past their legal retention');
  return erased;
}
