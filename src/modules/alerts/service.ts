import { withTx, type Db } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import type { JobContext } from '../../jobs/worker.js';
import type { JobPayload } from '../../jobs/kinds.js';
import { screeningKey } from '../../jobs/kinds.js';
import { enqueueAll, isWaiting } from '../../jobs/repo.js';
import { dateInWords, momentInWords } from '../../lib/host-messages.js';
import { markAlerted, reportsToAlert, ALERT_HOURS_BEFORE, isSettled, portalOpened, reportsView, stayZone, type ReportView, missingInWords } from '../authority/index.js';
import { translator } from '../../i18n/index.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { releaseTime } from '../messages/index.js';
import { sendPeopleEmail } from '../mail/index.js';
import { findById, type ReservationRow } from '../bookings/index.js';
import { guestNameOf } from '../reservations/index.js';
import { storedVerdict, type VerdictSummary, rank, type Strength } from '../screening/index.js';
import { findUser, type UserRow, userActor } from '../users/index.js';
import type { AccountRow } from '../accounts/index.js';
import { audit } from '../audit/index.js';
import { badRequest } from '../../lib/errors.js';
import * as repo from './repo.js';

/**
 * Why the account's people are told of a guest: the verdict turned red or orange, the portal is
 * unfinished close to check-in, or a police report is not accepted 6 hours before its deadline.
 */
export type AlertReason = 'red' | 'orange' | 'portal' | 'report';
export const ALERT_MODES = ['each', 'digest', 'off'] as const;
export type AlertMode = (typeof ALERT_MODES)[number];
export const ALERT_MODE_WORDS: Record<AlertMode, string> = {
  each: 'An e-mail for each guest, as it happens',
  digest: 'One e-mail a day, listing them',
  off: 'No e-mail',
};

/**
 * Records that the account's people are to be told of this reservation for this reason and top
 * risk, once per person whatever runs again, and queues the e-mails of those who want each at
 * once. Runs in the transaction that made the reason true (the screening's, the hourly look's).
 */
export async function planAlerts(tx: Db, deps: Deps, r: ReservationRow, reason: AlertReason): Promise<void> {
  const people = await repo.alertedPeople(tx, r.account_id);
  if (!people.length) return;
  const now = iso(deps.clock());
  const risk = reason === 'portal' || reason === 'report' ? '' : (storedVerdict(r)?.trace[0]?.code ?? '');
  const added = await repo.insertAlerts(
    tx,
    people.map((p) => ({
      id: newId('alr'),
      account_id: r.account_id,
      reservation_id: r.id,
      user_id: p.id,
      reason,
      risk,
      // A police report's deadline is hours away: it cannot wait for tomorrow's digest.
      mode: p.alerts === 'digest' && reason !== 'report' ? 'digest' : 'each',
      state: 'queued',
      created_at: now,
      sent_at: null,
    })),
  );
  const each = added.filter((a) => a.mode === 'each');
  if (!each.length) return;
  // A verdict's alert waits for the screening to settle: each check that finishes runs it again,
  // and a booking's colour may go orange, red and orange again in a minute. Each new verdict to
  // tell of restarts the wait (one job a person and guest), and the job tells the colour as it
  // then stands, once (sendAlert).
  const settles = reason === 'red' || reason === 'orange';
  const runAt = new Date(deps.clock().getTime() + deps.config.alertSettleMs);
  await enqueueAll(
    tx,
    deps,
    'alert.send',
    each.map((a) => (settles ? { payload: { alert_id: a.id }, runAt, uniqueKey: alertKey(r.id, a.user_id) } : { payload: { alert_id: a.id } })),
    { restart: true },
  );
  deps.wakeWorker();
}

/** How many waits for the screening to settle a verdict's e-mail is held back at most. */
const SETTLE_ROUNDS = 10;

