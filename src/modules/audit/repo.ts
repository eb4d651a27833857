import type { Db } from '../../db/connection.js';
import { countAll } from '../../db/dialect.js';
import type { Actor } from '../../lib/actor.js';

/** An append-only record of who changed what; it never holds guest personal data. */
export async function audit(db: Db, entry: { account_id: string | null; actor: Actor | null; action: string; subject_id: string | null; detail?: unknown; at: string }): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      account_id: entry.account_id,
      actor_id: entry.actor?.id ?? null,
      actor_type: entry.actor?.type ?? null,
      actor_name: entry.actor?.name ?? null,
      action: entry.action,
      subject_id: entry.subject_id,
      detail: entry.detail === undefined ? null : JSON.stringify(entry.detail),
      created_at: entry.at,
    })
    .execute();
}

export interface AuditFilter {
  actorId?: string | undefined;
  /** An action, or the start of one ('user.' for everything about people). */
  action?: string | undefined;
  /** ISO times: from (inclusive), until (exclusive). */
  from?: string | undefined;
  until?: string | undefined;
}

/** An account's audit lines, latest first, a page at a time. */
export async function listAudit(db: Db, accountId: string, filter: AuditFilter, offset: number, size: number) {
  let q = db.selectFrom('audit_log').where('account_id', '=', accountId);
  if (filter.actorId) q = q.where('actor_id', '=', filter.actorId);
  if (filter.action) q = filter.action.endsWith('.') ? q.where('action', 'like', `${filter.action.replace(/[%_\\]/g, '')}%`) : q.where('action', '=', filter.action);
  if (filter.from) q = q.where('created_at', '>=', filter.from);
  if (filter.until) q = q.where('created_at', '<', filter.until);
  const [count, rows] = await Promise.all([
    q.select(countAll().as('n')).executeTakeFirstOrThrow(),
    q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(size).execute(),
  ]);
  return { total: Number(count.n), rows };
}

/** The actions an account's audit log holds, for the filter's list. */
export async function auditActions(db: Db, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom('audit_log').select('action').distinct().where('account_id', '=', accountId).orderBy('action').execute();
  return rows.map((r) => r.action);
}
