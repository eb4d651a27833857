import type { Db, Tx } from '../../db/connection.js';
import type { Actor } from '../../lib/actor.js';
import type { ReservationRow } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { say } from '../../lib/host-messages.js';
import { iso } from '../../lib/time.js';
import type { AccountRow } from '../accounts/index.js';
import { emitWebhook } from '../events/index.js';
import { latestReadingRef, type ReadingRef } from '../identity/index.js';
import { listNotes } from '../notes/index.js';
import { screenedBetween, screenedPerDay } from './repo.js';
import type { Verdict } from './engine.js';
import { CHECK_NAMES, type CheckResult, type Strength } from './types.js';

// The verdict as hosts and receivers see it: the composite status, the summary, the screening
// event. The manual decision (reservations/review.ts) is one of its inputs.

const CHECKS = CHECK_NAMES;

export function storedVerdict(r: ReservationRow): Verdict | null {
  return r.screening ? (JSON.parse(r.screening) as Verdict) : null;
}

/** A stored verdict in brief: its colour, its top risk and its score (nulls before the first). */
export interface VerdictSummary {
  risk_color: string | null;
  top: { code: string; strength: string } | null;
  score: number | null;
}

export function verdictSummary(r: ReservationRow): VerdictSummary {
  const v = storedVerdict(r);
  const top = v?.trace[0];
  return { risk_color: r.risk_color, top: top ? { code: top.code, strength: top.strength } : null, score: v?.score ?? null };
}

/** Whether a new verdict is a change worth an event (verdict.changed): red or orange, and not what it was. */
export function verdictChanged(before: VerdictSummary, after: VerdictSummary): boolean {
  if (after.risk_color !== 'red' && after.risk_color !== 'orange') return false;
  return after.risk_color !== before.risk_color || after.top?.code !== before.top?.code || after.top?.strength !== before.top?.strength || after.score !== before.score;
}

/** The manual decision wins; otherwise the screening status stands. */
export function compositeStatus(r: ReservationRow): string {
  if (r.supervised === 'approve') return 'verified';
  if (r.supervised === 'decline') return 'declined';
  return r.verification_status;
}

function reason(r: ReservationRow): string {
  const verdict = storedVerdict(r);
  const screening = verdict ? verdict.reason : say('verdict.reason.unscreened');
  if (r.supervised) return say('verdict.reason.manual', { decision: r.supervised, screening });
  return screening;
}

/** Who made the manual decision: a person in the console or an API key (null: no decision, or one made before people were recorded). */
export function decidedBy(r: Pick<ReservationRow, 'supervised' | 'decided_by'>): Actor | null {
  if (!r.supervised || !r.decided_by) return null;
  return JSON.parse(r.decided_by) as Actor;
}

export function statusView(r: ReservationRow) {
  return {
    status: compositeStatus(r),
    pms_status: r.status,
    supervised: r.supervised,
    supervised_reason: r.supervised ? r.supervised_reason : null,
    decided_by: decidedBy(r),
    decided_at: r.supervised ? r.decided_at : null,
    reason: reason(r),
    guestportal_completed: Boolean(r.guestportal_completed),
    business_rules: storedVerdict(r)?.rules_fired ?? [],
  };
}

type Detail = { status: string; value?: string; help?: string; strength?: Strength; findings?: string[] };

/** A check's public face: house_rules shows only its status, as the spec has it; beyond the spec, the strength of its evidence. */
function publicDetail(name: string, d: CheckResult): Detail {
  if (name === 'house_rules') return { status: d.status };
  const out: Detail = { status: d.status, value: d.value, help: d.help, ...(d.strength ? { strength: d.strength } : {}) };
  if (name === 'fraud_detection' || name === 'adverse_media') out.findings = d.findings.map((f) => f.text);
  return out;
}

/** The colour, risks and recommendations a host sees: the manual decision's colour once there is one. */
export function outlook(r: ReservationRow) {
  const verdict = storedVerdict(r);
  return {
    risk_color: r.supervised === 'decline' ? 'red' : r.supervised === 'approve' ? 'green' : (verdict?.risk_color ?? 'yellow'),
    top_risks: verdict?.top_risks ?? [],
    top_recommendations: verdict ? verdict.top_recommendations : r.supervised ? [] : [say('verdict.pending_recommendation')],
  };
}

