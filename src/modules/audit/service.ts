import type { Deps } from '../../deps.js';
import { badRequest } from '../../lib/errors.js';
import type { Actor } from '../../lib/actor.js';
import { auditActions, listAudit, type AuditFilter } from './repo.js';

export interface AuditLine {
  id: number;
  at: string;
  actor: Actor | null;
  action: string;
  subject_id: string | null;
  detail: unknown;
}

/** A date (YYYY-MM-DD) or time as the filter's bound: a date's `until` is the end of that day. */
function bound(value: string | undefined, name: string, endOfDay: boolean): string | undefined {
  if (!value) return undefined;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const t = Date.parse(day ? `${value}T00:00:00Z` : value);
  // A day that does not exist (2026-02-30) is refused, not rolled over into the next month.
  const real = !Number.isNaN(t) && t >= 0 && t <= 253_402_300_799_000 && (!day || new Date(t).toISOString().startsWith(value));
  if (!real) throw badRequest(`${name} must be a date (YYYY-MM-DD) or an ISO 8601 time`);
  return new Date(day && endOfDay ? t + 86_400_000 : t).toISOString();
}

/** Who did what in the account, latest first: people in the console, keys through the API. */
export async function auditPage(
  deps: Deps,
  account: { id: string },
  q: { actor?: string | undefined; action?: string | undefined; from_date?: string | undefined; to_date?: string | undefined },
  from: number,
  size: number,
) {
  const filter: AuditFilter = { actorId: q.actor, action: q.action, from: bound(q.from_date, 'from_date', false), until: bound(q.to_date, 'to_date', true) };
  const { total, rows } = await listAudit(deps.db, account.id, filter, from, size);
  const items: AuditLine[] = rows.map((r) => ({
    id: Number(r.id),
    at: r.created_at,
    actor: r.actor_id ? { type: (r.actor_type ?? 'operator') as Actor['type'], id: r.actor_id, name: r.actor_name ?? r.actor_id } : null,
    action: r.action,
    subject_id: r.subject_id,
    detail: r.detail ? (JSON.parse(r.detail) as unknown) : null,
  }));
  return { from, size, total, items };
}

export const actionsOf = (deps: Deps, account: { id: string }) => auditActions(deps.db, account.id);
