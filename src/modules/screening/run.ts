import { withTx, type Db } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { enqueue, recordEvent } from '../../jobs/repo.js';
import type { JobContext } from '../../jobs/worker.js';
import { screeningKey, type JobPayload } from '../../jobs/kinds.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import countries from 'i18n-iso-countries';
import { newsCorpusImported, searchAdverseMedia } from '../../providers/adverse-media/index.js';
import { embeddedCountry } from '../../providers/geoip/embedded.js';
import { embeddedThreats, threatFeedsImported } from '../../providers/ip-threats/embedded.js';
import { reservedRange } from '../../providers/ip.js';
import { NAME_THRESHOLD } from '../../lib/names/match.js';
import { dismissedEntries } from './dismissed.js';
import { entryIdentifiers, sanctionsLists as listedSanctions, searchSanctions } from '../../providers/sanctions/index.js';
import { candidates, normaliseDocument } from '../blocklist/index.js';
import { emitCallback } from '../events/index.js';
import { readSetting } from '../settings/index.js';
import type { ReservationRow } from '../../db/schema.js';
import type { PaymentEvent } from './schemas.js';
import * as repo from './repo.js';
import { openIdentification } from './identity.js';
import { DOCUMENT_PHOTO_DAYS, latestReading } from '../identity/index.js';
import { runDocumentAad } from './decisions.js';
import { compositeStatus, emitScreeningEvent, screeningEventBody, verdictChanged, verdictSummary } from './verdict.js';
import { ENGINE_VERSION, inputsDigest, screen } from './engine.js';
import { accountHistory } from './history.js';
import { CHECK_NAMES, type CheckName, type ScreeningSettings, type Snapshot } from './types.js';

export const DEFAULT_SCREENING_SETTINGS: ScreeningSettings = {
  riskTolerance: 'balanced',
  minimumAge: 18,
  disabledChecks: [],
  nameMatchThreshold: NAME_THRESHOLD,
  acceptedDocuments: ['passport', 'id_card'],
  documentPhotoDays: DOCUMENT_PHOTO_DAYS,
};

export async function screeningSettings(db: Db, accountId: string): Promise<ScreeningSettings> {
  const stored = (await readSetting(db, accountId, 'screening')) as Partial<ScreeningSettings> | undefined;
  return {
    ...DEFAULT_SCREENING_SETTINGS,
    ...stored,
    disabledChecks: (stored?.disabledChecks ?? []).filter((c): c is CheckName => (CHECK_NAMES as readonly string[]).includes(c)),
  };
}

/** Gathers what the checks look at. Reads only; the run writes nothing until the verdict. */
export async function loadSnapshot(deps: Deps, r: ReservationRow): Promise<Snapshot> {
  const now = deps.clock();
  const history = await accountHistory(deps.db, r.account_id, r.id, now);
  const since = iso(new Date(now.getTime() - 86_400_000));
  // One look-up per contact on its own index; the time window is applied here, because a
  // created_at bound in SQL let SQLite pick the date index and walk a whole day of bookings
  // instead of the guest's few.
  const sameContactIds = new Set<string>();
  for (const [column, value] of [
    ['guest_email', r.guest_email],
    ['guest_phone', r.guest_phone],
  ] as const) {
    if (!value) continue;
    const rows = await repo.otherBookingsWith(deps.db, r.account_id, column, value, r.id);
    for (const row of rows) if (row.created_at >= since) sameContactIds.add(row.id);
  }
  const events = await repo.listPaymentEvents(deps.db, r.id);
  const identification = openIdentification(deps, r);
  const latest = await latestReading(deps.db, deps, r.account_id, r.id);
  const reading = latest?.reading;
  const settings = await screeningSettings(deps.db, r.account_id);
  const { sanctions, sanctionsLists, sanctionsDismissed, adverseMedia } = await watchlistHits(deps, r, identification, settings.nameMatchThreshold);
  const payments = events.map((e) => ({ ...(JSON.parse(e.data) as PaymentEvent), occurred_at: e.occurred_at }));
  return {
    now: iso(now),
    reservation: reservationPart(r),
    identification,
    ...(latest
      ? { document: { verification_id: latest.verification_id, read: latest.reading.document, problems: latest.reading.problems, face: latest.face, screen_hint: latest.reading.screen_hint === true } }
      : {}),
    payments,
    history: { ...history, sameContactLast24h: sameContactIds.size },
    guestPortalCompleted: Boolean(r.guestportal_completed),
    skipGuestPortal: Boolean(r.skip_gp),
    settings,
    sanctions,
    ...(sanctionsLists ? { sanctionsLists } : {}),
    ...(sanctionsDismissed ? { sanctionsDismissed } : {}),
    adverseMedia,
    ipThreats: await paymentIpThreats(deps, r.account_id, payments),
    ipCountries: await paymentIpCountries(payments),
    blocklist: await candidates(deps.db, r.account_id, {
      email: r.guest_email,
      phone: r.guest_phone,
      document: (reading?.document?.document_number.check === 'valid' ? reading.document.document_number.value : null) ?? identification.document_number ?? null,
    }),
    rules: (await repo.enabledRules(deps.db, r.account_id)) as Snapshot['rules'],
  };
}

