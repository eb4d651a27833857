import { establishmentFor } from '../../modules/authority/repo.js';
import { receiptPdf, reportsView, sendNow, stayZone, type ReportView } from '../../modules/authority/reports.js';
import { ReportState } from './reports.js';
import { deadline, PoliceDetails, POLICE_DONE } from './police.js';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { StringEnum } from '../../http/validation.js';
import type { AccountRow } from '../../modules/accounts/repo.js';
import { addEntry } from '../../modules/blocklist/service.js';
import { checksOfReservation } from '../../modules/background-checks/service.js';
import { CHECK_STATE_WORDS } from './checks.js';
import { enabledWebhookUrl } from '../../modules/webhooks/service.js';
import { sendFromHost, stargateView } from '../../modules/messages/service.js';
import { answerInWords, guestPortalView, openUpload, portalProgress, type Screen } from '../../modules/guests/index.js';
import { countryCode, translator } from '../../i18n/index.js';
import { policeDetails } from '../../modules/portal/service.js';
import { paymentsPanel, paymentsView } from '../../modules/reservations/payments.js';
import type { ReservationRow } from '../../modules/bookings/index.js';
import * as review from '../../modules/reservations/review.js';
import { getReservation, screenAgain } from '../../modules/reservations/service.js';
import { sendUpload } from '../../modules/reservations/routes.js';
import { openIdentification, type Identification } from '../../modules/screening/identity.js';
import { latestReading } from '../../modules/identity/reading.js';
import type { FaceView, LivenessView } from '../../modules/identity/faces.js';
import { readingFace, readingPhoto, readingPhotos } from '../../modules/identity/service.js';
import type { DocumentField, DocumentReading } from '../../lib/documents/read.js';
import type { PrintedPage } from '../../lib/documents/printed.js';
import { decisionsView } from '../../modules/screening/decisions.js';
import { guestListedEntries } from '../../modules/screening/match.js';
import { dismissSanctionsHit } from '../../modules/screening/dismissals.js';
import { can } from '../../modules/users/service.js';
import type { ListedEntry } from '../../modules/screening/match.js';
import type { SanctionsMatchKind } from '../../modules/screening/checks/watchlists.js';
import { dateInWords } from '../../lib/host-messages.js';
import { notFound } from '../../lib/errors.js';
import { compositeStatus, outlook, statusView, storedVerdict } from '../../modules/screening/verdict.js';
import { CHECK_NAMES, type CheckName } from '../../modules/screening/types.js';
import { ago, COLOR_WORDS, ColorBadge, ConsolePage, CsrfField, type Ctx, guestName, Head, PostButton, seeOther, show, STATUS_WORDS, stay, when, PostForm } from './shell.js';

export const CHECK_TITLES: Record<CheckName | 'business_rules', string> = {
  general_risk: 'Overall risk',
  background_check: 'Background check',
  credit_check: 'Credit check',
  blacklist: 'Your blocklist',
  payment_verification: 'Payment',
  identification_document: 'Identity document',
  fraud_detection: 'Fraud signals',
  adverse_media: 'News about the guest',
  social_verification: 'Online presence',
  sanctions: 'Sanctions lists',
  house_rules: 'House rules',
  business_rules: 'Your rules',
};

/** The guest-portal screens as a host names them (the portal's own titles speak to the guest). */
export const SCREEN_TITLES: Record<Screen, string> = {
  AboutYou: 'About the guest',
  AuthorityReporting: 'Registration with the authorities',
  BuildingScreen: 'Building access',
  BackgroundCheck: 'Background check consent',
  CreditCheck: 'Credit check consent',
  IDVerification: 'Identity document details',
  IDCollection: 'Photo of the identity document',
  Selfie: 'Selfie, compared with the document',
  SecurityDeposit: 'Security deposit',
  UsageAgreement: 'Rental agreement',
  Coronavirus: 'Health declaration',
  CustomScreen: 'A note to you',
  FileUpload: 'Other documents',
  GuestList: 'Other guests',
  HouseRules: 'House rules',
  LongTerm: 'Longer stays',
  PurposeOfStay: 'Purpose of the stay',
  TimeInfoEdit: 'Arrival and departure times',
  SexOffendersAddon: 'Sex-offender registry consent',
  SocialVerificationAddon: 'Social profile',
  SanctionsSearchAddon: 'Sanctions search consent',
  FraudDetectionAddon: 'Fraud check consent',
  AdverseMediaSearchAddon: 'News search consent',
};

const STRENGTH_WORDS: Record<string, string> = { context: 'context only', weak: 'weak', moderate: 'moderate', strong: 'strong', decisive: 'decisive', rule: 'your rule' };
const TRIGGER_WORDS: Record<string, string> = {
  created: 'booking created',
  updated: 'booking changed',
  payment_event: 'payment recorded',
  manual: 'screened again by hand',
  guest_portal: 'guest portal completed',
  list_update: 'a list changed',
  document_read: 'the identity document was read',
};
const DONE: Record<string, string> = {
  screen: 'Screening again: the new verdict shows here in a few seconds (reload).',
  note: 'Note added.',
  blocklist: "Added to your blocklist. This booking and the guest's other stays that have not ended are being screened again.",
  sent: 'The message is on its way to the guest; it shows above once sent.',
  dismissed: 'Dismissed as a different person, with a note. The booking is being screened again; the entry alerts again if the list changes it.',
  reports: 'Sending now: each report’s state shows below once the authority answers (reload).',
  'reports-on_its_way': 'Nothing sent now: a send is already on its way; its answer shows below once the authority gives it (reload).',
  'reports-filed': 'Nothing sent: every guest is filed already.',
  'reports-missing': 'Nothing sent: the stay goes whole, and a guest has not given all the authority needs (each report below says what). Fill it in below, or send the guest back to the police step.',
  'reports-no_tables':
    'Nothing sent: Alloggiati Web’s tables of places and documents are not installed. Save the listing’s police settings again (they are fetched with its credentials), then send again.',
  'reports-not_arrived': 'Nothing sent yet: Alloggiati Web takes a stay only from its arrival day; it goes on its own then.',
  'reports-too_late': 'Nothing sent: Alloggiati Web takes only arrivals of today and yesterday by web service. File these guests by hand in its portal.',
  'reports-changed': 'Nothing sent: no report is ready to go (each report below says why).',
  ...POLICE_DONE,
};

