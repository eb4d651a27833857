import type { Insertable, Selectable } from 'kysely';
import { insertRows } from '../../db/compiled.js';
import type { Db, Tx } from '../../db/connection.js';
import type { DialectKind } from '../../db/dialect.js';
import type { GuestPortalFilesTable, GuestPortalTable } from '../../db/schema.js';

export type PortalRow = Selectable<GuestPortalTable>;

export function findPortal(db: Db, reservationId: string): Promise<PortalRow | undefined> {
  return db.selectFrom('guest_portal').selectAll().where('reservation_id', '=', reservationId).executeTakeFirst();
}

/**
 * Creates the reservation's portal row (`fresh`) unless it exists, and reads it, locked until
 * the transaction ends on PostgreSQL; SQLite's group commit already runs one writer at a time.
 */
export async function lockPortal(tx: Tx, dialect: DialectKind, fresh: Insertable<GuestPortalTable>): Promise<PortalRow> {
  await insertRows(tx, 'guest_portal', [fresh], { ignoreConflicts: true });
  let q = tx.selectFrom('guest_portal').selectAll().where('reservation_id', '=', fresh.reservation_id);
  if (dialect === 'postgres') q = q.forUpdate();
  return await q.executeTakeFirstOrThrow();
}

export async function saveAnswers(tx: Tx, reservationId: string, change: { answers_enc: string; last_step: string | null; updated_at: string }): Promise<void> {
  await tx.updateTable('guest_portal').set(change).where('reservation_id', '=', reservationId).execute();
}

export async function markCompleted(tx: Tx, reservationId: string, at: string): Promise<void> {
  await tx.updateTable('guest_portal').set({ completed_at: at, updated_at: at }).where('reservation_id', '=', reservationId).execute();
}

/** Drops a screen's files: those of the `fields` named, or all of them without. */
export async function deleteFiles(tx: Tx, reservationId: string, screen: string, fields?: string[]): Promise<void> {
  let q = tx.deleteFrom('guest_portal_files').where('reservation_id', '=', reservationId).where('screen', '=', screen);
  if (fields) q = q.where('field', 'in', fields.length ? fields : ['']);
  await q.execute();
}

export async function insertFile(tx: Tx, row: Insertable<GuestPortalFilesTable>): Promise<void> {
  await insertRows(tx, 'guest_portal_files', [row]);
}

export function findFile(db: Db, reservationId: string, fileId: string): Promise<Selectable<GuestPortalFilesTable> | undefined> {
  return db.selectFrom('guest_portal_files').selectAll().where('id', '=', fileId).where('reservation_id', '=', reservationId).executeTakeFirst();
}