/** The latest verdict; before the first run finishes, every check is INCOMPLETE and says why. */
export function summaryView(r: ReservationRow, portal: { status: string; lastScreen: string }) {
  const verdict = storedVerdict(r);
  const pendingDetail = (c: string): Detail =>
    c === 'house_rules'
      ? { status: 'INCOMPLETE' }
      : {
          status: 'INCOMPLETE',
          value: say('check.pending.value'),
          help: say('check.pending.help'),
          ...(c === 'fraud_detection' || c === 'adverse_media' ? { findings: [] as string[] } : {}),
        };
  return {
    guest_portal_status: portal.status,
    guest_portal_last_screen: portal.lastScreen,
    verification_composite_status: compositeStatus(r),
    verification_status: r.verification_status,
    verification_status_reason: reason(r),
    ...outlook(r),
    details: Object.fromEntries(CHECKS.map((c) => [c, verdict ? publicDetail(c, verdict.details[c]) : pendingDetail(c)])),
    supervised_status: r.supervised,
  };
}

/**
 * The screening event body of DESIGN.md section 6, sent when the verdict or the manual decision
 * changes, and to a run's callback. Beyond the hosted original's fields, it carries what a
 * receiver acts on without calling back: the risk colour, the top risks and recommendations, and
 * the reservation's URL (ScreeningEvent in the OpenAPI's webhooks).
 */
/** `document`: what the caller already read of the identity document (undefined: looked up here). */
export async function screeningEventBody(db: Db, deps: Deps, r: ReservationRow, document?: ReadingRef | null) {
  const s = statusView(r);
  const notes = await listNotes(db, r.id);
  const readingRef = document === undefined ? await latestReadingRef(db, deps, r.account_id, r.id) : document;
  return {
    id: r.id,
    status: s.status,
    guestportal_completed: s.guestportal_completed,
    reason: s.reason,
    business_rules: s.business_rules,
    notes: notes.map((n) => ({ text: n.text, author_id: n.author_id, author_name: n.author_name, author_type: n.author_type, timestamp: n.created_at })),
    supervised: s.supervised,
    supervised_reason: s.supervised_reason,
    decided_by: s.decided_by,
    decided_at: s.decided_at,
    ...outlook(r),
    url: `${deps.config.publicUrl}/v1/reservations/${r.id}`,
    ...(readingRef ? { identity_document: readingRef } : {}),
  };
}

export async function emitScreeningEvent(tx: Tx, deps: Deps, r: ReservationRow, document?: ReadingRef | null): Promise<void> {
  await emitWebhook(tx, deps, 'screening_webhook_url', { accountId: r.account_id, type: 'screening.changed', subjectId: r.id, body: () => screeningEventBody(tx, deps, r, document) });
}

export const RISK_COLORS = ['green', 'yellow', 'orange', 'red'] as const;
export type RiskColor = (typeof RISK_COLORS)[number];

/**
 * The reservations one count of screeningDays counts: screened on `day` (any of the last `days`
 * without one), with a verdict of `color` (any without one); ids, the one screened last first.
 */
export async function screenedGuests(deps: Deps, account: AccountRow, w: { day?: string | undefined; color?: RiskColor | undefined; from: number; size: number }, days = 7) {
  const { today, since } = lastDays(deps, days);
  const until = iso(new Date((w.day ? Date.parse(`${w.day}T00:00:00Z`) : today) + 86_400_000)).slice(0, 10);
  return screenedBetween(deps.db, account.id, { since: w.day ?? iso(since).slice(0, 10), until, color: w.color, offset: w.from, limit: w.size });
}

/** The last `days` days up to today (UTC): today's midnight, in ms, and the first day's. */
function lastDays(deps: Deps, days: number) {
  const today = Date.parse(`${iso(deps.clock()).slice(0, 10)}T00:00:00Z`);
  return { today, since: new Date(today - (days - 1) * 86_400_000) };
}

/** The last `days` days, oldest first: reservations screened each day by the colour of the verdict. */
export async function screeningDays(deps: Deps, account: AccountRow, days = 7) {
  const { since } = lastDays(deps, days);
  const counts = await screenedPerDay(deps.db, account.id, iso(since));
  return Array.from({ length: days }, (_, i) => {
    const day = iso(new Date(since.getTime() + i * 86_400_000)).slice(0, 10);
    const colors = Object.fromEntries(RISK_COLORS.map((c) => [c, counts.find((x) => x.day === day && x.color === c)?.n ?? 0])) as Record<RiskColor, number>;
    return { day, colors, total: RISK_COLORS.reduce((a, c) => a + colors[c], 0) };
  });
}