/** A guest's language by name ("German"), as a host reads it. */
const LANGUAGE_NAMES = new Intl.DisplayNames('en', { type: 'language', fallback: 'code' });
const languageName = (tag: string) => {
  try {
    return LANGUAGE_NAMES.of(tag) ?? tag;
  } catch {
    // Not a language tag (a PMS may send "German"): shown as sent.
    return tag;
  }
};

/** The console speaks English; the guest's answers are shown in it. */
const ENGLISH = translator('en');

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const PageQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) });

/** The host of the account's screening webhook, which a decision is sent to; undefined when none is set up. */
async function screeningWebhookHost(deps: Deps, account: AccountRow): Promise<string | undefined> {
  const hook = await enabledWebhookUrl(deps, account, 'screening_webhook_url');
  return hook ? new URL(hook).host : undefined;
}

/** What a decision did, truthfully: whether any of the host's systems hears of it. */
async function decisionNotice(deps: Deps, account: AccountRow, r: ReservationRow, done: 'approve' | 'decline') {
  const host = await screeningWebhookHost(deps, account);
  const what = done === 'approve' ? 'Approved' : 'Declined';
  const why = r.supervised_reason ? ` (${r.supervised_reason})` : '';
  const told = host ? `Your screening webhook at ${host} is being sent the decision.` : 'No screening webhook is set up, so no other system was told; Webhooks sets one up.';
  return `${what}${why}. ${told}`;
}

type Decisions = Awaited<ReturnType<typeof decisionsView>>;
type Verdict = { status: string; risk_color: string; reason: string; trace: { risk: string; check: string; code: string; strength?: string }[] };

