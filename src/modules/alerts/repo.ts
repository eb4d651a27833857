import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { AlertsTable } from '../../db/schema.js';
import type { ReservationRow } from '../bookings/index.js';
import type { UserRow } from '../users/index.js';

export type AlertRow = Selectable<AlertsTable>;

/** People of the account who signed up and want to be told (each at once or in a digest). */
export function alertedPeople(db: Db, accountId: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('removed_at', 'is', null)
    .where('password_hash', 'is not', null)
    .where('alerts', '!=', 'off')
    .orderBy('created_at')
    .execute();
}

/** The alerts not yet recorded (one per person, reservation, reason and top risk); answers those it inserted. */
export async function insertAlerts(db: Db, rows: Insertable<AlertsTable>[]): Promise<Pick<AlertRow, 'id' | 'mode' | 'user_id'>[]> {
  if (!rows.length) return [];
  return db
    .insertInto('alerts')
    .values(rows)
    .onConflict((oc) => oc.columns(['reservation_id', 'reason', 'risk', 'user_id']).doNothing())
    .returning(['id', 'mode', 'user_id'])
    .execute();
}

export function findAlert(db: Db, id: string): Promise<AlertRow | undefined> {
  return db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A person's alerts of a verdict (red, orange) about one reservation still queued to go at once, oldest first. */
export function queuedVerdictAlerts(db: Db, reservationId: string, userId: string): Promise<AlertRow[]> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('reservation_id', '=', reservationId)
    .where('user_id', '=', userId)
    .where('state', '=', 'queued')
    .where('mode', '=', 'each')
    .where('reason', 'in', ['red', 'orange'])
    .orderBy('created_at')
    .execute();
}

/** Whether a person was sent an alert of this reason about this reservation since `since`. */
export async function toldSince(db: Db, reservationId: string, userId: string, reason: string, since: string): Promise<boolean> {
  const row = await db
    .selectFrom('alerts')
    .select('id')
    .where('reservation_id', '=', reservationId)
    .where('user_id', '=', userId)
    .where('reason', '=', reason)
    .where('state', '=', 'sent')
    .where('sent_at', '>=', since)
    .executeTakeFirst();
  return row !== undefined;
}

/** Marks queued alerts sent or dropped; answers whether each was still queued (a retried job sends nothing twice). */
export async function closeAlerts(db: Db, ids: string[], state: 'sent' | 'dropped', at: string): Promise<number> {
  if (!ids.length) return 0;
  const r = await db.updateTable('alerts').set({ state, sent_at: at }).where('id', 'in', ids).where('state', '=', 'queued').executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** A person's alerts waiting for their digest, oldest first. */
export function queuedDigest(db: Db, userId: string): Promise<AlertRow[]> {
  return db.selectFrom('alerts').selectAll().where('user_id', '=', userId).where('state', '=', 'queued').where('mode', '=', 'digest').orderBy('created_at').execute();
}

/** People with a digest waiting whose last one went before `since`. */
export function dueForDigest(db: Db, since: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('removed_at', 'is', null)
    .where('alerts', '=', 'digest')
    .where((eb) => eb.or([eb('last_digest_at', 'is', null), eb('last_digest_at', '<', since)]))
    .where((eb) => eb.exists(eb.selectFrom('alerts').select('alerts.id').whereRef('alerts.user_id', '=', 'users.id').where('alerts.state', '=', 'queued').where('alerts.mode', '=', 'digest')))
    .execute();
}

/** A person's choice of how to be told (the users row's `alerts`, which this module keeps). */
export async function saveAlertMode(db: Db, userId: string, mode: string, at: string): Promise<void> {
  await db.updateTable('users').set({ alerts: mode, updated_at: at }).where('id', '=', userId).execute();
}

/** The account's hours before check-in for unfinished portals (the accounts row's `portal_alert_hours`, which this module keeps). */
export async function savePortalAlertHours(db: Db, accountId: string, hours: number, at: string): Promise<void> {
  await db.updateTable('accounts').set({ portal_alert_hours: hours, updated_at: at }).where('id', '=', accountId).execute();
}

export async function digestSent(db: Db, userId: string, at: string): Promise<void> {
  await db.updateTable('users').set({ last_digest_at: at }).where('id', '=', userId).execute();
}

/** The accounts whose people are told of unfinished guest portals, and how many hours before check-in. */
export function accountsWithPortalAlerts(db: Db): Promise<{ id: string; portal_alert_hours: number }[]> {
  return db.selectFrom('accounts').select(['id', 'portal_alert_hours']).where('portal_alert_hours', '>', 0).execute();
}

/**
 * An account's confirmed bookings checking in between `from` and `until` whose guest portal is
 * unfinished, nobody has decided on, and nobody has been told of yet. By the account, its status
 * and the check-in date (reservations_status_date_idx): without the account, SQLite read every
 * reservation of the database.
 */
export async function unfinishedPortals(db: Db, accountId: string, from: string, until: string): Promise<ReservationRow[]> {
  return db
    .selectFrom('reservations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', 'CONFIRMED')
    .where('check_in_date', '>=', from)
    .where('check_in_date', '<=', until)
    .where(sql<boolean>`not guestportal_completed`)
    .where('supervised', 'is', null)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('alerts').select('alerts.id').whereRef('alerts.reservation_id', '=', 'reservations.id').where('alerts.reason', '=', 'portal'))))
    .execute();
}
