import { withTx } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import type { AccountRow } from '../accounts/index.js';
import {
  type PaymentEvent,
  openIdentification,
  type Verdict,
  reservationPart,
  screeningSettings,
  type Snapshot,
  paymentEventsOf,
  compileProblem,
  evaluateRules,
  ruleContext,
  type RuleContext,
  type RuleDef,
} from '../screening/index.js';
import * as repo from './repo.js';
import { screenedReservations } from '../bookings/index.js';
import { RULE_FIELDS, type RuleField } from './builder.js';

type Action = RuleDef['action'];

/** Whether the context gives `field` its value for "unknown". */
const isUnknown = (context: RuleContext, field: RuleField) => {
  const [section, key] = field.path.split('.') as [keyof RuleContext, string];
  return String(context[section][key] ?? '') === (field.unknown === '""' ? '' : field.unknown);
};

export interface RuleInput {
  name?: string | undefined;
  expression?: string | undefined;
  action?: Action | undefined;
  enabled?: boolean | undefined;
}

function assertCompiles(expression: string): void {
  const problem = compileProblem(expression);
  if (problem) throw badRequest(`body.expression: ${problem}`);
}

const view = (r: { id: string; name: string; expression: string; action: string; enabled: boolean | number; created_at: string; updated_at: string }) => ({
  id: r.id,
  name: r.name,
  expression: r.expression,
  action: r.action as Action,
  enabled: Boolean(r.enabled),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const guard = async <T>(name: string, write: () => Promise<T>): Promise<T> => {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`a rule named '${name}' already exists`);
    throw err;
  }
};

export async function createRule(deps: Deps, account: AccountRow, input: Required<Pick<RuleInput, 'name' | 'expression' | 'action'>> & RuleInput) {
  assertCompiles(input.expression);
  const now = iso(deps.clock());
  const row = {
    id: newId('job').replace('job_', 'rul_'),
    account_id: account.id,
    name: input.name,
    expression: input.expression,
    action: input.action,
    enabled: input.enabled ?? true,
    created_at: now,
    updated_at: now,
  };
  await guard(input.name, () => withTx(deps.db, (tx) => repo.insertRule(tx, row), { subject: row.id }));
  return view(row);
}

async function load(deps: Deps, account: AccountRow, id: string) {
  const row = await repo.findRule(deps.db, account.id, id);
  if (!row) throw notFound(`rule ${id}`);
  return row;
}

export async function getRule(deps: Deps, account: AccountRow, id: string) {
  return view(await load(deps, account, id));
}

export async function listRules(deps: Deps, account: AccountRow) {
  const rows = await repo.listRules(deps.db, account.id);
  return rows.map(view);
}

export async function updateRule(deps: Deps, account: AccountRow, id: string, input: RuleInput) {
  const current = await load(deps, account, id);
  if (input.expression !== undefined) assertCompiles(input.expression);
  const next = {
    name: input.name ?? current.name,
    expression: input.expression ?? current.expression,
    action: input.action ?? current.action,
    enabled: input.enabled ?? Boolean(current.enabled),
    updated_at: iso(deps.clock()),
  };
  await guard(next.name, () => repo.updateRule(deps.db, id, next));
  return view({ ...current, ...next });
}

export async function deleteRule(deps: Deps, account: AccountRow, id: string) {
  await load(deps, account, id);
  await repo.deleteRule(deps.db, id);
  return { message: `rule ${id} deleted` };
}

/**
 * Evaluates a candidate rule against the account's screened reservations, newest first, as
 * their latest screening saw them. Reads only: nothing is stored and no verdict changes.
 */
export async function dryRun(deps: Deps, account: AccountRow, input: { expression: string; action: Action; limit?: number | undefined }) {
  assertCompiles(input.expression);
  const limit = input.limit ?? 1000;
  const rows = await screenedReservations(deps.db, account.id, limit);
  const ids = rows.map((r) => r.id);
  const events = await paymentEventsOf(deps.db, ids);
  const settings = await screeningSettings(deps.db, account.id);
  const candidate: RuleDef = { name: 'candidate', expression: input.expression, action: input.action };
  const hits: { id: string; confirmation_code: string | null; guest_name: string | null; current_status: string; would_become: string }[] = [];
  const errors: { id: string; error: string }[] = [];
  // The fields it names that a booking may not know: how many of its hits hold with one unknown.
  const mayBeUnknown = RULE_FIELDS.filter((f) => f.unknown && new RegExp(`\\b${f.path.replace('.', '\\.')}\\b`).test(input.expression));
  const unknown = new Map<RuleField, number>();
  for (const r of rows) {
    const verdict = JSON.parse(r.screening!) as Verdict;
    const snapshot: Snapshot = {
      now: r.screened_at ?? iso(deps.clock()),
      reservation: reservationPart(r),
      identification: openIdentification(deps, r),
      payments: events.filter((e) => e.reservation_id === r.id).map((e) => ({ ...(JSON.parse(e.data) as PaymentEvent), occurred_at: e.occurred_at })),
      history: { reservations: 0, medianTotalPrice: null, medianNights: null, sameContactLast24h: 0 },
      guestPortalCompleted: Boolean(r.guestportal_completed),
      skipGuestPortal: Boolean(r.skip_gp),
      settings,
      blocklist: [],
      rules: [],
    };
    const context = ruleContext(snapshot, verdict.details, { score: verdict.score, color: verdict.risk_color, status: verdict.status });
    const { fired, errors: failed } = evaluateRules([candidate], context);
    if (failed[0]) errors.push({ id: r.id, error: failed[0].error });
    if (fired.length) {
      for (const f of mayBeUnknown) if (isUnknown(context, f)) unknown.set(f, (unknown.get(f) ?? 0) + 1);
      const becomes = input.action === 'decline' ? 'declined' : input.action === 'approve' ? 'verified' : verdict.status === 'verified' ? 'review' : verdict.status;
      hits.push({ id: r.id, confirmation_code: r.confirmation_code, guest_name: r.guest_full_name, current_status: r.verification_status, would_become: becomes });
    }
  }
  return {
    evaluated: rows.length,
    hits: hits.length,
    changed: hits.filter((h) => h.current_status !== h.would_become).length,
    unknown: [...unknown].map(([f, n]) => ({ field: f.path, words: f.words, hits: n })),
    items: hits.slice(0, 100),
    errors: errors.slice(0, 20),
  };
}
