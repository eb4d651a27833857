/**
 * A booking's notes: the trail of its review, written by its host and by the service itself (the
 * portal completed, the photos deleted, a decision), which the screening event carries. A module
 * of its own, below every module that writes one.
 */
import type { Insertable } from 'kysely';
import { insertRows } from '../../db/compiled.js';
import type { Db, Tx } from '../../db/connection.js';
import type { NoteRow, ReservationNotesTable } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';

export async function insertNote(db: Db, row: Insertable<ReservationNotesTable>): Promise<void> {
  await insertRows(db, 'reservation_notes', [row]);
}

export async function insertNotes(tx: Tx, rows: Insertable<ReservationNotesTable>[]): Promise<void> {
  await tx.insertInto('reservation_notes').values(rows).execute();
}

export async function listNotes(db: Db, reservationId: string): Promise<NoteRow[]> {
  return db.selectFrom('reservation_notes').selectAll().where('reservation_id', '=', reservationId).orderBy('created_at').orderBy('id').execute();
}

/** A note the service itself writes on a reservation (author "guestscreen"). */
export function systemNote(reservationId: string, text: string, at: string) {
  return { id: newId('not'), reservation_id: reservationId, text, author_id: 'system', author_name: 'guestscreen', author_type: 'system', created_at: at };
}
