import type { Db } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import type { DocumentReading } from '../../lib/documents/read.js';
import type { SelfieCheck } from '../../lib/faces/selfie.js';
import * as repo from './repo.js';

/** What a reading's sealed result is bound to: its account and its own id. */
export const resultAad = (accountId: string, verificationId: string) => `identity_result:${accountId}:${verificationId}`;
/** What a reading's sealed selfie comparison is bound to. */
export const faceAad = (accountId: string, verificationId: string) => `identity_face:${accountId}:${verificationId}`;

/** What a screening webhook says of the document: that one was read, and whether its check digits hold; nothing read from it. */
export type ReadingRef = { verification_id: string; valid: boolean };

/** The reading the reservation's screening uses: the latest that finished, with its id and its selfie's comparison (null without one, or until compared). */
export async function latestReading(db: Db, deps: Deps, accountId: string, reservationId: string): Promise<{ verification_id: string; reading: DocumentReading; face: SelfieCheck | null } | null> {
  const row = await repo.latestFinished(db, reservationId);
  if (!row?.result_enc || row.account_id !== accountId) return null;
  return {
    verification_id: row.id,
    reading: JSON.parse(deps.secrets.open(row.result_enc, resultAad(row.account_id, row.id))) as DocumentReading,
    face: row.face_status === 'finished' && row.face_enc ? (JSON.parse(deps.secrets.open(row.face_enc, faceAad(row.account_id, row.id))) as SelfieCheck) : null,
  };
}

export async function latestReadingRef(db: Db, deps: Deps, accountId: string, reservationId: string): Promise<ReadingRef | null> {
  const latest = await latestReading(db, deps, accountId, reservationId);
  return latest ? { verification_id: latest.verification_id, valid: latest.reading.document?.valid ?? false } : null;
}