/** The unique key of the job that tells one person of one guest's verdict. */
const alertKey = (reservationId: string, userId: string) => `alert:${reservationId}:${userId}`;

/** A person's choice of how to be told of guests who need them. */
export async function setAlertMode(deps: Deps, user: UserRow, mode: AlertMode): Promise<void> {
  if (!ALERT_MODES.includes(mode)) throw badRequest(`alerts must be one of ${ALERT_MODES.join(', ')}`);
  const now = iso(deps.clock());
  await withTx(deps.db, async (tx) => {
    await repo.saveAlertMode(tx, user.id, mode, now);
    await audit(tx, { account_id: user.account_id, actor: userActor(user), action: 'user.alerts_changed', subject_id: user.id, detail: { alerts: mode }, at: now });
  });
}

/** The account's hours before check-in at which an unfinished guest portal is told (0: never; at most 14 days). */
export async function setPortalAlertHours(deps: Deps, account: AccountRow, hours: number): Promise<void> {
  if (!Number.isInteger(hours) || hours < 0 || hours > MAX_PORTAL_ALERT_HOURS) throw badRequest(`portal_alert_hours must be a whole number from 0 to ${MAX_PORTAL_ALERT_HOURS}`);
  // Its audit line is the console's, as for the other settings (audit/trail.ts).
  await repo.savePortalAlertHours(deps.db, account.id, hours, iso(deps.clock()));
}

export const MAX_PORTAL_ALERT_HOURS = 14 * 24;

/** The reason a verdict gives to tell people, if any: red or orange, not yet decided. */
export function verdictAlert(r: ReservationRow): AlertReason | null {
  if (r.supervised || r.status === 'CANCELED') return null;
  return r.risk_color === 'red' || r.risk_color === 'orange' ? r.risk_color : null;
}

/**
 * Whether a new verdict is worth telling people of: it turned red or orange, or it stays so with
 * a new top risk and stronger evidence than before (the unreadable photo first, another person's
 * document later). The same colour for the same or weaker reasons is not news.
 */
export function verdictNews(before: VerdictSummary, after: ReservationRow): AlertReason | null {
  const reason = verdictAlert(after);
  if (!reason) return null;
  if (after.risk_color !== before.risk_color) return reason;
  const now = storedVerdict(after);
  const top = now?.trace[0];
  if (!now || !top) return null;
  const was = before.top;
  if (before.score === null || !was) return reason;
  const stronger = weight(top.strength) > weight(was.strength as Strength | 'rule') || now.score > before.score;
  return top.code !== was.code && stronger ? reason : null;
}

/**
 * The reaction to verdict.changed (recorded by screening with the verdict): the account's people
 * planned to be told, where the verdict as it stands now is news against the one it replaced.
 */
export async function onVerdictChanged(payload: JobPayload<'verdict.changed'>, { deps, db }: JobContext): Promise<void> {
  const r = await findById(db, payload.account_id, payload.reservation_id);
  if (!r) return; // erased meanwhile
  const reason = verdictNews(payload.before, r);
  if (reason) await planAlerts(db, deps, r, reason);
}

/** A top risk's weight: a finding's strength, a business rule's as strong evidence. */
const weight = (s: Strength | 'rule') => (s === 'rule' ? rank('strong') : rank(s));

/**
 * Whether there is still something to tell: nobody decided meanwhile, the booking stands, the
 * portal is still unfinished, a police report is still not accepted.
 */
function stillNeeded(r: ReservationRow, reason: string, today: string, reports: ReportView[] = []): boolean {
  if (reason === 'report') return r.status !== 'CANCELED' && reports.some((x) => !isSettled(x));
  if (r.supervised || r.status === 'CANCELED') return false;
  if (reason === 'portal') return !r.guestportal_completed && (r.check_in_date ?? '') >= today;
  return r.risk_color === reason;
}

const guestName = (r: ReservationRow) => guestNameOf(r) ?? 'A guest without a name';

