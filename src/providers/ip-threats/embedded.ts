import type { Deps } from '../../deps.js';
import { ipHex } from '../ip.js';
import type { ThreatProvider } from './index.js';
import * as store from './store.js';

/**
 * Whether any threat feed is imported: asked of the database on each screening (one indexed row),
 * so a feed another process imports counts from the next run on.
 */
export const threatFeedsImported = (deps: Deps) => store.hasEntries(deps.db);

/** The imported feeds (`guestscreen data import ip-threats`) that list the address. */
export const embeddedThreats: ThreatProvider = {
  name: 'embedded',
  remote: false,
  async lookup(ip, ctx) {
    const x = ipHex(ip);
    const rows = await store.entriesHolding(ctx.deps.db, x);
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
