import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db, Tx } from '../../db/connection.js';
import type { BackgroundChecksTable, CheckrOrdersTable } from '../../db/schema.js';

export type CheckRow = Selectable<BackgroundChecksTable>;
export type CheckType = 'globalcheck' | 'adverse_media';

export async function insertCheck(tx: Tx, row: Insertable<BackgroundChecksTable>): Promise<void> {
  await tx.insertInto('background_checks').values(row).execute();
}

export function findCheckRow(db: Db, id: string): Promise<CheckRow | undefined> {
  return db.selectFrom('background_checks').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes a check still PENDING; false when it is not (finished or erased meanwhile). */
export async function updatePending(db: Db, id: string, change: Updateable<BackgroundChecksTable>): Promise<boolean> {
  const r = await db.updateTable('background_checks').set(change).where('id', '=', id).where('status', '=', 'PENDING').executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Changes a finished check's report only if it is still the one read (`result_enc`); false when it changed meanwhile. */
export async function updateReport(tx: Tx, id: string, readResult: string | null, change: Updateable<BackgroundChecksTable>): Promise<boolean> {
  let q = tx.updateTable('background_checks').set(change).where('id', '=', id);
  q = readResult === null ? q.where('result_enc', 'is', null) : q.where('result_enc', '=', readResult);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** A page of finished background checks in id order, after `after`. */
export function finishedBackgroundChecks(db: Db, after: string, limit: number): Promise<CheckRow[]> {
  return db.selectFrom('background_checks').selectAll().where('type', '=', 'globalcheck').where('status', '=', 'FINISHED').where('id', '>', after).orderBy('id').limit(limit).execute();
}

/** An account's checks of one type, newest first, by status: the page and the total. */
export async function listChecks(db: Db, accountId: string, type: CheckType, q: { from: number; size: number; status?: string | undefined }) {
  let base = db.selectFrom('background_checks').where('account_id', '=', accountId).where('type', '=', type);
  if (q.status) base = base.where('status', '=', q.status);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    base
      .select(['id', 'start_date', 'stop_date', 'status', 'risk_status', 'type', 'pdf_enc', 'subject_enc'])
      .orderBy('start_date', 'desc')
      .orderBy('id', 'desc')
      .offset(q.from)
      .limit(q.size)
      .execute(),
  ]);
  return { total: Number(count.n), rows };
}

/** The account's checks ordered from one booking, newest first. */
export function checksForReservation(db: Db, accountId: string, reservationId: string) {
  return db
    .selectFrom('background_checks')
    .select(['id', 'type', 'status', 'risk_status', 'start_date', 'subject_enc'])
    .where('reservation_id', '=', reservationId)
    .where('account_id', '=', accountId)
    .orderBy('start_date', 'desc')
    .orderBy('id', 'desc')
    .limit(50)
    .execute();
}

export async function deleteChecksBefore(db: Db, before: string): Promise<number> {
  const r = await db.deleteFrom('background_checks').where('start_date', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function deleteCheckRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('background_checks').where('id', '=', id).execute();
}

export function findCheckrOrder(db: Db, checkId: string): Promise<Selectable<CheckrOrdersTable> | undefined> {
  return db.selectFrom('checkr_orders').selectAll().where('check_id', '=', checkId).executeTakeFirst();
}

export function findCheckrOrderByCandidate(db: Db, candidateId: string): Promise<Selectable<CheckrOrdersTable> | undefined> {
  return db.selectFrom('checkr_orders').selectAll().where('candidate_id', '=', candidateId).executeTakeFirst();
}

export async function insertCheckrOrder(db: Db, row: Insertable<CheckrOrdersTable>): Promise<void> {
  await db.insertInto('checkr_orders').values(row).execute();
}

export async function setCheckrReport(db: Db, checkId: string, reportId: string): Promise<void> {
  await db.updateTable('checkr_orders').set({ report_id: reportId }).where('check_id', '=', checkId).execute();
}