/** A guest's police report as an e-mail says it: its state, and what to do (the portal's state says who can give what is missing). */
function reportInWords(x: ReportView, r: ReservationRow, opened: boolean): string {
  const who = x.guest_name || `Guest ${x.guest}`;
  if (x.state === 'missing') {
    const what = `not given yet: ${missingInWords(x.missing, ENGLISH)}.`;
    if (r.guestportal_completed)
      return `${who}: ${what} The guest finished the guest portal without it: fill it in on the booking's page (Police details), or send the guest back to that step from there.`;
    return `${who}: ${what} The guest ${opened ? 'has not finished' : 'has not started'} the guest portal: send them its link (on the booking's page), or fill in their police details yourself there.`;
  }
  if (x.state === 'rejected') return `${who}: rejected by ${x.system_name}${x.error?.message ? ` ("${x.error.message}")` : ''}. ${x.error?.fix ?? ''}`;
  if (x.state === 'sent') return `${who}: sent, ${x.system_name} has not answered yet${x.error ? `. ${x.error.fix}` : ''}.`;
  if (x.state === 'accepted') return `${who}: accepted by ${x.system_name}'s test service only: nothing is filed until the listing's police settings are switched to production.`;
  return `${who}: ready, not sent yet; send it now from the booking's page.`;
}

/** One guest as an e-mail tells them: who, the stay, the top risk as it stands now, and the reservation page. */
function describe(deps: Deps, r: ReservationRow, reason: string, reports: ReportView[] = [], opened = false) {
  const name = guestName(r);
  const stay = r.check_in_date ? `${dateInWords(r.check_in_date)}${r.check_out_date ? ` to ${dateInWords(r.check_out_date)}` : ''}` : 'no dates yet';
  const where = r.listing_nickname ? ` at ${r.listing_nickname}` : '';
  if (reason === 'report') {
    const open = reports.filter((x) => !isSettled(x));
    const due = open.map((x) => x.due_at).sort()[0];
    const late = open.some((x) => x.late);
    return {
      name,
      late,
      headline: `${name}: police report ${late ? 'late since' : 'due'} ${due ? momentInWords(due, stayZone(r, open[0]?.system ?? '')) : 'soon'}`,
      lines: [
        ['Guest', name],
        ['Stay', `${stay}${where}`],
        [
          'Why',
          `The law asks for every guest's report within 24 hours of arrival; ${open.length === 1 ? 'this one is' : `these ${open.length} are`} not filed yet${late ? ', and the deadline has passed' : ''}.`,
        ],
        ...open.map((x) => ['Report', reportInWords(x, r, opened)] as [string, string]),
      ] as [string, string][],
      url: `${deps.config.publicUrl}/console/reservations/${r.id}`,
    };
  }
  const risks = storedVerdict(r)?.top_risks ?? [];
  const what =
    reason === 'portal'
      ? `${name} has not finished the guest portal, and checks in on ${r.check_in_date ? dateInWords(r.check_in_date) : 'a date to come'}.`
      : `${name} is ${reason === 'red' ? 'red' : 'orange'}: ${risks[0] ?? 'the screening asks for a decision'}`;
  const lines: [string, string][] = [
    ['Guest', name],
    ['Stay', `${stay}${where}`],
    ['Why', what],
  ];
  if (reason !== 'portal' && risks.length > 1) lines.push(['Also found', risks.slice(1).join('; ')]);
  return {
    name,
    headline: reason === 'portal' ? `${name}: guest portal unfinished` : `${name} needs your decision`,
    lines,
    url: `${deps.config.publicUrl}/console/reservations/${r.id}`,
  };
}

/**
 * The `alert.send` job: one person told of one guest, unless someone decided meanwhile. A
 * verdict's alerts wait until the screening has settled (no run queued for the guest), and then
 * go as one e-mail of the colour as it stands; a colour the person was told of within the wait
 * before, come back by way of another, tells nothing more.
 */
