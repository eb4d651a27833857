import { withTx, type Tx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import type { Translator } from '../../i18n/index.js';
import { AppError, GuestError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { emitWebhook } from '../events/index.js';
import { withdrawPortalMessages } from '../messages/index.js';
import { paymentsView, toReservationView } from '../reservations/index.js';
import * as bookings from '../bookings/index.js';
import type { ReservationRow } from '../bookings/index.js';
import { openIdentification, sealIdentification, type Identification, documentProblems, type DocumentProblem, requestScreening, screeningSettings } from '../screening/index.js';
import { countryCode } from '../../i18n/index.js';
import type { ReadDocument } from '../../lib/documents/read.js';
import { latestReading, portalSelfie, submitSelfie, type PortalSelfie, MOST_FRAMES, type Photo, photoRefusal, portalReading, submitDocument, type PortalReading } from '../identity/index.js';
import { effectiveProfile, termsVersion, type HostProfile } from '../listings/index.js';
import { insertNote, systemNote } from '../notes/index.js';
import { resolveScreens, type ScreenMap } from '../settings/index.js';
import { establishmentFor, planReports, SYSTEM_NAMES, guestProblems } from '../authority/index.js';
import * as guests from '../guests/index.js';
import {
  answerText,
  authorityFields,
  findPortal,
  guestCount,
  guestPortalView,
  guestRows,
  openAnswers,
  readForm,
  SCREEN_DEFS,
  SCREENS,
  sealAnswers,
  sealFile,
  type Answer,
  type Answers,
  type Field,
  type FileRef,
  type PortalRow,
  type Screen,
  type System,
  type Upload,
} from '../guests/index.js';

export type { Answers, PortalRow, StepRecord } from '../guests/index.js';

/** How long after check-out a portal link keeps working. */
export const LINK_DAYS_AFTER_CHECKOUT = 30;

/**
 * The fields a screen asks, with the guest list's rows drawn from the booking, and the police
 * report's from the system the listing reports to (each guest's, for a booking of several).
 */
export function fieldsOf(screen: Screen, r: Pick<ReservationRow, 'number_of_guests'>, authority?: PortalAuthority | null): readonly Field[] {
  if (screen === 'AuthorityReporting' && authority) return authorityFields(authority.system, r.number_of_guests);
  return screen === 'GuestList' ? guestRows(r.number_of_guests) : SCREEN_DEFS[screen].fields;
}

/** The police system a booking's guests are reported to, when its listing (or account) has one. */
export interface PortalAuthority {
  system: System;
  name: string;
}

export interface Portal {
  reservation: ReservationRow;
  screens: ScreenMap;
  /** The screens the guest meets (required or optional), in the spec's order but for the document's photo, which comes before its typed details (portalOrder). */
  steps: Screen[];
  answers: Answers;
  row: PortalRow | undefined;
  /** The host as the guest sees them: name, brand, house rules and agreement. */
  profile: HostProfile;
  minimumAge: number;
  authority: PortalAuthority | null;
}

/** The portal behind a link, or a 404/410 the page shows as a readable error. */
export async function openPortal(deps: Deps, token: string): Promise<Portal> {
  const r = await bookings.findByPortalToken(deps.db, token);
  if (!r) throw new GuestError('not_found', 'error.portal.not_found', 'This link does not lead to a booking. Check that it was copied whole, or ask your host for a new one.');
  if (r.status === 'CANCELED') throw new GuestError('gone', 'error.portal.canceled', 'This booking was cancelled, so there is nothing more to fill in.');
  if (r.check_out_date) {
    const until = Date.parse(`${r.check_out_date}T00:00:00Z`) + (LINK_DAYS_AFTER_CHECKOUT + 1) * 86_400_000;
    if (deps.clock().getTime() >= until) throw new GuestError('gone', 'error.portal.over', 'This stay is over, and its guest portal is closed.');
  }
  return portalOf(deps, r, await findPortal(deps.db, r.id));
}

/**
 * The portal a booking's guest would meet, for the host's preview: the steps, the host's profile
 * and the stay as they stand, with nothing answered and nothing of the guest's read or kept.
 */
export const previewPortal = (deps: Deps, r: ReservationRow): Promise<Portal> => portalOf(deps, r, undefined);

/** A booking's portal: its steps, the host as its guest sees them, and the answers `row` holds. */
async function portalOf(deps: Deps, r: ReservationRow, row: PortalRow | undefined): Promise<Portal> {
  const { screens } = await resolveScreens(deps.db, r.account_id, r.source, () => bookings.hasEarlierWithContact(deps.db, r));
  const [profile, settings, establishment] = await Promise.all([
    effectiveProfile(deps.db, r.account_id, r.listing_id),
    screeningSettings(deps.db, r.account_id),
    establishmentFor(deps.db, r.account_id, r.listing_id),
  ]);
  // A listing that reports its guests to the police asks them what the law needs, whatever the
  // account's screens say: the host's duty does not depend on a setting.
  if (establishment) screens.AuthorityReporting = 'required';
  const steps = portalOrder(SCREENS.filter((s) => screens[s] !== 'disabled'));
  const authority = establishment ? { system: establishment.system as System, name: SYSTEM_NAMES[establishment.system as System] } : null;
  return { reservation: r, screens, steps, answers: openAnswers(deps, r, row), row, profile, minimumAge: settings.minimumAge, authority };
}

/**
 * What was read from the guest's document photo (every check digit holding), as an identity
 * screen's answers: its form's prefill. Null for other screens, or with no such reading.
 */
export async function documentPrefill(deps: Deps, p: Portal, screen: Screen): Promise<Record<string, string> | null> {
  if (screen !== 'IDVerification' && screen !== 'AuthorityReporting') return null;
  const read = await latestReading(deps.db, deps, p.reservation.account_id, p.reservation.id);
  return read?.reading.document?.valid ? answersFromDocument(read.reading.document) : null;
}

/**
 * The steps in the order the guest meets them: the spec's, but the document first. Its photo
 * comes before the typed details of the document, so that what is read from it fills them in,
 * with the selfie right after it, compared with it; and the police step comes after all of
 * them, filled in from what they gave, so that nothing is asked twice.
 */
export function portalOrder(steps: Screen[]): Screen[] {
  const photo = steps.indexOf('IDCollection');
  const typed = steps.indexOf('IDVerification');
  let ordered = steps;
  if (photo >= 0 && typed >= 0 && photo > typed) {
    const moved: Screen[] = steps.includes('Selfie') ? ['IDCollection', 'Selfie'] : ['IDCollection'];
    ordered = [...steps.slice(0, typed), ...moved, ...steps.slice(typed).filter((s) => !moved.includes(s))];
  }
  const identity = ['IDCollection', 'Selfie', 'IDVerification'].map((s) => ordered.indexOf(s as Screen)).filter((i) => i >= 0);
  const police = ordered.indexOf('AuthorityReporting');
  if (police < 0 || !identity.length || police > Math.max(...identity)) return ordered;
  const last = Math.max(...identity);
  return [...ordered.slice(0, police), ...ordered.slice(police + 1, last + 1), 'AuthorityReporting', ...ordered.slice(last + 1)];
}

/** "MUELLER" as "Mueller": the zone's capitals as a name is written. */
const asName = (v: string | null) => (v ?? '').toLowerCase().replace(/(^|[\s'-])\p{L}/gu, (m) => m.toUpperCase());

/** A document's fields read from its zone as the identity screens ask them. */
function answersFromDocument(d: ReadDocument): Record<string, string> {
  const type = d.document_type.value ?? '';
  const nationality = d.nationality.value?.replace(/<+$/, '') ?? '';
  const out: Record<string, string> = {
    document_type: type.startsWith('P') ? 'passport' : /^[ACI]/.test(type) ? 'id_card' : '',
    document_number: d.document_number.value ?? '',
    first_name: asName(d.given_names.value),
    last_name: asName(d.surname.value),
    // Germany's code in the zone is D, not DEU.
    nationality: nationality === 'D' ? 'DE' : (countryCode(nationality) ?? ''),
    birth_date: d.birth_date.value ?? '',
    sex: d.sex.value === 'M' ? 'male' : d.sex.value === 'F' ? 'female' : '',
    expiry_date: d.expiry_date.value ?? '',
    mrz: d.zone.join('\n'),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== ''));
}

/** The IDCollection screen's new photos, as the reader takes them: the front, and the back where given. */
export function documentPhotos(uploads: readonly Upload[]): Photo[] {
  const photos: Photo[] = [];
  for (const u of uploads) {
    if (u.data.length === 0) continue;
    if (u.field === 'document_front') photos.push({ side: 'front', data: u.data, part: u.field });
    if (u.field === 'document_back') photos.push({ side: 'back', data: u.data, part: u.field });
  }
  return photos;
}

/** The Selfie screen's new photos: the selfie, and the frames the portal's camera took before it. */
export function selfiePhotos(uploads: readonly Upload[]): Photo[] {
  const photos: Photo[] = [];
  for (const u of uploads) {
    if (u.data.length === 0) continue;
    if (u.field === 'selfie') photos.push({ side: 'selfie', data: u.data, part: u.field });
    if (u.field === 'selfie_frames' && photos.filter((x) => x.side === 'frame').length < MOST_FRAMES) photos.push({ side: 'frame', data: u.data, part: u.field });
  }
  return photos;
}

/** Why the selfie cannot be looked at (checked before the screen is saved), or null. */
export const selfiePhotoRefusal = (photos: Photo[]) => (photos.some((p) => p.side === 'selfie') ? photoRefusal(photos, 'selfie') : null);

/**
 * Queues the comparison of the guest's selfie with the document they sent through the portal;
 * false where they sent none (the host then sees the selfie among the answers, uncompared).
 */
export async function compareSelfiePhotos(deps: Deps, p: Portal, photos: Photo[]): Promise<boolean> {
  if (!(await documentReading(deps, p))) return false;
  await submitSelfie(deps, { id: p.reservation.account_id }, p.reservation.id, photos);
  return true;
}

/** Where the guest's latest selfie stands (null before one was compared). */
export const selfieState = (deps: Deps, p: Portal): Promise<PortalSelfie | null> => portalSelfie(deps, p.reservation.account_id, p.reservation.id);

/** Why the photos cannot be read at all (checked before the screen is saved), or null. */
export const documentPhotoRefusal = (photos: Photo[]) => (photos.some((p) => p.side === 'front') ? photoRefusal(photos) : null);

/** Queues the reading of the guest's document photos, as the API's upload does. */
export async function readDocumentPhotos(deps: Deps, p: Portal, photos: Photo[]): Promise<void> {
  await submitDocument(deps, { id: p.reservation.account_id }, p.reservation.id, 'portal', photos);
}

/** Where the reading of the guest's latest photo stands (null before any). */
export const documentReading = (deps: Deps, p: Portal): Promise<PortalReading | null> => portalReading(deps, p.reservation.account_id, p.reservation.id);

/** The first step the guest has neither answered nor skipped; undefined when all are done. */
export const nextStep = (p: Portal): Screen | undefined => p.steps.find((s) => !p.answers[s]);

/** The required steps still unanswered (a skipped step counts as unanswered when it became required). */
export const missingSteps = (p: Portal): Screen[] => p.steps.filter((s) => p.screens[s] === 'required' && !p.answers[s]?.answer);

/** The reservation's portal row, made if new and locked, inside a transaction, so two saves at once each see the other's answers. */
function lockPortal(tx: Tx, deps: Deps, r: ReservationRow): Promise<PortalRow> {
  const now = iso(deps.clock());
  return guests.lockPortal(tx, deps.dialect.kind, {
    reservation_id: r.id,
    account_id: r.account_id,
    answers_enc: sealAnswers(deps, r, {}),
    last_step: null,
    completed_at: null,
    created_at: now,
    updated_at: now,
  });
}

export type SaveResult = { ok: true; answer: Answer } | { ok: false; problems: { field: string; message: string }[]; form: Record<string, string> };

/**
 * Saves one screen: its answer, or (for an optional screen, with `skip`) that the guest skipped
 * it. Uploaded files replace the screen's earlier ones. Nothing is written when the form has
 * a problem; the problems name each field.
 */
export async function saveStep(deps: Deps, p: Portal, t: Translator, screen: Screen, form: Record<string, string>, uploads: Upload[], skip: boolean): Promise<SaveResult> {
  if (!p.steps.includes(screen)) throw notFound(`The step ${screen}`);
  const reopened = Boolean(p.answers[screen]?.reopened);
  if (p.row?.completed_at && !reopened) throw new GuestError('conflict', 'error.portal.completed', 'You already submitted this guest portal; your host has your answers.');
  if (skip && p.screens[screen] !== 'optional') {
    return { ok: false, problems: [{ field: '', message: t.t('error.portal.required') }], form };
  }
  const r = p.reservation;
  const { answer, files, problems } = skip
    ? { answer: {}, files: [], problems: [] }
    : readForm(t, fieldsOf(screen, r, p.authority), form, uploads, p.answers[screen]?.answer, iso(deps.clock()).slice(0, 10));
  // The authority's own rules, for every guest of the booking, before the guest leaves the step.
  if (screen === 'AuthorityReporting' && p.authority && !skip) {
    const arrival = r.check_in_date ?? iso(deps.clock()).slice(0, 10);
    for (let g = 0; g < guestCount(r.number_of_guests); g++) {
      for (const x of guestProblems(p.authority.system, answer, g, arrival, deps.config.dataDir)) {
        if (problems.some((q) => q.field === x.field)) continue;
        problems.push({ field: x.field, message: t.t('problem.field', { label: t.t(x.label, { n: g + 1 }), problem: t.t(x.problem) }) });
      }
    }
  }
  if (problems.length) return { ok: false, problems, form };
  // What the guest accepted, kept word for word as evidence: the text, its version and date.
  const terms = screen === 'HouseRules' ? p.profile.house_rules : screen === 'UsageAgreement' ? p.profile.usage_agreement : null;
  if (terms && !skip) Object.assign(answer, { terms_version: termsVersion(terms), terms_updated_at: terms.updated_at, terms_text: terms.text });
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    const row = await lockPortal(tx, deps, r);
    const answers = openAnswers(deps, r, row);
    if (row.completed_at && !answers[screen]?.reopened) throw new AppError('conflict', 'You already submitted this guest portal; your host has your answers.');
    // A new file replaces the one saved before for its field; skipping a screen drops its files.
    const replaced = skip ? undefined : files.map((f) => f.field);
    await guests.deleteFiles(tx, r.id, screen, replaced);
    for (const f of files) {
      const id = newId('fil');
      await guests.insertFile(tx, {
        id,
        reservation_id: r.id,
        account_id: r.account_id,
        screen,
        field: f.field,
        filename: f.filename.slice(0, 200) || f.field,
        content_type: f.contentType,
        size: f.data.length,
        data_enc: sealFile(deps, r, id, f.data),
        created_at: now,
      });
      answer[f.field] = { id, filename: f.filename.slice(0, 200) || f.field, content_type: f.contentType, size: f.data.length } satisfies FileRef;
    }
    answers[screen] = skip ? { skipped: true, at: now } : { answer, at: now };
    await guests.saveAnswers(tx, r.id, { answers_enc: sealAnswers(deps, r, answers), last_step: screen, updated_at: now });
    // A step the host sent the guest back to, in a finished portal: its police reports follow at once.
    if (row.completed_at) await replanFromAnswers(tx, deps, r.account_id, r.id);
  });
  return { ok: true, answer };
}

/** The step of a finished portal the host sent the guest back to, if any. */
export const reopenedStep = (p: Portal): Screen | undefined => (p.row?.completed_at ? p.steps.find((s) => p.answers[s]?.reopened) : undefined);

async function replanFromAnswers(tx: Tx, deps: Deps, accountId: string, reservationId: string): Promise<void> {
  const fresh = await bookings.findById(tx, accountId, reservationId);
  if (fresh) await planReports(tx, deps, fresh, { now: false });
}

/**
 * The host sends the guest back to the police step of a finished portal (an answer the authority
 * cannot take): the guest's link opens on it, filled in as it was, until they save it again.
 * False for a portal not finished, whose link opens on the steps still to do anyway.
 */
export async function reopenPoliceStep(deps: Deps, r: ReservationRow): Promise<boolean> {
  if (!(await establishmentFor(deps.db, r.account_id, r.listing_id))) throw new AppError('conflict', 'this booking’s listing reports to no police system');
  if (!r.guestportal_completed) return false;
  return withTx(deps.db, async (tx) => {
    const row = await lockPortal(tx, deps, r);
    // An unfinished portal's link already opens on the steps still to do, the police step among them.
    if (!row.completed_at) return false;
    const answers = openAnswers(deps, r, row);
    answers.AuthorityReporting = { ...(answers.AuthorityReporting ?? { at: iso(deps.clock()) }), reopened: true };
    await guests.saveAnswers(tx, r.id, { answers_enc: sealAnswers(deps, r, answers), last_step: row.last_step, updated_at: iso(deps.clock()) });
    return true;
  });
}

/**
 * The host's own answers to the police step, on the booking's page: a correction, or the details
 * of a guest who never opened the portal. Each field's format is checked (a 400 naming it); the
 * authority's rules are left to the reports, which say what is still missing.
 */
export async function writePoliceDetails(deps: Deps, r: ReservationRow, t: Translator, form: Record<string, string>): Promise<void> {
  const establishment = await establishmentFor(deps.db, r.account_id, r.listing_id);
  if (!establishment) throw new AppError('conflict', 'this booking’s listing reports to no police system');
  const fields = authorityFields(establishment.system as System, r.number_of_guests).map((f) => ({ ...f, required: false }));
  const { answer, problems } = readForm(t, fields, form, [], {}, iso(deps.clock()).slice(0, 10));
  if (problems.length) throw new AppError('bad_request', problems.map((x) => `${x.field}: ${x.message}`).join('; '));
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    const row = await lockPortal(tx, deps, r);
    const answers = openAnswers(deps, r, row);
    answers.AuthorityReporting = { answer, at: now, by_host: true };
    await guests.saveAnswers(tx, r.id, { answers_enc: sealAnswers(deps, r, answers), last_step: row.last_step, updated_at: now });
    await replanFromAnswers(tx, deps, r.account_id, r.id);
  });
}

