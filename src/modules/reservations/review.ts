import { withTx, type Db } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import type { AccountRow } from '../accounts/repo.js';
import { emitWebhook } from '../events/service.js';
import { screenedPerDay } from '../screening/repo.js';
import { storedVerdict } from '../screening/run.js';
import { CHECK_NAMES, type CheckResult, type Strength } from '../screening/types.js';
import { say } from '../../lib/host-messages.js';
import { resolveScreens } from '../settings/resolve.js';
import * as repo from './repo.js';
import type { ReservationRow } from './repo.js';

const CHECKS = CHECK_NAMES;

export type Supervised = 'approve' | 'decline';

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

export function statusView(r: ReservationRow) {
  return {
    status: compositeStatus(r),
    pms_status: r.status,
    supervised: r.supervised,
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

export async function setManualDecision(deps: Deps, author: AccountRow, r: ReservationRow, decision: Supervised): Promise<ReservationRow> {
  const now = iso(deps.clock());
  const previous = r.supervised;
  const text =
    previous && previous !== decision
      ? `Manual decision changed from ${previous} to ${decision} by ${author.name}.`
      : `Manually ${decision === 'approve' ? 'approved' : 'declined'} by ${author.name}.`;
  const updated = { ...r, supervised: decision, updated_at: now };
  await withTx(deps.db, async (tx) => {
    await repo.updateReservation(tx, r.id, { supervised: decision, updated_at: now });
    await repo.insertNote(tx, { id: newId('not'), reservation_id: r.id, text, author_id: author.id, author_name: author.name, author_type: 'user', created_at: now });
    await emitScreeningEvent(tx, deps, updated);
  });
  return updated;
}

/**
 * The screening event body of DESIGN.md section 6, sent when the verdict or the manual decision
 * changes, and to a run's callback. Beyond the hosted original's fields, it carries what a
 * receiver acts on without calling back: the risk colour, the top risks and recommendations, and
 * the reservation's URL (ScreeningEvent in the OpenAPI's webhooks).
 */
export async function screeningEventBody(db: Db, deps: Deps, r: ReservationRow) {
  const s = statusView(r);
  const notes = await repo.listNotes(db, r.id);
  return {
    id: r.id,
    status: s.status,
    guestportal_completed: s.guestportal_completed,
    reason: s.reason,
    business_rules: s.business_rules,
    notes: notes.map((n) => ({ text: n.text, author_id: n.author_id, author_name: n.author_name, author_type: n.author_type, timestamp: n.created_at })),
    supervised: s.supervised,
    ...outlook(r),
    url: `${deps.config.publicUrl}/v1/reservations/${r.id}`,
  };
}

export async function emitScreeningEvent(tx: Db, deps: Deps, r: ReservationRow): Promise<void> {
  const body = await screeningEventBody(tx, deps, r);
  await emitWebhook(tx, deps, 'screening_webhook_url', { accountId: r.account_id, type: 'screening.changed', subjectId: r.id, body });
}

export async function addHostNote(deps: Deps, author: AccountRow, r: ReservationRow, text: string) {
  const note = { id: newId('not'), reservation_id: r.id, text, author_id: author.id, author_name: author.name, author_type: 'user', created_at: iso(deps.clock()) };
  await withTx(deps.db, (tx) => repo.insertNote(tx, note));
  return notesView(deps, r);
}

export async function notesView(deps: Deps, r: ReservationRow) {
  const rows = await repo.listNotes(deps.db, r.id);
  return rows.map((n) => ({ text: n.text, author_id: n.author_id, author_name: n.author_name, author_type: n.author_type, timestamp: n.created_at }));
}

export async function screensView(deps: Deps, r: ReservationRow) {
  const { screens } = await resolveScreens(deps.db, r.account_id, r.source, () => repo.hasEarlierWithContact(deps.db, r));
  return screens;
}

export const RISK_COLORS = ['green', 'yellow', 'orange', 'red'] as const;
export type RiskColor = (typeof RISK_COLORS)[number];

/** The last `days` days, oldest first: reservations screened each day by the colour of the verdict. */
export async function screeningDays(deps: Deps, account: AccountRow, days = 7) {
  const today = Date.parse(`${iso(deps.clock()).slice(0, 10)}T00:00:00Z`);
  const since = new Date(today - (days - 1) * 86_400_000);
  const counts = await screenedPerDay(deps.db, account.id, iso(since));
  return Array.from({ length: days }, (_, i) => {
    const day = iso(new Date(since.getTime() + i * 86_400_000)).slice(0, 10);
    const colors = Object.fromEntries(RISK_COLORS.map((c) => [c, counts.find((x) => x.day === day && x.color === c)?.n ?? 0])) as Record<RiskColor, number>;
    return { day, colors, total: RISK_COLORS.reduce((a, c) => a + colors[c], 0) };
  });
}
