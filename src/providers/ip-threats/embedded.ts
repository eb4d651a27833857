import type { Deps } from '../../deps.js';
import { ipHex } from '../ip.js';
import type { ThreatProvider } from './index.js';

const feedsSeen = new WeakMap<object, { at: number; imported: boolean }>();

/** Whether any threat feed is imported; remembered 30 s, so screening asks the database rarely. */
export async function threatFeedsImported(deps: Deps): Promise<boolean> {
  const now = Date.now();
  const seen = feedsSeen.get(deps.db);
  if (seen && now - seen.at < 30_000) return seen.imported;
  const imported = Boolean(await deps.db.selectFrom('ip_threat_entries').select('id').limit(1).executeTakeFirst());
  feedsSeen.set(deps.db, { at: now, imported });
  return imported;
}

/** This process sees an import at once; others within 30 s. */
export function forgetThreatFeeds(deps: Deps): void {
  feedsSeen.delete(deps.db);
}

/** The imported feeds (`guestscreen data import ip-threats`) that list the address. */
export const embeddedThreats: ThreatProvider = {
  name: 'embedded',
  remote: false,
  async lookup(ip, ctx) {
    const x = ipHex(ip);
    const rows = await ctx.deps.db
      .selectFrom('ip_threat_entries')
      .select(['source', 'cidr', 'title', 'link', 'tags', 'data_date'])
      .where('range_start', '<=', x)
      .where('range_end', '>=', x)
      .orderBy('source')
      .execute();
    return rows.map((r) => ({
      title: r.title,
      link: r.link,
      timestamp: r.data_date,
      tags: JSON.parse(r.tags) as string[],
      reasons: [r.cidr.includes('/') ? `${ip} is in ${r.cidr}, listed by ${r.source}` : `${ip} is listed by ${r.source}`],
      source: { name: r.source, date: r.data_date.slice(0, 10) },
    }));
  },
};
