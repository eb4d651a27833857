import type { Db } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import type { DocumentReading } from '../../lib/documents/read.js';
import * as repo from './repo.js';

/** What a reading's sealed result is bound to: its account and its own id. */
export const resultAad = (accountId: string, verificationId: string) => `identity_result:${accountId}:${verificationId}`;

/** The reading the reservation's screening uses: the latest that finished. */
export async function latestReading(deps: Deps, accountId: string, reservationId: string): Promise<DocumentReading | null> {
  const row = await repo.latestFinished(deps.db, reservationId);
  if (!row?.result_enc || row.account_id !== accountId) return null;
  return JSON.parse(deps.secrets.open(row.result_enc, resultAad(row.account_id, row.id))) as DocumentReading;
}

/** What a screening webhook says of the document: that one was read, and whether its check digits hold; nothing read from it. */
export async function latestReadingRef(db: Db, deps: Deps, accountId: string, reservationId: string): Promise<{ verification_id: string; valid: boolean } | null> {
  const row = await repo.latestFinished(db, reservationId);
  if (!row?.result_enc || row.account_id !== accountId) return null;
  const reading = JSON.parse(deps.secrets.open(row.result_enc, resultAad(row.account_id, row.id))) as DocumentReading;
  return { verification_id: row.id, valid: reading.document?.valid ?? false };
}
