import type { Db } from '../../db/connection.js';

/** A cached result still fresh at `now`, sealed. */
export async function findCached(db: Db, kind: string, digest: string, now: string): Promise<string | undefined> {
  const hit = await db.selectFrom('lookup_cache').select('result_enc').where('kind', '=', kind).where('input_digest', '=', digest).where('expires_at', '>', now).executeTakeFirst();
  return hit?.result_enc;
}

/** Keeps a result (replacing an older one for the same input) and drops the expired ones. */
export async function storeCached(db: Db, kind: string, digest: string, row: { result_enc: string; expires_at: string; created_at: string }): Promise<void> {
  await db
    .insertInto('lookup_cache')
    .values({ kind, input_digest: digest, ...row })
    .onConflict((oc) => oc.columns(['kind', 'input_digest']).doUpdateSet(row))
    .execute();
  await db.deleteFrom('lookup_cache').where('expires_at', '<=', row.created_at).execute();
}
