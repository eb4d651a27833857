import type { Insertable } from 'kysely';
import type { Db, Tx } from '../../db/connection.js';
import type { IpThreatEntriesTable } from '../../db/schema.js';

export async function hasEntries(db: Db): Promise<boolean> {
  return Boolean(await db.selectFrom('ip_threat_entries').select('id').limit(1).executeTakeFirst());
}

/** The feed entries whose range holds the address (as ipHex writes it). */
export function entriesHolding(db: Db, ipHex: string) {
  return db
    .selectFrom('ip_threat_entries')
    .select(['source', 'cidr', 'title', 'link', 'tags', 'data_date'])
    .where('range_start', '<=', ipHex)
    .where('range_end', '>=', ipHex)
    .orderBy('source')
    .execute();
}

/** Replaces a feed's entries, in batches of one statement each. */
export async function replaceSource(tx: Tx, source: string, rows: Insertable<IpThreatEntriesTable>[], batch: number): Promise<void> {
  await tx.deleteFrom('ip_threat_entries').where('source', '=', source).execute();
  for (let i = 0; i < rows.length; i += batch)
    await tx
      .insertInto('ip_threat_entries')
      .values(rows.slice(i, i + batch))
      .execute();
}
