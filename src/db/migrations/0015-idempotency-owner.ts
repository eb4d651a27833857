import type { Kysely } from 'kysely';

/**
 * The request holding an Idempotency-Key, by a token of its own: its transactions commit only
 * while it still holds the key, so a request another one took the key over from (after its lock
 * ran out) can no longer apply its work a second time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('owner', 'text').execute();
}