/**
 * The guest's possible matches on the imported sanctions lists, each weighed against the
 * guest's document, with the lists' dates and the matches the host dismissed (left out). Null
 * matches when no list is imported. The screening's sanctions check reads them, and the console
 * shows the entries they name.
 */
export async function sanctionsMatches(
  deps: Deps,
  r: ReservationRow,
  id: Snapshot['identification'],
  threshold: number,
): Promise<Pick<Snapshot, 'sanctions' | 'sanctionsLists' | 'sanctionsDismissed'>> {
  const name = [id.first_name ?? r.guest_first_name, id.middle_name, id.last_name ?? r.guest_last_name].filter(Boolean).join(' ');
  const year = id.birth_date ? Number(id.birth_date.slice(0, 4)) : null;
  let sanctions: Snapshot['sanctions'] = null;
  let sanctionsLists: Snapshot['sanctionsLists'];
  let sanctionsDismissed: Snapshot['sanctionsDismissed'];
  const lists = name ? await listedSanctions(deps) : [];
  if (lists.length) {
    sanctionsLists = lists.map(({ source, dataDate }) => ({ source, dataDate }));
    const found = await searchSanctions(deps, { name, yearOfBirth: year, country: nationalityOf(id), individualsOnly: true, threshold });
    const dismissed = found.length ? await dismissedEntries(deps, r.account_id, r.guest_first_name, r.guest_last_name) : new Set<string>();
    const isDismissed = (h: (typeof found)[number]) => dismissed.has(`${h.source}\u0000${h.entryId}`);
    const hits = found.filter((h) => !isDismissed(h));
    const gone = found.filter(isDismissed);
    if (gone.length) sanctionsDismissed = gone.map((h) => ({ source: h.source, entryId: h.entryId, primaryName: h.primaryName }));
    const known = hits.length ? await entryIdentifiers(deps, hits) : new Map();
    const doc = id.document_number ? normaliseDocument(id.document_number) : null;
    sanctions = hits.map((h) => {
      const listed = known.get(`${h.source}\u0000${h.entryId}`) ?? { birthDates: [], documents: [] };
      const compare = (given: unknown, values: readonly unknown[]) => (given === null || values.length === 0 ? 'unknown' : values.includes(given) ? 'same' : 'other');
      return {
        source: h.source,
        entryId: h.entryId,
        listedName: h.listedName,
        primaryName: h.primaryName,
        score: h.score,
        birthDate: compare(id.birth_date ?? null, listed.birthDates),
        birthYear: compare(year, h.birthYears),
        document: doc !== null && listed.documents.some((d: string) => normaliseDocument(d) === doc) ? 'same' : 'unknown',
        explanation: h.explanation,
      } as const;
    });
  }
  return { sanctions, ...(sanctionsLists ? { sanctionsLists } : {}), ...(sanctionsDismissed ? { sanctionsDismissed } : {}) };
}