export async function sendAlert(payload: JobPayload<'alert.send'>, { deps }: JobContext): Promise<void> {
  let alert = await repo.findAlert(deps.db, payload.alert_id);
  if (!alert || alert.state !== 'queued') return;
  const now = deps.clock();
  const [r, user] = await Promise.all([findById(deps.db, alert.account_id, alert.reservation_id), findUser(deps.db, alert.user_id)]);
  let others: string[] = [];
  if (r && alert.mode === 'each' && (alert.reason === 'red' || alert.reason === 'orange')) {
    const queued = await repo.queuedVerdictAlerts(deps.db, r.id, alert.user_id);
    // A screening queued for the guest holds the e-mail back, but not for ever: a booking screened
    // again and again (a PMS updating it every minute) is told of at most SETTLE_ROUNDS waits late.
    const overdue = Date.parse(queued[0]?.created_at ?? alert.created_at) < now.getTime() - SETTLE_ROUNDS * deps.config.alertSettleMs;
    if (!overdue && (await isWaiting(deps.db, screeningKey(r.id)))) {
      const runAt = new Date(now.getTime() + deps.config.alertSettleMs);
      await enqueueAll(deps.db, deps, 'alert.send', [{ payload, runAt, uniqueKey: alertKey(r.id, alert.user_id) }], { restart: true });
      return;
    }
    const colour = verdictAlert(r);
    const tell = colour ? queued.filter((a) => a.reason === colour).at(-1) : undefined;
    const waitBegan = iso(new Date(Date.parse(queued[0]?.created_at ?? alert.created_at) - deps.config.alertSettleMs));
    // Back to a colour told just before, by way of another: nothing new to tell.
    const cameBack = tell !== undefined && queued.some((a) => a.reason !== tell.reason) && (await repo.toldSince(deps.db, r.id, alert.user_id, tell.reason, waitBegan));
    if (!tell || cameBack) {
      await repo.closeAlerts(
        deps.db,
        queued.map((a) => a.id),
        'dropped',
        iso(now),
      );
      return;
    }
    others = queued.filter((a) => a.id !== tell.id).map((a) => a.id);
    alert = tell;
  }
  const reports = r && alert.reason === 'report' ? await reportsView(deps, r.account_id, r.id) : [];
  if (!r || !user || user.removed_at || !stillNeeded(r, alert.reason, iso(now).slice(0, 10), reports)) {
    await repo.closeAlerts(deps.db, [alert.id, ...others], 'dropped', iso(now));
    return;
  }
  await repo.closeAlerts(deps.db, others, 'dropped', iso(now));
  const d = describe(deps, r, alert.reason, reports, alert.reason === 'report' && (await portalOpened(deps.db, r.id)));
  await sendPeopleEmail(deps.config, alert.id, user.email, d.headline, {
    greeting: greeting(user),
    lead: d.late ? 'A police report is past its deadline and not filed yet:' : LEADS[alert.reason as AlertReason],
    lines: d.lines,
    url: d.url,
    closing: CLOSING,
  });
  await repo.closeAlerts(deps.db, [alert.id], 'sent', iso(now));
}

/** The people's e-mails are in English, as the console is. */
const ENGLISH = translator('en');

const LEADS: Record<AlertReason, string> = {
  red: 'A guest is waiting for your decision:',
  orange: 'A guest is waiting for your decision:',
  portal: 'A guest has not finished the guest portal yet:',
  report: 'A police report falls due in a few hours and is not accepted yet:',
};

const greeting = (user: UserRow) => `Hello${user.name ? ` ${user.name}` : ''},`;
const CLOSING = 'You get these because of your choice in the console, under your name: change it there at any time.';

/** The latest hour of the day at which digests go (GUESTSCREEN_ALERT_DIGEST_HOUR, UTC) that has passed. */
export function lastDigestTime(now: Date, hour: number): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hour);
  return new Date(today <= now.getTime() ? today : today - 86_400_000);
}

