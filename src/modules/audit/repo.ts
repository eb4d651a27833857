import type { Db } from '../../db/connection.js';

/** An append-only record of who changed what; it never holds guest personal data. */
export async function audit(db: Db, entry: { account_id: string | null; actor_id: string | null; action: string; subject_id: string | null; detail?: unknown; at: string }): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      account_id: entry.account_id,
      actor_id: entry.actor_id,
      action: entry.action,
      subject_id: entry.subject_id,
      detail: entry.detail === undefined ? null : JSON.stringify(entry.detail),
      created_at: entry.at,
    })
    .execute();
}
