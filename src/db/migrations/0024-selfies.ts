import type { Kysely } from 'kysely';

/**
 * A selfie compared with the document's portrait (lib/faces): where a reading has one, whether
 * the comparison is pending, finished or failed, and its result (the similarity, the verdict, the
 * liveness signals) sealed like the reading's. The selfie and the camera's frames are photos of
 * the reading (identity_images, sides selfie and frame), deleted with its other photos. No face
 * descriptor is stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('identity_verifications').addColumn('face_status', 'text').execute();
  await db.schema.alterTable('identity_verifications').addColumn('face_enc', 'text').execute();
  await db.schema.alterTable('identity_verifications').addColumn('face_error', 'text').execute();
}