/**
 * The `alert.hourly` job, queued by the worker's chore every hour: tells the people of unfinished
 * guest portals whose time has come (the account's hours before the check-in day begins where
 * the listing is), then sends the daily digests that are due.
 */
export async function alertHourly(_payload: JobPayload<'alert.hourly'>, { deps }: JobContext): Promise<void> {
  const now = deps.clock();
  const today = iso(now).slice(0, 10);
  for (const account of await repo.accountsWithPortalAlerts(deps.db)) {
    // Nobody of the account wants to hear: its bookings are not read.
    if (!(await repo.alertedPeople(deps.db, account.id)).length) continue;
    // The account's hours, and a day more for time zones.
    const until = iso(new Date(now.getTime() + (account.portal_alert_hours + 24) * 3_600_000)).slice(0, 10);
    for (const r of await repo.unfinishedPortals(deps.db, account.id, today, until)) {
      if (releaseTime(r, account.portal_alert_hours).getTime() > now.getTime()) continue;
      // The rows and their jobs together: a row without its job would never be sent.
      await withTx(deps.db, (tx) => planAlerts(tx, deps, r, 'portal'));
    }
  }
  // Police reports not accepted 6 hours before their deadline: the host told once a booking.
  for (const due of await reportsToAlert(deps.db, iso(new Date(now.getTime() + ALERT_HOURS_BEFORE * 3_600_000)))) {
    const r = await findById(deps.db, due.account_id, due.reservation_id);
    if (!r || r.status === 'CANCELED') continue;
    await withTx(deps.db, async (tx) => {
      await planAlerts(tx, deps, r, 'report');
      await markAlerted(tx, r.id, iso(now));
    });
  }
  await sendDigests(deps, now);
}

async function sendDigests(deps: Deps, now: Date): Promise<void> {
  const since = iso(lastDigestTime(now, deps.config.alertDigestHour));
  for (const user of await repo.dueForDigest(deps.db, since)) {
    const waiting = (await repo.queuedDigest(deps.db, user.id)).filter((a) => a.created_at < since);
    if (!waiting.length) continue;
    const today = iso(now).slice(0, 10);
    // A guest told twice for one reason (a stronger finding came) is described once, as they stand now.
    const told = new Map<string, { ids: string[]; d: ReturnType<typeof describe> }>();
    const dropped: string[] = [];
    for (const alert of waiting) {
      const key = `${alert.reservation_id} ${alert.reason}`;
      const seen = told.get(key);
      if (seen) {
        seen.ids.push(alert.id);
        continue;
      }
      const r = await findById(deps.db, alert.account_id, alert.reservation_id);
      // A police report's alert is never in a digest (planAlerts sends it at once).
      if (r && stillNeeded(r, alert.reason, today)) told.set(key, { ids: [alert.id], d: describe(deps, r, alert.reason) });
      else dropped.push(alert.id);
    }
    await repo.closeAlerts(deps.db, dropped, 'dropped', iso(now));
    if (told.size) {
      const n = told.size;
      await sendPeopleEmail(deps.config, `dig_${user.id}_${since.slice(0, 13)}`, user.email, `${n} ${n === 1 ? 'guest needs' : 'guests need'} you today`, {
        greeting: greeting(user),
        lead: `Since your last summary, ${n === 1 ? 'this guest needs' : 'these guests need'} a look:`,
        lines: [...told.values()].map(({ d }) => [d.headline, `${d.lines[1]![1]}. ${d.lines[2]![1]} ${d.url}`] as [string, string]),
        closing: CLOSING,
      });
      await repo.closeAlerts(
        deps.db,
        [...told.values()].flatMap(({ ids }) => ids),
        'sent',
        iso(now),
      );
    }
    await repo.digestSent(deps.db, user.id, iso(now));
  }
}
