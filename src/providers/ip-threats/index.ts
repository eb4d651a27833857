import type { LookupContext, Source } from '../core.js';
import { abuseipdbThreats } from './abuseipdb.js';
import { embeddedThreats } from './embedded.js';
import { greynoiseThreats } from './greynoise.js';

/** One reason to distrust an address: a feed that lists it, a provider's reports, a reserved range. */
export interface ThreatFinding {
  title: string;
  link: string | null;
  /** When the listing or the report is from. */
  timestamp: string | null;
  tags: string[];
  reasons: string[];
  source: Source;
}

export interface ThreatProvider {
  name: string;
  remote: boolean;
  lookup(ip: string, ctx: LookupContext): Promise<ThreatFinding[]>;
}

/** Every configured source answers: the imported feeds always, AbuseIPDB and GreyNoise too when configured. */
export function threatProviders(ctx: LookupContext): ThreatProvider[] {
  const { abuseipdb, greynoise } = ctx.deps.config.lookups.vendors;
  return [embeddedThreats, ...(abuseipdb ? [abuseipdbThreats(abuseipdb)] : []), ...(greynoise ? [greynoiseThreats(greynoise)] : [])];
}
