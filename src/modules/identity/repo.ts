import type { Insertable, Selectable } from 'kysely';
import { insertRows } from '../../db/compiled.js';
import type { Db, Tx } from '../../db/connection.js';
import type { IdentityImagesTable, IdentityVerificationsTable } from '../../db/schema.js';

export type VerificationRow = Selectable<IdentityVerificationsTable>;
export type ImageRow = Selectable<IdentityImagesTable>;

export async function insertVerification(tx: Tx, row: Insertable<IdentityVerificationsTable>, images: Insertable<IdentityImagesTable>[]): Promise<void> {
  await insertRows(tx, 'identity_verifications', [row]);
  await insertRows(tx, 'identity_images', images);
}

export async function insertImages(tx: Tx, images: Insertable<IdentityImagesTable>[]): Promise<void> {
  await insertRows(tx, 'identity_images', images);
}

export function findVerification(db: Db, id: string): Promise<VerificationRow | undefined> {
  return db.selectFrom('identity_verifications').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A reservation's readings, newest first. */
const readingsOf = (db: Db, reservationId: string) =>
  db.selectFrom('identity_verifications').selectAll().where('reservation_id', '=', reservationId).orderBy('created_at', 'desc').orderBy('id', 'desc');

/** The reservation's latest finished reading, if any. */
export function latestFinished(db: Db, reservationId: string): Promise<VerificationRow | undefined> {
  return readingsOf(db, reservationId).where('status', '=', 'finished').limit(1).executeTakeFirst();
}

/** The readings of the photos the guest sent through the portal, newest first. */
export function portalReadings(db: Db, reservationId: string, limit: number): Promise<VerificationRow[]> {
  return readingsOf(db, reservationId).where('source', '=', 'portal').limit(limit).execute();
}

/** A reading's photos of the sides given: the front before the back, a selfie's frames in the camera's order (ids grow as they are made). */
export function imagesOf(db: Db, verificationId: string, sides: ImageRow['side'][]): Promise<ImageRow[]> {
  return db.selectFrom('identity_images').selectAll().where('verification_id', '=', verificationId).where('side', 'in', sides).orderBy('side', 'desc').orderBy('id').execute();
}

/** Which photos a reading keeps: front, back, document. */
export async function imageSides(db: Db, verificationId: string): Promise<string[]> {
  const rows = await db.selectFrom('identity_images').select('side').where('verification_id', '=', verificationId).execute();
  return rows.map((r) => r.side);
}

export async function finish(tx: Tx, id: string, change: { status: 'finished' | 'failed'; result_enc: string | null; error: string | null; ms: number; finished_at: string }): Promise<void> {
  await tx.updateTable('identity_verifications').set(change).where('id', '=', id).where('status', '=', 'pending').execute();
}

export async function finishFace(tx: Tx, id: string, change: { face_status: 'finished' | 'failed'; face_enc: string | null; face_error: string | null }): Promise<void> {
  await tx.updateTable('identity_verifications').set(change).where('id', '=', id).where('face_status', '=', 'pending').execute();
}

/** A new selfie for a reading: its earlier one's photos and result replaced, its comparison pending. */
export async function replaceSelfie(tx: Tx, id: string, images: Insertable<IdentityImagesTable>[]): Promise<void> {
  await tx.deleteFrom('identity_images').where('verification_id', '=', id).where('side', 'in', ['selfie', 'frame']).execute();
  await insertRows(tx, 'identity_images', images);
  await tx.updateTable('identity_verifications').set({ face_status: 'pending', face_enc: null, face_error: null }).where('id', '=', id).execute();
}

export async function deleteImages(tx: Tx, verificationId: string, at: string): Promise<void> {
  await tx.deleteFrom('identity_images').where('verification_id', '=', verificationId).execute();
  await tx.updateTable('identity_verifications').set({ images_deleted_at: at }).where('id', '=', verificationId).execute();
}

export async function deleteVerification(tx: Tx, id: string): Promise<void> {
  await tx.deleteFrom('identity_images').where('verification_id', '=', id).execute();
  await tx.deleteFrom('identity_verifications').where('id', '=', id).execute();
}

/** One-off reads (no reservation) made before `before`: left unasked by their callers once answered 202. */
export async function oneOffReadsBefore(db: Db, before: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('identity_verifications').select('id').where('reservation_id', 'is', null).where('created_at', '<', before).orderBy('created_at').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** Readings of reservations that checked out before `day` whose photos are still kept, with the reservation's account and check-out. */
export function photosKeptAfterCheckout(db: Db, day: string, limit: number, after?: { check_out_date: string; id: string }) {
  let q = db
    .selectFrom('identity_verifications as v')
    .innerJoin('reservations as r', 'r.id', 'v.reservation_id')
    .select(['v.id', 'v.account_id', 'v.reservation_id', 'v.source', 'r.check_out_date'])
    .where('v.images_deleted_at', 'is', null)
    .where('v.status', '!=', 'pending')
    .where('r.check_out_date', '<', day)
    .orderBy('r.check_out_date')
    .orderBy('v.id')
    .limit(limit);
  if (after) q = q.where((e) => e.or([e('r.check_out_date', '>', after.check_out_date), e.and([e('r.check_out_date', '=', after.check_out_date), e('v.id', '>', after.id)])]));
  return q.execute();
}