/** The police step's fields of a booking, and what is answered to them now, for the host's form. */
export async function policeDetails(deps: Deps, r: ReservationRow): Promise<{ fields: readonly Field[]; answer: Answer; reopened: boolean } | null> {
  const establishment = await establishmentFor(deps.db, r.account_id, r.listing_id);
  if (!establishment) return null;
  const rec = openAnswers(deps, r, await findPortal(deps.db, r.id)).AuthorityReporting;
  // Nothing given yet: what the booking knows of the guest who booked, as the portal fills it in.
  const known = { first_name: r.guest_first_name, last_name: r.guest_last_name, email: r.guest_email, phone: r.guest_phone };
  const fields = authorityFields(establishment.system as System, r.number_of_guests);
  const answer = rec?.answer ?? Object.fromEntries(Object.entries(known).filter((e): e is [string, string] => Boolean(e[1]) && fields.some((f) => f.name === e[0])));
  return { fields, answer, reopened: Boolean(rec?.reopened) };
}

/**
 * What the portal adds to the booking: it fills what the booking lacks (the guest's contact,
 * the identity document) and never overwrites what the PMS sent.
 */
function fillReservation(deps: Deps, r: ReservationRow, answers: Answers): { patch: Partial<ReservationRow>; changed: boolean } {
  const about = answers.AboutYou?.answer;
  const patch: Partial<ReservationRow> = {};
  const fill = <K extends 'guest_first_name' | 'guest_last_name' | 'guest_email' | 'guest_phone'>(k: K, v: string | undefined) => {
    if (v && !r[k]) patch[k] = k === 'guest_email' ? v.toLowerCase() : v;
  };
  fill('guest_first_name', answerText(about, 'first_name'));
  fill('guest_last_name', answerText(about, 'last_name'));
  fill('guest_email', answerText(about, 'email'));
  fill('guest_phone', answerText(about, 'phone'));
  if (!r.guest_full_name && (patch.guest_first_name || patch.guest_last_name)) {
    patch.guest_full_name = [patch.guest_first_name ?? r.guest_first_name, patch.guest_last_name ?? r.guest_last_name].filter(Boolean).join(' ');
  }

  const ident = openIdentification(deps, r);
  const before = JSON.stringify(ident);
  const doc = answers.IDVerification?.answer;
  const authority = answers.AuthorityReporting?.answer;
  const given: Identification = {
    document_type: answerText(doc, 'document_type'),
    document_number: answerText(doc, 'document_number'),
    first_name: answerText(doc, 'first_name'),
    last_name: answerText(doc, 'last_name'),
    nationality: answerText(doc, 'nationality') ?? answerText(authority, 'nationality'),
    birth_date: answerText(doc, 'birth_date') ?? answerText(authority, 'birth_date'),
    expiry_date: answerText(doc, 'expiry_date'),
    issue_date: answerText(doc, 'issue_date'),
    mrz: answerText(doc, 'mrz'),
    address: answerText(authority, 'address'),
  };
  for (const [k, v] of Object.entries(given) as [keyof Identification, string | undefined][]) if (v && !ident[k]) ident[k] = v;
  if (JSON.stringify(ident) !== before) patch.identification_enc = sealIdentification(deps, r, ident);
  return { patch, changed: Object.keys(patch).length > 0 };
}