/** The document's nationality as an alpha-2 code, or null. */
const nationalityOf = (id: Snapshot['identification']) =>
  id.nationality ? (id.nationality.length === 3 ? (countries.alpha3ToAlpha2(id.nationality.toUpperCase()) ?? null) : id.nationality.toUpperCase()) : null;

/**
 * The guest on the imported sanctions lists and in the imported news corpus (never a network
 * provider: a screening run stays fast and offline). Null for each that is not imported.
 */
async function watchlistHits(
  deps: Deps,
  r: ReservationRow,
  id: Snapshot['identification'],
  threshold: number,
): Promise<Pick<Snapshot, 'sanctions' | 'sanctionsLists' | 'sanctionsDismissed' | 'adverseMedia'>> {
  const first = id.first_name ?? r.guest_first_name;
  const last = id.last_name ?? r.guest_last_name;
  const matches = await sanctionsMatches(deps, r, id, threshold);
  let adverseMedia: Snapshot['adverseMedia'] = null;
  if (first && last && (await newsCorpusImported(deps))) {
    const found = await searchAdverseMedia({ deps, accountId: r.account_id }, { firstName: first, middleName: id.middle_name, lastName: last, country: nationalityOf(id) ?? '' }, { offline: true });
    adverseMedia = found.findings.map((f) => ({ title: f.title, link: f.link, publishedAt: f.publishedAt, riskCategories: f.riskCategories, topics: f.topics, summary: f.summary }));
  }
  return { ...matches, adverseMedia };
}

/**
 * The countries the payments came from, by DB-IP's country database (never a web service: runs
 * stay offline). It loads with the first payment that has an address (3.5 MB for IPv4).
 */
async function paymentIpCountries(payments: Snapshot['payments']): Promise<Snapshot['ipCountries']> {
  const out: NonNullable<Snapshot['ipCountries']> = [];
  for (const ip of new Set(payments.map((p) => p.ip_address).filter((ip): ip is string => Boolean(ip)))) {
    if (reservedRange(ip)) continue;
    out.push({ ip, country: await embeddedCountry(ip) });
  }
  return out;
}

/** What the imported threat feeds say of the public addresses the payments came from. */
async function paymentIpThreats(deps: Deps, accountId: string, payments: Snapshot['payments']): Promise<Snapshot['ipThreats']> {
  if (!(await threatFeedsImported(deps))) return null;
  const out: NonNullable<Snapshot['ipThreats']> = [];
  for (const ip of new Set(payments.map((p) => p.ip_address).filter((ip): ip is string => Boolean(ip)))) {
    if (reservedRange(ip)) continue;
    for (const f of await embeddedThreats.lookup(ip, { deps, accountId })) out.push({ ip, source: f.source.name, title: f.title, tags: f.tags });
  }
  return out;
}

/** The reservation as the checks and rules see it. */
export function reservationPart(r: ReservationRow): Snapshot['reservation'] {
  return {
    id: r.id,
    pms: r.pms,
    status: r.status,
    source: r.source,
    listing_id: r.listing_id,
    listing_nickname: r.listing_nickname,
    check_in_date: r.check_in_date,
    check_out_date: r.check_out_date,
    nights: r.nights,
    total_price: r.total_price,
    number_of_guests: r.number_of_guests,
    created_at: r.created_at,
    guest: {
      first_name: r.guest_first_name,
      last_name: r.guest_last_name,
      full_name: r.guest_full_name,
      email: r.guest_email,
      phone: r.guest_phone,
      location: r.guest_location,
    },
  };
}

export type Trigger = 'created' | 'updated' | 'payment_event' | 'manual' | 'guest_portal' | 'list_update' | 'document_read';

/** Queues a run in the caller's transaction; runs requested while one waits coalesce. */
export async function requestScreening(db: Db, deps: Deps, reservationId: string, trigger: Trigger): Promise<void> {
  await enqueue(db, deps, 'screening.run', { reservation_id: reservationId, trigger }, { uniqueKey: screeningKey(reservationId) });
  deps.wakeWorker();
}

