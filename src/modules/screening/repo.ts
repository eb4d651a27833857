import { sql, type Insertable } from 'kysely';
import { insertRows } from '../../db/compiled.js';
import type { Db, Tx } from '../../db/connection.js';
import type { MatchDismissalsTable, PaymentEventRow, ReservationRow, ScreeningRunsTable } from '../../db/schema.js';

// Screening reads the reservation it judges and writes only its verdict columns; the
// reservations module owns the rest of the row and reaches screening, never the reverse.

export function findReservationById(db: Db, id: string): Promise<ReservationRow | undefined> {
  return db.selectFrom('reservations').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Stores a run's verdict unless a run that began reading later already stored its own (two runs
 * of one reservation can overlap); false then.
 */
export async function storeVerdict(tx: Tx, id: string, change: { verification_status: string; screening: string; risk_color: string; screened_at: string }): Promise<boolean> {
  const r = await tx
    .updateTable('reservations')
    .set(change)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('screened_at', 'is', null), eb('screened_at', '<=', change.screened_at)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function screenedAt(db: Db, id: string): Promise<{ screened_at: string | null } | undefined> {
  return db.selectFrom('reservations').select('screened_at').where('id', '=', id).executeTakeFirst();
}

/** The account's other reservations with this e-mail or phone, on that column's own index. */
export function otherBookingsWith(db: Db, accountId: string, column: 'guest_email' | 'guest_phone', value: string, exceptId: string) {
  return db.selectFrom('reservations').select(['id', 'created_at']).where('account_id', '=', accountId).where(column, '=', value).where('id', '!=', exceptId).execute();
}

/** The account's latest bookings, newest first, those created at or after `since` when given: the history window. */
export function latestBookings(db: Db, accountId: string, limit: number, since?: string) {
  let q = db.selectFrom('reservations').select(['id', 'created_at', 'total_price', 'nights']).where('account_id', '=', accountId);
  if (since !== undefined) q = q.where('created_at', '>=', since);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** A page of the stays that have not ended (or have no dates), across accounts, in id order after `after`: whom a changed list must be matched against. */
export async function staysNotEnded(db: Db, today: string, after: string, limit: number, accountId?: string) {
  return db
    .selectFrom('reservations')
    .select(['id', 'account_id', 'guest_first_name', 'guest_last_name', 'guest_email', 'guest_phone', 'identification_enc'])
    .where('id', '>', after)
    .$if(accountId !== undefined, (q) => q.where('account_id', '=', accountId!))
    .where((eb) => eb.or([eb('check_out_date', '>=', today), eb('check_out_date', 'is', null)]))
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function insertRun(tx: Tx, row: Insertable<ScreeningRunsTable>): Promise<void> {
  await insertRows(tx, 'screening_runs', [row]);
}

/** Every screening run of the reservation, newest first. */
export function listRuns(db: Db, reservationId: string) {
  return db.selectFrom('screening_runs').selectAll().where('reservation_id', '=', reservationId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function listPaymentEvents(db: Db, reservationId: string): Promise<PaymentEventRow[]> {
  return db.selectFrom('payment_events').selectAll().where('reservation_id', '=', reservationId).orderBy('occurred_at').orderBy('id').execute();
}

/** The payment events of several reservations, in no particular order. */
export async function paymentEventsOf(db: Db, reservationIds: string[]): Promise<PaymentEventRow[]> {
  return reservationIds.length ? db.selectFrom('payment_events').selectAll().where('reservation_id', 'in', reservationIds).execute() : [];
}

/** Records a host's dismissal of a listed entry for a guest, replacing an earlier one of the same pair. */
export async function upsertDismissal(db: Db, row: MatchDismissalsTable): Promise<void> {
  await db
    .insertInto('match_dismissals')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'guest_key', 'list', 'entry_id'])
        .doUpdateSet({ entry_content: row.entry_content, reservation_id: row.reservation_id, author_id: row.author_id, created_at: row.created_at }),
    )
    .execute();
}

/** The entries an account's host dismissed for this guest. */
export async function dismissalsOf(db: Db, accountId: string, guestKey: string): Promise<Pick<MatchDismissalsTable, 'list' | 'entry_id' | 'entry_content'>[]> {
  return db.selectFrom('match_dismissals').select(['list', 'entry_id', 'entry_content']).where('account_id', '=', accountId).where('guest_key', '=', guestKey).execute();
}

/** Erasure: the dismissals a reservation's host made go with it. */
export async function deleteDismissalsOf(db: Db, reservationId: string): Promise<void> {
  await db.deleteFrom('match_dismissals').where('reservation_id', '=', reservationId).execute();
}

/**
 * Reservations screened per day since a time, by the colour of that day's verdicts: the console's
 * chart. A reservation screened twice in a day with two colours counts once under each.
 */
export async function screenedPerDay(db: Db, accountId: string, since: string): Promise<{ day: string; color: string; n: number }[]> {
  const day = sql<string>`substr(created_at, 1, 10)`;
  const rows = await db
    .selectFrom('screening_runs')
    .select([day.as('day'), 'risk_color as color', sql<number | string>`count(distinct reservation_id)`.as('n')])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', since)
    .groupBy([day, 'risk_color'])
    .execute();
  return rows.flatMap((r) => (r.color ? [{ day: r.day, color: r.color, n: Number(r.n) }] : []));
}

/**
 * The reservations screenedPerDay counts in [since, until), of one colour or all: their ids, the
 * one screened last first, a page of them, and how many in all.
 */
export async function screenedBetween(
  db: Db,
  accountId: string,
  w: { since: string; until: string; color?: string | undefined; offset: number; limit: number },
): Promise<{ total: number; ids: string[] }> {
  const base = () => {
    const q = db.selectFrom('screening_runs').where('account_id', '=', accountId).where('created_at', '>=', w.since).where('created_at', '<', w.until);
    return w.color ? q.where('risk_color', '=', w.color) : q.where('risk_color', 'is not', null);
  };
  const counted = await base()
    .select(sql<number | string>`count(distinct reservation_id)`.as('n'))
    .executeTakeFirstOrThrow();
  const rows = await base()
    .select('reservation_id')
    .groupBy('reservation_id')
    .orderBy(sql`max(created_at)`, 'desc')
    .orderBy('reservation_id')
    .offset(w.offset)
    .limit(w.limit)
    .execute();
  return { total: Number(counted.n), ids: rows.map((r) => r.reservation_id) };
}

/** The account's enabled rules, in the order a screening evaluates them (the rules module writes them). */
export function enabledRules(db: Db, accountId: string) {
  return db.selectFrom('rules').select(['name', 'expression', 'action']).where('account_id', '=', accountId).where('enabled', '=', true).orderBy('name').execute();
}