/**
 * Submits the portal: records it complete, fills the booking from it, notes it, queues a
 * screening run and tells the account's guest-portal webhook, all in one transaction.
 * Submitting twice is answered as the first time.
 */
export async function submitPortal(deps: Deps, p: Portal): Promise<void> {
  const missing = missingSteps(p);
  if (missing.length) {
    throw new AppError('bad_request', `Complete these steps first: ${missing.map((s) => SCREEN_DEFS[s].title).join(', ')}.`);
  }
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    const row = await lockPortal(tx, deps, p.reservation);
    if (row.completed_at) return;
    const r = await bookings.findById(tx, p.reservation.account_id, p.reservation.id);
    if (!r) throw notFound(`reservation ${p.reservation.id}`);
    const answers = openAnswers(deps, r, row);
    const { patch, changed } = fillReservation(deps, r, answers);
    const updated: ReservationRow = { ...r, ...patch, guestportal_completed: true, updated_at: now };
    await bookings.updateReservation(tx, r.id, { ...patch, guestportal_completed: true, updated_at: now });
    const done: PortalRow = { ...row, completed_at: now, updated_at: now };
    await guests.markCompleted(tx, r.id, now);
    await insertNote(tx, systemNote(r.id, 'The guest completed the guest portal.', now));
    await requestScreening(tx, deps, r.id, 'guest_portal');
    // The police reports, for a listing that sends them: planned now, sent on the arrival day.
    await planReports(tx, deps, updated, { now: false });
    await withdrawPortalMessages(tx, deps, r.id, 'completed');
    const body = async () => ({ id: r.id, ...(await guestPortalView(deps, tx, updated, await paymentsView({ ...deps, db: tx }, updated), done)) });
    await emitWebhook(tx, deps, 'guest_portal_webhook_url', { accountId: r.account_id, type: 'guest_portal.completed', subjectId: r.id, body });
    if (changed) {
      await emitWebhook(tx, deps, 'reservation_webhook_url', { accountId: r.account_id, type: 'reservation.updated', subjectId: r.id, body: () => toReservationView(deps, updated) });
    }
  });
}

/** The problems with the document a screen's answer gives that the guest is told of at once (the host sees them as findings). */
export function documentWarnings(p: Portal, screen: Screen, answer: Answer | undefined, today: string): DocumentProblem[] {
  if (!answer || (screen !== 'IDVerification' && screen !== 'AuthorityReporting')) return [];
  const r = p.reservation;
  return documentProblems(
    { expiry_date: answerText(answer, 'expiry_date'), birth_date: answerText(answer, 'birth_date'), mrz: answerText(answer, 'mrz'), document_number: answerText(answer, 'document_number') },
    { checkIn: r.check_in_date, checkOut: r.check_out_date, today, minimumAge: p.minimumAge },
  ).filter((w) => w.code !== 'mrz_number_mismatch');
}