/** The reaction to a booking's payment recorded, or its document read or selfie compared: the booking screened again. */
export async function onBookingChecked(payload: JobPayload<'payment.recorded' | 'identity.checked'>, { deps, db, job }: JobContext): Promise<void> {
  await requestScreening(db, deps, payload.reservation_id, job.kind === 'payment.recorded' ? 'payment_event' : 'document_read');
}

/** The job: screen, keep the decision record, store the verdict, tell who asked to be told. */
export async function runScreening(payload: JobPayload<'screening.run'>, { deps }: JobContext): Promise<void> {
  const { reservation_id, trigger } = payload;
  // screened_at is when the run began reading, not when it finished: sync=1 waits for a run
  // with screened_at >= the request, and a run that read before a payment event committed but
  // finished after the request would otherwise pass for a fresh one.
  const started = iso(deps.clock());
  const r = await repo.findReservationById(deps.db, reservation_id);
  if (!r) return; // erased meanwhile
  const snapshot = await loadSnapshot(deps, r);
  const verdict = screen(snapshot);
  const now = iso(deps.clock());
  // What the screening webhook and the callback say of the document, from the reading this run read.
  const document = snapshot.document ? { verification_id: snapshot.document.verification_id, valid: snapshot.document.read?.valid ?? false } : null;
  const runId = newId('job').replace('job_', 'run_');
  await withTx(deps.db, async (tx) => {
    await repo.insertRun(tx, {
      id: runId,
      reservation_id: r.id,
      account_id: r.account_id,
      inputs_digest: inputsDigest(snapshot),
      engine_version: ENGINE_VERSION,
      checks: JSON.stringify(verdict.details),
      rules_fired: JSON.stringify(verdict.rules_fired),
      verdict: JSON.stringify({ status: verdict.status, score: verdict.score, risk_color: verdict.risk_color, reason: verdict.reason, trace: verdict.trace }),
      risk_color: verdict.risk_color,
      trigger,
      created_at: now,
      // The decision record keeps what was read of the document, not the photo.
      document_enc: snapshot.document ? deps.secrets.seal(JSON.stringify(snapshot.document), runDocumentAad(r.account_id, runId)) : null,
    });
    // Two runs of one reservation can overlap (one running, a newer one queued meanwhile):
    // the verdict of the run that began reading last stands, whichever finishes last.
    const stored = { verification_status: verdict.status, screening: JSON.stringify(verdict), risk_color: verdict.risk_color, screened_at: started };
    if (!(await repo.storeVerdict(tx, r.id, stored))) return;
    const updated = { ...r, ...stored };
    const statusChanged = compositeStatus(updated) !== compositeStatus(r);
    if (statusChanged || r.screened_at === null) await emitScreeningEvent(tx, deps, updated, document);
    // What the guest is sent next is the messages module's to decide, from the event: only a
    // change of status can change it (a first screening that leaves the booking pending does not).
    if (statusChanged) await recordEvent(tx, deps, 'status.changed', { account_id: r.account_id, reservation_id: r.id });
    // Who is told of it is the alerts module's to decide, from the event (jobs/kinds.ts).
    const [before, after] = [verdictSummary(r), verdictSummary(updated)];
    if (verdictChanged(before, after)) await recordEvent(tx, deps, 'verdict.changed', { account_id: r.account_id, reservation_id: r.id, before });
    if (r.callback_url) {
      await emitCallback(tx, deps, r.callback_url, { accountId: r.account_id, type: 'screening.finished', subjectId: r.id, body: await screeningEventBody(tx, deps, updated, document) });
    }
  });
  deps.metrics.screeningRuns.inc({ risk_color: verdict.risk_color, status: verdict.status });
}

/** For sync=1: waits (bounded) until a run newer than `since` has finished. */
export async function waitForScreening(deps: Deps, reservationId: string, since: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const row = await repo.screenedAt(deps.db, reservationId);
    if (!row || (row.screened_at !== null && row.screened_at >= since)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
