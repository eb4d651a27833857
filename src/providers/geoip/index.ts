import type { LookupContext, Source } from '../core.js';
import { embeddedGeoip } from './embedded.js';
import { ipinfoGeoip } from './ipinfo.js';
import { maxmindGeoip } from './maxmind.js';

/** Where an IP address is, in our terms; every field null when the database has no answer. */
export interface GeoReport {
  country: string | null;
  region: string | null;
  city: string | null;
  postalCode: string | null;
  timeZone: string | null;
  latitude: number | null;
  longitude: number | null;
  source: Source;
}

export interface GeoipProvider {
  name: string;
  remote: boolean;
  lookup(ip: string, ctx: LookupContext): Promise<GeoReport>;
}

/** MaxMind's web service or ipinfo when configured (in that order), else the MMDB file on disk (DB-IP Lite unless replaced). */
export function geoipProvider(ctx: LookupContext): GeoipProvider {
  const { maxmind, ipinfo } = ctx.deps.config.lookups.vendors;
  return maxmind ? maxmindGeoip(maxmind) : ipinfo ? ipinfoGeoip(ipinfo) : embeddedGeoip(ctx.deps.config);
}
