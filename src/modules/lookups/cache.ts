import type { LookupContext } from '../../providers/core.js';
import { iso } from '../../lib/time.js';
import * as repo from './repo.js';

/**
 * A network provider's answer kept in the database for GUESTSCREEN_LOOKUP_CACHE_SECONDS, so
 * the same question within that time costs no call and no quota. Found by a keyed digest of
 * the input and sealed, since inputs and answers are personal data (an e-mail, its breaches).
 */
export async function cached<T>(ctx: LookupContext, kind: string, input: string, remote: boolean, compute: () => Promise<T>): Promise<T> {
  const { deps } = ctx;
  const ttl = deps.config.lookups.cacheSeconds;
  if (!remote || ttl === 0) return compute();
  const digest = deps.secrets.digest(input, `lookup:${kind}`);
  const aad = `lookup:${kind}:${digest}`;
  const now = deps.clock();
  const hit = await repo.findCached(deps.db, kind, digest, iso(now));
  if (hit) return JSON.parse(deps.secrets.open(hit, aad)) as T;
  const value = await compute();
  const row = { result_enc: deps.secrets.seal(JSON.stringify(value), aad), expires_at: iso(new Date(now.getTime() + ttl * 1000)), created_at: iso(now) };
  await repo.storeCached(deps.db, kind, digest, row);
  return value;
}