function Checks({ r }: { r: ReservationRow }) {
  const verdict = storedVerdict(r);
  if (!verdict) return <p>Screening has not finished yet: the checks show here once it has.</p>;
  return (
    <table class="cards">
      <Head columns={['Check', 'Status', 'What it found']} />
      <tbody>
        {CHECK_NAMES.map((name) => {
          const d = verdict.details[name];
          return (
            <tr id={`check-${name}`}>
              <td data-label="Check">{CHECK_TITLES[name]}</td>
              <td data-label="Status">
                <span class={`badge status-${d.status}`}>{d.status}</span>
                {d.strength ? <small> {STRENGTH_WORDS[d.strength]}</small> : null}
              </td>
              <td data-label="Found">
                {d.value ? <div>{d.value}</div> : null}
                {d.help ? <small>{d.help}</small> : null}
                {/* The overall risk is the other checks' findings weighed: it names the ones that weighed most. */}
                {name === 'general_risk' && !d.findings.length && verdict.top_risks.length ? (
                  <ul class="plain" data-top-risks>
                    {verdict.top_risks.map((t) => (
                      <li>{t}</li>
                    ))}
                  </ul>
                ) : null}
                {d.findings.length ? (
                  <ul class="plain">
                    {d.findings.map((f) => (
                      <li>
                        {f.text} <small>({STRENGTH_WORDS[f.strength] ?? f.strength})</small>
                      </li>
                    ))}
                  </ul>
                ) : null}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Each top risk with the check and finding behind it; each recommendation with the check that made it. */
function Risks({ r }: { r: ReservationRow }) {
  const verdict = storedVerdict(r);
  const o = outlook(r);
  const trace = (verdict?.trace ?? []) as Verdict['trace'];
  const source = (advice: string) => CHECK_NAMES.find((c) => verdict?.details[c].findings.some((f) => f.recommendation === advice));
  return (
    <div class="grid2">
      <div>
        <h2>Top risks</h2>
        {o.top_risks.length ? (
          <ul class="plain" id="top-risks">
            {o.top_risks.map((risk) => {
              const t = trace.find((x) => x.risk === risk);
              return (
                <li>
                  {risk}
                  {t ? (
                    <small>
                      {' '}
                      — from <a href={t.check === 'business_rules' ? '#rules' : `#check-${t.check}`}>{CHECK_TITLES[t.check as CheckName] ?? t.check}</a>,{' '}
                      {STRENGTH_WORDS[t.strength ?? ''] ?? 'evidence'}
                    </small>
                  ) : null}
                </li>
              );
            })}
          </ul>
        ) : (
          <p>Nothing found.</p>
        )}
      </div>
      <div>
        <h2>What to do</h2>
        {o.top_recommendations.length ? (
          <ul class="plain" id="recommendations">
            {o.top_recommendations.map((advice) => {
              const c = source(advice);
              return (
                <li>
                  {advice}
                  {c ? <small> — from {CHECK_TITLES[c]}</small> : null}
                </li>
              );
            })}
          </ul>
        ) : (
          <p>Nothing to do.</p>
        )}
      </div>
    </div>
  );
}

function History({ runs, timeZone }: { runs: Decisions; timeZone: string | null }) {
  if (!runs.length) return <p>No screening run yet.</p>;
  return (
    <table class="cards">
      <Head columns={['When', 'Why it ran', 'Verdict', 'Reason']} />
      <tbody>
        {runs.map((run) => {
          const v = run.verdict as Verdict;
          return (
            <tr>
              <td data-label="When">{when(run.created_at, timeZone)}</td>
              <td data-label="Why">{TRIGGER_WORDS[run.trigger] ?? run.trigger}</td>
              <td data-label="Verdict">
                <ColorBadge color={v.risk_color} label={`${COLOR_WORDS[v.risk_color] ?? v.risk_color} · ${STATUS_WORDS[v.status === 'pending' ? 'pending' : v.status] ?? v.status}`} />
              </td>
              <td data-label="Reason">
                {v.reason}
                {run.rules_fired.length ? <small> Rules: {run.rules_fired.join(', ')}</small> : null}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

type Portal = Awaited<ReturnType<typeof guestPortalView>>;
type FileRef = { id: string; filename: string; content_type: string; size: number };
const isFile = (v: unknown): v is FileRef => typeof v === 'object' && v !== null && 'id' in v && 'filename' in v;

function GuestPortal({ r, portal, progress }: { r: ReservationRow; portal: Portal; progress: { status: string; lastScreen: string } }) {
  const words: Record<string, string> = { COMPLETED: 'completed', IN_PROGRESS: 'started, not finished', NOT_STARTED: 'not started' };
  const screens = Object.entries(portal.screens) as [Screen, { skipped?: boolean; answers?: Record<string, unknown>; at?: string }][];
  return (
    <>
      <p>
        The guest portal is <strong id="portal-status">{words[progress.status] ?? progress.status}</strong>
        {portal.completed_at ? ` (${when(portal.completed_at, r.listing_timezone_name)})` : ''}.
      </p>
      {screens.length ? (
        <table class="cards">
          <Head columns={['Screen', 'Answers']} />
          <tbody>
            {screens.map(([screen, rec]) => (
              <tr>
                <td data-label="Screen">{SCREEN_TITLES[screen] ?? screen}</td>
                <td data-label="Answers">
                  {rec.skipped ? (
                    <span class="muted">skipped</span>
                  ) : (
                    <ul class="plain">
                      {Object.entries(rec.answers ?? {}).map(([k, v]) => {
                        const said = answerInWords(screen, k, isFile(v) ? '' : v, ENGLISH);
                        return (
                          <li>
                            {said.label}:{' '}
                            {isFile(v) ? (
                              <a href={`/console/reservations/${r.id}/files/${v.id}`}>
                                {v.filename} ({Math.ceil(v.size / 1024)} KB)
                              </a>
                            ) : (
                              said.value
                            )}
                          </li>
                        );
                      })}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

/** Each guest's police report, and the host's "send now". */
function PoliceReports({ ctx, r, reports, details }: { ctx: Ctx; r: ReservationRow; reports: ReportView[]; details: Awaited<ReturnType<typeof policeDetails>> }) {
  return (
    <>
      {reports.length ? (
        <table class="cards" id="reports">
          <Head columns={['Guest', 'Report', 'Due']} />
          <tbody>
            {reports.map((x) => (
              <tr>
                <td data-label="Guest">{x.guest_name || `Guest ${x.guest}`}</td>
                <td data-label="Report">
                  <span class="muted">{x.system_name}: </span>
                  <ReportState report={x} reservationId={r.id} timeZone={stayZone(r, x.system)} />
                </td>
                <td data-label="Due">{deadline(x.due_at, stayZone(r, x.system))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No report yet: each guest's report is made once the booking has its dates.</p>
      )}
      {details && r.status !== 'CANCELED' ? <PoliceDetails ctx={ctx} r={r} details={details} /> : null}
      {r.status !== 'CANCELED' ? (
        <PostForm ctx={ctx} action={`/console/reservations/${r.id}/authority-reports`} role="reviewer">
          <p class="muted">Reports go on their own on the arrival day. Send now files what the guests have given today, and sends again one rejected once you have fixed its cause.</p>
          <button type="submit" id="send-reports" class="secondary">
            Send now
          </button>
        </PostForm>
      ) : null}
    </>
  );
}

/** A message's way and state as it truly stands: one written to the outbox reached nobody. */
function messageState(m: { method: string; via: string; status: string; sendAfter: string; updated: string }, timeZone: string | null) {
  const way = m.method === 'sms' ? 'text message' : 'e-mail';
  if (m.status === 'queued') return `${way}, to be sent ${when(m.sendAfter, timeZone)}`;
  if (m.status === 'canceled') return `${way}, not sent: no longer needed (${when(m.updated, timeZone)})`;
  if (m.via === 'outbox') return `${way}, not delivered: written to the outbox, as no ${m.method === 'sms' ? 'SMS service' : 'mail server'} is set up (${when(m.updated, timeZone)})`;
  return `${way}, sent ${when(m.updated, timeZone)}`;
}

/**
 * The background-check and news-search forms, filled in with what the booking and the guest's
 * document know of the guest, and the booking named so that what is ordered is listed here.
 */
function checkFormLink(r: ReservationRow, id: Identification, form: 'background-h' | 'adverse-media-h') {
  const q = new URLSearchParams();
  const put = (k: string, v: string | null | undefined) => v && q.set(k, v);
  put('first_name', id.first_name ?? r.guest_first_name);
  put('last_name', id.last_name ?? r.guest_last_name);
  put('year_of_birth', id.birth_date?.slice(0, 4));
  put('country', id.nationality && id.nationality.length === 2 ? id.nationality.toUpperCase() : undefined);
  put('reservation_id', r.id);
  return `/console/checks?${q.toString()}#${form}`;
}

/** The background checks and news searches ordered from this page, each linked to its report. */
function OrderedChecks({ list, timeZone }: { list: Awaited<ReturnType<typeof checksOfReservation>>; timeZone: string | null }) {
  if (!list.length) return null;
  return (
    <>
      <h3>Ordered from this booking</h3>
      <ul class="plain" id="ordered-checks">
        {list.map((c) => {
          const kind = c.type === 'adverse_media' ? 'adverse-media' : 'background';
          return (
            <li data-check={c.id}>
              <a href={`/console/checks/${kind}/${c.id}`}>
                {c.type === 'adverse_media' ? 'News search' : 'Background check'}: {c.name}
              </a>{' '}
              <span class="muted">
                started {when(c.start_date, timeZone)}, {CHECK_STATE_WORDS[c.status] ?? c.status}
                {c.risk_status === 'REVIEW' ? ': found something' : c.risk_status === 'CLEARED' ? ': nothing found' : ''}
              </span>
            </li>
          );
        })}
      </ul>
    </>
  );
}

const countryNames = (codes: readonly string[]) => codes.map((c) => ENGLISH.countryName(c) ?? c).join(', ');

const CHECK_DIGIT_WORDS: Record<DocumentField['check'], string> = { valid: 'check digit holds', invalid: 'check digit fails', none: '' };
/** A country as the zone writes it (alpha-3, or D for Germany) in English words. */
const zoneCountry = (v: string | null) => (v ? countryNames([v.replace(/<+$/, '') === 'D' ? 'DE' : (countryCode(v.replace(/<+$/, '')) ?? v)]) : '');
const DOCUMENT_TYPE_WORDS: Record<string, string> = { P: 'passport', I: 'ID card', A: 'ID card', C: 'ID card', V: 'visa' };

/** What the document's photo shows the host: the page cut out around its zone, an ID card's front as sent, or its back where no front was sent. */
const PHOTO_WORDS: Record<NonNullable<DocumentReading['portrait']> | 'page', { alt: string; caption: string; short: string }> = {
  page: {
    alt: "The document, cut out of the guest's photo",
    caption: "Cut out of the guest's photo where the machine-readable zone was found: compare the portrait with the guest.",
    short: 'The document',
  },
  card_front: { alt: "The ID card's front, as the guest sent it", caption: "The ID card's front, as the guest sent it: compare the portrait with the guest.", short: "The ID card's front" },
  missing: { alt: "The ID card's back, cut out of the guest's photo", caption: "The ID card's back: it has no portrait.", short: "The ID card's back (no portrait)" },
};

/**
 * What was read from the photo of the guest's document, field by field beside what the booking
 * and the guest gave, each disagreement marked as the identification check found it.
 */
function DocumentRead({
  r,
  read,
  id,
  photo,
  selfie,
  face,
}: {
  r: ReservationRow;
  read: { verification_id: string; reading: DocumentReading };
  id: Identification;
  photo?: string | undefined;
  selfie?: string | undefined;
  face: { face: FaceView | null; liveness: LivenessView | null };
}) {
  const d = read.reading.document;
  if (!d) {
    return (
      <p id="document-unread">
        The photo of the document could not be read{read.reading.problems.length ? `: ${read.reading.problems.map((p) => p.replace(/_/g, ' ')).join(', ')}` : ''}. Compare the document with the booking
        yourself, or ask the guest for a better photo.
      </p>
    );
  }
  const found = new Set((storedVerdict(r)?.details.identification_document.findings ?? []).map((f) => f.code));
  const bookingName = [r.guest_first_name, r.guest_last_name].filter(Boolean).join(' ') || r.guest_full_name || '';
  const typedName = [id.first_name, id.last_name].filter(Boolean).join(' ');
  const rows: { label: string; field?: DocumentField; value?: string; given: string; differs?: boolean }[] = [
    {
      label: 'Name',
      value: [d.given_names.value, d.surname.value].filter(Boolean).join(' '),
      given: [bookingName, typedName && typedName !== bookingName ? `typed: ${typedName}` : ''].filter(Boolean).join('; '),
      differs: found.has('id.read_name_mismatch') || found.has('id.read_name_lost'),
    },
    { label: 'Document', value: DOCUMENT_TYPE_WORDS[d.document_type.value?.[0] ?? ''] ?? d.document_type.value ?? '', given: id.document_type?.replace(/_/g, ' ') ?? '' },
    { label: 'Number', field: d.document_number, given: id.document_number ?? '', differs: found.has('id.read_number_mismatch') },
    { label: 'Nationality', value: zoneCountry(d.nationality.value), given: id.nationality ? zoneCountry(id.nationality) : '' },
    { label: 'Born', field: d.birth_date, given: id.birth_date ?? '', differs: found.has('id.read_birth_mismatch') },
    { label: 'Expires', field: d.expiry_date, given: id.expiry_date ?? '' },
    { label: 'Issued by', value: zoneCountry(d.issuing_state.value), given: '' },
  ];
  return (
    <>
      <p>
        Read from the photo of the {DOCUMENT_TYPE_WORDS[d.document_type.value?.[0] ?? ''] ?? 'document'}:{' '}
        <strong id="document-valid">
          {d.valid
            ? 'every check digit holds'
            : d.surname.check === 'invalid' || d.given_names.check === 'invalid'
              ? 'a letter of the name was lost in reading it (a gap in its line)'
              : 'a check digit fails (a misread or an altered document)'}
        </strong>
        .{d.valid && d.name_confirmed === false ? ' The name was read from the machine-readable lines only, which have no check digit for it: nothing printed on the document confirmed it.' : ''}
      </p>
      {read.reading.portrait === 'missing' ? (
        <p id="document-portrait-missing" class="differs">
          Only the back of the ID card was sent, and it has no portrait: ask the guest for a photo of the card's front to compare with them.
        </p>
      ) : null}
      {face.face ? (
        <FaceMatch photo={photo} portrait={read.reading.portrait} selfie={selfie} face={face.face} liveness={face.liveness} />
      ) : photo ? (
        <figure class="document-photo">
          <a href={photo}>
            <img id="document-photo" src={photo} alt={PHOTO_WORDS[read.reading.portrait ?? 'page'].alt} />
          </a>
          <figcaption class="muted">{PHOTO_WORDS[read.reading.portrait ?? 'page'].caption}</figcaption>
        </figure>
      ) : null}
      <table class="cards" id="document-read">
        <Head columns={['Field', 'On the document', 'In the booking or typed by the guest']} />
        <tbody>
          {rows.map((row) => (
            <tr data-field={row.label.toLowerCase()} class={row.differs ? 'differs' : undefined}>
              <td data-label="Field">{row.label}</td>
              <td data-label="On the document">
                {row.field ? (row.field.value ?? 'not read') : row.value || 'not read'}
                {row.field && row.field.check !== 'none' ? <small> ({CHECK_DIGIT_WORDS[row.field.check]})</small> : null}
              </td>
              <td data-label="Given">
                {row.given || <span class="muted">not given</span>}
                {row.differs ? <strong> · differs</strong> : row.given && (row.field || row.label === 'Name') ? <span class="muted"> · agrees</span> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {d.printed ? <PrintedPageLine printed={d.printed} /> : null}
      <p class="muted">The machine-readable zone as read:</p>
      <pre id="document-zone">{d.zone.join('\n')}</pre>
    </>
  );
}

/** The printed page's name and dates against the zone's, in a sentence. */
function PrintedPageLine({ printed }: { printed: PrintedPage }) {
  const names = [printed.given_names, printed.surname];
  if (names.some((n) => n.agrees === 'differs')) {
    return (
      <p id="document-printed" class="differs">
        <strong>
          The name printed on the page,{' '}
          {names
            .map((n) => n.printed)
            .filter(Boolean)
            .join(' ')}
          , is not the one in the machine-readable lines: a misread or an altered document.
        </strong>
      </p>
    );
  }
  if (names.every((n) => n.agrees === 'same')) {
    const dates = printed.birth_date === 'same' && printed.expiry_date === 'same';
    return <p id="document-printed">The name{dates ? ' and dates' : ''} printed on the page agree with the machine-readable lines.</p>;
  }
  return (
    <p id="document-printed" class="muted">
      The printed page could not be read well enough to compare its name with the machine-readable lines.
    </p>
  );
}

const SIGNAL_MARK = { passed: '✓', failed: '✗', not_checked: '–' } as const;

/**
 * The document and the guest's selfie side by side, with the comparison's verdict in words and
 * each liveness signal for what it shows: the host compares the two faces with their own eyes.
 */
function FaceMatch({
  photo,
  portrait,
  selfie,
  face,
  liveness,
}: {
  photo?: string | undefined;
  portrait: DocumentReading['portrait'];
  selfie?: string | undefined;
  face: FaceView;
  liveness: LivenessView | null;
}) {
  const words = PHOTO_WORDS[portrait ?? 'page'];
  const verdict = face.words.charAt(0).toUpperCase() + face.words.slice(1);
  return (
    <div id="face-match">
      <div class="face-pair">
        <figure class="document-photo">
          {photo ? <img id="document-photo" src={photo} alt={words.alt} /> : <p class="muted">No photo of the document is kept.</p>}
          <figcaption class="muted">{words.short}</figcaption>
        </figure>
        <figure class="document-photo">
          {selfie ? <img id="selfie-photo" src={selfie} alt="The guest's selfie" /> : <p class="muted">The selfie is no longer kept.</p>}
          <figcaption class="muted">The guest's selfie</figcaption>
        </figure>
      </div>
      <p id="face-verdict" class={face.verdict === 'not_same_person' ? 'differs' : undefined}>
        <strong>{verdict}</strong>
        {face.similarity !== null && face.threshold !== null ? ` (similarity ${face.similarity.toFixed(2)}; the same person from ${face.threshold.toFixed(2)})` : ''}.
      </p>
      {face.reasons.length ? (
        <ul id="face-reasons">
          {face.reasons.map((reason) => (
            <li>{reason.message}</li>
          ))}
        </ul>
      ) : null}
      {liveness ? (
        <>
          <h3>Signs of a live person</h3>
          <ul id="liveness" class="signals">
            {liveness.signals.map((s) => (
              <li class={s.result} data-signal={s.code}>
                <span aria-hidden="true">{SIGNAL_MARK[s.result]}</span> {s.message} <span class="muted">It shows that {s.shows}.</span>
              </li>
            ))}
          </ul>
          <p class="muted">{liveness.words}</p>
        </>
      ) : null}
    </div>
  );
}

/** What each kind of sanctions match says to the host, beside its listed entry. */
const MATCH_WORDS: Record<SanctionsMatchKind, { badge: string; color: string; words: string }> = {
  probable: { badge: 'Probable match', color: 'red', words: "The guest's date of birth, year of birth or document number agrees with the list's." },
  possible: {
    badge: 'Possible match',
    color: 'orange',
    words: "The name alone, with no date of birth on both sides to compare: ask the guest for theirs, or compare the guest's document with the entry.",
  },
  namesake: { badge: 'Most likely a namesake', color: 'grey', words: "The list gives another date of birth than the guest's." },
};

/** Each listed entry whole, beside what the guest's document says. */
function ListedEntries({ ctx, base, entries, guest }: { ctx: Ctx; base: string; entries: (ListedEntry & { match: SanctionsMatchKind })[]; guest: Identification }) {
  const guestName = [guest.first_name, guest.middle_name, guest.last_name].filter(Boolean).join(' ');
  return (
    <div class="grid2">
      {entries.map((e) => (
        <article class="entry" data-entry={`${e.source}:${e.entryId}`} data-match={e.match}>
          <h3>{e.name}</h3>
          <p>
            <span class={`badge ${MATCH_WORDS[e.match].color}`}>{MATCH_WORDS[e.match].badge}</span> {MATCH_WORDS[e.match].words}
          </p>
          <dl class="facts">
            <dt>List</dt>
            <dd>
              {e.source}, {dateInWords(e.dataDate)} (entry {e.entryId})
            </dd>
            {e.aliases.length ? (
              <>
                <dt>Also listed as</dt>
                <dd>{e.aliases.join('; ')}</dd>
              </>
            ) : null}
            <dt>Born</dt>
            <dd>{e.birthDates.length ? e.birthDates.map((d) => dateInWords(d)).join(', ') : e.birthYears.length ? e.birthYears.join(', ') : 'not listed'}</dd>
            <dt>Countries</dt>
            <dd>{e.countries.length ? countryNames(e.countries) : 'not listed'}</dd>
            {e.documents.length ? (
              <>
                <dt>Documents</dt>
                <dd>{e.documents.join(', ')}</dd>
              </>
            ) : null}
            <dt>Programmes</dt>
            <dd>{e.programs.length ? e.programs.join(', ') : 'not listed'}</dd>
            {e.remarks ? (
              <>
                <dt>Remarks</dt>
                <dd>{e.remarks}</dd>
              </>
            ) : null}
          </dl>
          {can(ctx.user, 'reviewer') ? (
            <PostForm ctx={ctx} action={`${base}/dismiss`} role="reviewer" class="dismiss">
              <input type="hidden" name="list" value={e.source} />
              <input type="hidden" name="entry_id" value={e.entryId} />
              <label for={`why-${e.entryId}`}>Not the guest? Say why</label>
              <input id={`why-${e.entryId}`} name="reason" maxLength={1000} placeholder="e.g. another date of birth on the passport" />
              <button type="submit" class="secondary">
                A different person
              </button>
            </PostForm>
          ) : null}
        </article>
      ))}
      <article class="entry guest">
        <h3>The guest's document</h3>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{guestName || 'not given'}</dd>
          <dt>Born</dt>
          <dd>{guest.birth_date ? dateInWords(guest.birth_date) : 'not given'}</dd>
          <dt>Nationality</dt>
          <dd>{guest.nationality ? countryNames([guest.nationality.toUpperCase()]) : 'not given'}</dd>
          <dt>Document</dt>
          <dd>{guest.document_number ?? 'not given'}</dd>
        </dl>
      </article>
    </div>
  );
}

/** The decline, asked once more: what it does, with the reason still editable. */
async function confirmDecline(deps: Deps, ctx: Ctx, r: ReservationRow, reason: string) {
  const host = await screeningWebhookHost(deps, ctx.account);
  const base = `/console/reservations/${r.id}`;
  return (
    <ConsolePage ctx={ctx} title={`Decline ${guestName(r)}?`} section="queue">
      <h1>Decline {guestName(r)}?</h1>
      <section class="panel" aria-labelledby="confirm-h">
        <h2 id="confirm-h">What declining does</h2>
        <ul>
          <li>The booking's verdict becomes declined, and the guest leaves your review queue.</li>
          <li>The check-in details are not sent to the guest.</li>
          <li>{host ? `Your screening webhook at ${host} is sent the decision.` : 'No screening webhook is set up, so no other system is told.'}</li>
          <li>You can change the decision later.</li>
        </ul>
        <PostForm ctx={ctx} action={`${base}/decision`} role="reviewer">
          <input type="hidden" name="supervised" value="decline" />
          <input type="hidden" name="confirm" value="yes" />
          <label for="decision-why">
            Reason <span class="muted">(optional)</span>
          </label>
          <input id="decision-why" name="reason" maxLength={1000} value={reason} />
          <div class="actions">
            <button type="submit" class="danger" id="confirm-decline">
              Decline {guestName(r)}
            </button>
            <a href={base}>Go back without declining</a>
          </div>
        </PostForm>
      </section>
    </ConsolePage>
  );
}

/** The page's parts as links at its top: on a phone the police reports are thousands of pixels down. */
function Contents({ parts }: { parts: ([string, string] | null)[] }) {
  return (
    <nav class="chips contents" aria-label="On this page">
      {parts.flatMap((p) =>
        p
          ? [
              <a class="chip" href={`#${p[0]}`}>
                {p[1]}
              </a>,
            ]
          : [],
      )}
    </nav>
  );
}

async function reservationPage(deps: Deps, ctx: Ctx, r: ReservationRow, notice: string | undefined) {
  const flagged = (storedVerdict(r)?.details.sanctions?.findings.length ?? 0) > 0;
  const [progress, runs, notes, { payments, seen }, messages, portal, entries, read, ordered, reports, establishment, details] = await Promise.all([
    portalProgress(deps.db, r),
    decisionsView(deps, r),
    review.notesView(deps, r),
    paymentsPanel(deps, r),
    stargateView(deps, r),
    paymentsView(deps, r).then((payments) => guestPortalView(deps, deps.db, r, payments)),
    flagged ? guestListedEntries(deps, r) : [],
    latestReading(deps.db, deps, r.account_id, r.id),
    checksOfReservation(deps, r.account_id, r.id),
    reportsView(deps, r.account_id, r.id),
    establishmentFor(deps.db, r.account_id, r.listing_id),
    policeDetails(deps, r),
  ]);
  const identification = openIdentification(deps, r);
  const kept = read ? await readingPhotos(deps, read.verification_id) : { document: false, selfie: false };
  const face = read ? await readingFace(deps, read.verification_id) : { face: null, liveness: null };
  const status = compositeStatus(r);
  const o = outlook(r);
  const s = statusView(r);
  const decider = s.decided_by;
  const now = deps.clock();
  const base = `/console/reservations/${r.id}`;
  const deposit = payments.security_deposit;
  // The times a host reads here, in the listing's time zone (that of its police's country, if the booking gives none).
  const zone = establishment ? stayZone(r, establishment.system) : r.listing_timezone_name;
  return (
    <ConsolePage ctx={ctx} title={guestName(r)} section="queue" notice={notice}>
      <p>
        <a href="/console">← Review queue</a>
      </p>
      <h1>{guestName(r)}</h1>
      <p>
        {stay(r.check_in_date, r.check_out_date)}
        {r.listing_nickname ? ` at ${r.listing_nickname}` : ''} · booking {r.status.toLowerCase()}
        {r.confirmation_code ? ` · ${r.confirmation_code}` : ''}
        {r.guest_email ? ` · ${r.guest_email}` : ''}
        {r.guest_phone ? ` · ${r.guest_phone}` : ''}
      </p>
      <Contents
        parts={[
          ['verdict-h', 'Verdict'],
          ['checks-h', 'Checks'],
          read ? ['document-h', 'Document'] : null,
          entries.length ? ['entries-h', 'Listed entries'] : null,
          ['rules-h', 'Rules'],
          ['notes-h', notes.length ? `Notes (${notes.length})` : 'Notes'],
          ['portal-h', 'Guest portal'],
          reports.length || establishment ? ['reports-h', reports.some((x) => x.late) ? 'Police reports (late)' : 'Police reports'] : null,
          ['payments-h', 'Payments'],
          ['messages-h', 'Messages'],
          ['history-h', 'History'],
          ['block-h', 'Blocklist'],
        ]}
      />
      <section class="panel" aria-labelledby="verdict-h">
        <h2 id="verdict-h">
          Verdict: <ColorBadge color={o.risk_color} label={`${COLOR_WORDS[o.risk_color]} · ${STATUS_WORDS[status] ?? status}`} />
        </h2>
        <p id="reason">{s.reason}</p>
        {decider && r.decided_at ? (
          <p id="decided-by">
            {r.supervised === 'approve' ? 'Approved' : 'Declined'} by {decider.name}, <time datetime={r.decided_at}>{ago(r.decided_at, now)}</time>
            {r.supervised_reason ? (
              <>
                : <q>{r.supervised_reason}</q>
              </>
            ) : (
              '.'
            )}
          </p>
        ) : r.supervised_reason ? (
          <p id="decision-reason">
            Reason given: <q>{r.supervised_reason}</q>
          </p>
        ) : null}
        <PostForm ctx={ctx} action={`${base}/decision`} role="reviewer" class="decision">
          <label for="decision-why">
            Reason <span class="muted">(optional: kept with your decision and sent with it to your systems)</span>
          </label>
          <input id="decision-why" name="reason" maxLength={1000} />
          <div class="actions">
            <button type="submit" name="supervised" value="approve" id="approve">
              {r.supervised === 'approve' ? 'Approve again' : 'Approve'}
            </button>
            <button type="submit" name="supervised" value="decline" class="danger" id="decline">
              {r.supervised === 'decline' ? 'Decline again…' : 'Decline…'}
            </button>
          </div>
        </PostForm>
        <div class="actions">
          <PostButton ctx={ctx} action={`${base}/screen`} label="Screen again" kind="secondary" id="screen" />
        </div>
        <Risks r={r} />
      </section>
      <section class="panel" aria-labelledby="checks-h">
        <h2 id="checks-h">The checks</h2>
        <Checks r={r} />
        <OrderedChecks list={ordered} timeZone={zone} />
        <p>
          <a id="background-check" href={checkFormLink(r, identification, 'background-h')}>
            Run a background check on {guestName(r)}
          </a>{' '}
          <span class="muted">(sanctions lists, registers and news, with a PDF report)</span>
        </p>
        <p>
          <a id="news-search" href={checkFormLink(r, identification, 'adverse-media-h')}>
            Search the news about {guestName(r)}
          </a>{' '}
          <span class="muted">(articles that name the guest near words of wrongdoing)</span>
        </p>
      </section>
      {read ? (
        <section class="panel" aria-labelledby="document-h">
          <h2 id="document-h">The identity document</h2>
          <DocumentRead
            r={r}
            read={read}
            id={identification}
            photo={kept.document ? `${base}/documents/${read.verification_id}/photo` : undefined}
            selfie={kept.selfie ? `${base}/documents/${read.verification_id}/selfie` : undefined}
            face={face}
          />
        </section>
      ) : null}
      {entries.length ? (
        <section class="panel" aria-labelledby="entries-h">
          <h2 id="entries-h">Listed entries to compare with the guest</h2>
          <p class="muted">Compare each with the guest's identity document: a shared name alone is not the same person.</p>
          <ListedEntries ctx={ctx} base={base} entries={entries} guest={identification} />
        </section>
      ) : null}
      <section class="panel" id="rules" aria-labelledby="rules-h">
        <h2 id="rules-h">Your rules</h2>
        {s.business_rules.length ? (
          <ul class="plain">
            {s.business_rules.map((name) => (
              <li>{name}</li>
            ))}
          </ul>
        ) : (
          <p>None of your rules fired.</p>
        )}
        <p>
          <a href="/console/rules">Your rules</a>
        </p>
      </section>
      <section class="panel" aria-labelledby="notes-h">
        <h2 id="notes-h">Notes</h2>
        {notes.length ? (
          <ul class="plain" id="notes">
            {notes.map((n) => (
              <li>
                {n.text}{' '}
                <small>
                  — {n.author_type === 'system' ? 'guestscreen' : n.author_name}, {when(n.timestamp, zone)}
                </small>
              </li>
            ))}
          </ul>
        ) : (
          <p>No notes yet.</p>
        )}
        <PostForm ctx={ctx} action={`${base}/notes`} role="reviewer">
          <label for="note">Add a note</label>
          <textarea id="note" name="text" required maxLength={5000} />
          <button type="submit">Add note</button>
        </PostForm>
      </section>
      <section class="panel" aria-labelledby="portal-h">
        <h2 id="portal-h">Guest portal</h2>
        <GuestPortal r={r} portal={portal} progress={progress} />
      </section>
      {reports.length || establishment ? (
        <section class="panel" aria-labelledby="reports-h">
          <h2 id="reports-h">Police reports</h2>
          <PoliceReports ctx={ctx} r={r} reports={reports} details={details} />
        </section>
      ) : null}
      <div class="grid2">
        <section class="panel" aria-labelledby="payments-h">
          <h2 id="payments-h">Payments</h2>
          <dl class="facts">
            <dt>Cards used</dt>
            <dd id="cards-seen">{seen.cards.length ? seen.cards.join('; ') : 'none recorded'}</dd>
            <dt>Billing country</dt>
            <dd>{seen.billing.length ? seen.billing.join(', ') : 'none recorded'}</dd>
            <dt>Card validation</dt>
            <dd>
              {payments.payment_validation.status
                ? `${payments.payment_validation.status}${payments.payment_validation.card_brand ? `, ${payments.payment_validation.card_brand}` : ''}${payments.payment_validation.card_country ? ` from ${payments.payment_validation.card_country}` : ''}`
                : 'none sent (a validation is a zero-amount check of the card)'}
            </dd>
            <dt>Name on card</dt>
            <dd>{payments.payment_validation.name_on_card || '—'}</dd>
            <dt>Deposit holds</dt>
            <dd>{deposit.successful_authorizations.length ? deposit.successful_authorizations.map((a) => `${a.amount} ${a.currency}`).join(', ') : 'none'}</dd>
            <dt>Failures</dt>
            <dd>{deposit.charge_failures.length ? deposit.charge_failures.map((f) => f.message).join('; ') : 'none'}</dd>
          </dl>
        </section>
        <section class="panel" aria-labelledby="messages-h">
          <h2 id="messages-h">Messages to the guest</h2>
          {messages.length ? (
            <ul class="plain">
              {messages.map((m) => (
                <li>
                  {m.message.subject} <small>— {messageState(m, zone)}</small>
                </li>
              ))}
            </ul>
          ) : (
            <p>No messages.</p>
          )}
          {(r.guest_email || r.guest_phone) && r.status !== 'CANCELED' && can(ctx.user, 'reviewer') ? (
            <>
              {r.guestportal_completed ? null : (
                <PostButton ctx={ctx} action={`${base}/messages`} role="reviewer" name="kind" value="portal" label="Send the guest portal link again" kind="secondary" id="resend-portal" />
              )}
              <PostForm ctx={ctx} action={`${base}/messages`} role="reviewer">
                <input type="hidden" name="kind" value="words" />
                <label for="guest-words">Write to the guest</label>
                <textarea id="guest-words" name="text" rows={4} required maxLength={5000} />
                <small class="hint">
                  Sent to {r.guest_email ?? r.guest_phone} with a greeting and your name in the guest's language
                  {r.guest_language ? ` (${languageName(r.guest_language)})` : ''}; your words go as you write them.
                </small>
                <button type="submit" id="send-words">
                  Send
                </button>
              </PostForm>
            </>
          ) : null}
        </section>
      </div>
      <section class="panel" aria-labelledby="history-h">
        <h2 id="history-h">Decision history</h2>
        <History runs={runs} timeZone={zone} />
      </section>
      <section class="panel" aria-labelledby="block-h">
        <h2 id="block-h">Do not host this guest again</h2>
        <PostForm ctx={ctx} action={`${base}/blocklist`} role="reviewer">
          <p>Adds the guest's name, e-mail, phone and document number, as this booking has them, to your blocklist.</p>
          <label for="block-reason">Why</label>
          <input id="block-reason" name="reason" required maxLength={1000} />
          <button type="submit" class="danger">
            Add to blocklist
          </button>
        </PostForm>
      </section>
    </ConsolePage>
  );
}

export const reservationPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const back = (id: string, done: string) => `/console/reservations/${id}?done=${done}`;

    app.get('/console/reservations/:id', { schema: { hide: true, params: IdParams, querystring: PageQuery } }, async (request, reply) => {
      const r = await getReservation(deps, request.account, request.params.id);
      const done = request.query.done;
      const notice = done === 'approve' || done === 'decline' ? await decisionNotice(deps, request.account, r, done) : done ? DONE[done] : undefined;
      return show(request, reply, (ctx) => reservationPage(deps, ctx, r, notice));
    });

    app.post(
      '/console/reservations/:id/decision',
      {
        config: { role: 'reviewer' },
        schema: {
          hide: true,
          params: IdParams,
          body: Type.Object({
            supervised: StringEnum(['approve', 'decline'] as const),
            reason: Type.Optional(Type.String({ maxLength: 1000 })),
            confirm: Type.Optional(Type.Literal('yes')),
            ...CsrfField,
          }),
        },
      },
      async (request, reply) => {
        const r = await getReservation(deps, request.account, request.params.id);
        const { supervised, reason, confirm } = request.body;
        // A decline turns the guest away: it is asked once more, on a page of its own (no script needed).
        if (supervised === 'decline' && confirm !== 'yes') return show(request, reply, (ctx) => confirmDecline(deps, ctx, r, reason ?? ''));
        await review.setManualDecision(deps, request.actor, r, supervised, reason);
        return seeOther(reply, back(r.id, supervised));
      },
    );

    app.get(
      '/console/reservations/:id/authority-receipts/:day',
      { schema: { hide: true, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }), day: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }) }) } },
      async (request, reply) => {
        const r = await getReservation(deps, request.account, request.params.id);
        const pdf = await receiptPdf(deps, r.account_id, r.id, request.params.day);
        if (!pdf) throw notFound(`a receipt of ${request.params.day} for this booking's establishment`);
        return reply.type('application/pdf').header('content-disposition', `attachment; filename="ricevuta-${request.params.day}.pdf"`).header('cache-control', 'no-store').send(pdf);
      },
    );

    app.post('/console/reservations/:id/authority-reports', { config: { role: 'reviewer' }, schema: { hide: true, params: IdParams, body: Type.Object({ ...CsrfField }) } }, async (request, reply) => {
      const r = await getReservation(deps, request.account, request.params.id);
      const sent = await sendNow(deps, r.account_id, r.id);
      return seeOther(reply, `${back(r.id, sent.nothing_sent ? `reports-${sent.nothing_sent.code}` : 'reports')}#reports-h`);
    });

    app.post('/console/reservations/:id/screen', { schema: { hide: true, params: IdParams, body: Type.Object({ ...CsrfField }) } }, async (request, reply) => {
      const r = await getReservation(deps, request.account, request.params.id);
      await screenAgain(deps, r);
      return seeOther(reply, back(r.id, 'screen'));
    });

    app.post(
      '/console/reservations/:id/notes',
      {
        config: { role: 'reviewer' },
        schema: { hide: true, params: IdParams, body: Type.Object({ text: Type.String({ minLength: 1, maxLength: 5000 }), ...CsrfField }) },
      },
      async (request, reply) => {
        const r = await getReservation(deps, request.account, request.params.id);
        await review.addHostNote(deps, request.actor, r, request.body.text);
        return seeOther(reply, back(r.id, 'note'));
      },
    );

    app.post(
      '/console/reservations/:id/messages',
      {
        config: { role: 'reviewer' },
        schema: {
          hide: true,
          params: IdParams,
          body: Type.Object({ kind: StringEnum(['portal', 'words'] as const), text: Type.Optional(Type.String({ maxLength: 5000 })), ...CsrfField }),
        },
      },
      async (request, reply) => {
        const r = await getReservation(deps, request.account, request.params.id);
        const { kind, text = '' } = request.body;
        await sendFromHost(deps, r, kind === 'portal' ? { kind } : { kind, text });
        return seeOther(reply, back(r.id, 'sent'));
      },
    );

    app.post(
      '/console/reservations/:id/dismiss',
      {
        config: { role: 'reviewer' },
        schema: {
          hide: true,
          params: IdParams,
          body: Type.Object({
            list: Type.String({ minLength: 1, maxLength: 200 }),
            entry_id: Type.String({ minLength: 1, maxLength: 100 }),
            reason: Type.Optional(Type.String({ maxLength: 1000 })),
            ...CsrfField,
          }),
        },
      },
      async (request, reply) => {
        const r = await getReservation(deps, request.account, request.params.id);
        const { list, entry_id, reason } = request.body;
        await dismissSanctionsHit(deps, request.actor, r, { list, entry_id, reason: reason?.trim() || undefined });
        return seeOther(reply, back(r.id, 'dismissed'));
      },
    );

    app.post(
      '/console/reservations/:id/blocklist',
      {
        config: { role: 'reviewer' },
        schema: { hide: true, params: IdParams, body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 1000 }), ...CsrfField }) },
      },
      async (request, reply) => {
        const r = await getReservation(deps, request.account, request.params.id);
        const id = openIdentification(deps, r);
        await addEntry(deps, request.account, {
          name: r.guest_full_name ?? undefined,
          email: r.guest_email ?? undefined,
          phone: r.guest_phone ?? undefined,
          document_number: id.document_number,
          reason: request.body.reason,
        });
        return seeOther(reply, back(r.id, 'blocklist'));
      },
    );

    app.get(
      '/console/reservations/:id/documents/:verification_id/:photo',
      {
        schema: {
          hide: true,
          params: Type.Object({ id: Type.String({ maxLength: 100 }), verification_id: Type.String({ maxLength: 100 }), photo: Type.Union([Type.Literal('photo'), Type.Literal('selfie')]) }),
        },
      },
      async (request, reply) => {
        const r = await getReservation(deps, request.account, request.params.id);
        const side = request.params.photo === 'selfie' ? 'selfie' : 'document';
        const photo = await readingPhoto(deps, r.account_id, r.id, request.params.verification_id, side);
        if (!photo) throw notFound(`no ${side === 'selfie' ? 'selfie' : 'photo of the document'} is kept for this reading (none was sent or cut out, or it was deleted after check-out)`);
        // A document photo or a face: never kept by a browser's or a proxy's cache.
        return reply.type(photo.type).header('cache-control', 'private, no-store').send(photo.data);
      },
    );

    app.get(
      '/console/reservations/:id/files/:file_id',
      { schema: { hide: true, params: Type.Object({ id: Type.String({ maxLength: 100 }), file_id: Type.String({ maxLength: 100 }) }) } },
      async (request, reply) => {
        const r = await getReservation(deps, request.account, request.params.id);
        return sendUpload(reply, await openUpload(deps, r, request.params.file_id));
      },
    );
  };
