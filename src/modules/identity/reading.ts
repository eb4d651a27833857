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
