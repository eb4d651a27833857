import tzLookup from '@photostructure/tz-lookup';
import type { VendorConfig } from '../../config.js';
import { callVendor, isObject, providerFailed, str, unexpected } from '../core.js';
import type { GeoipProvider } from './index.js';

/** ipinfo.io's core API (`/{ip}/json`, bearer token): city, region, country, `loc` as "lat,lon". */
export function ipinfoGeoip(vendor: VendorConfig): GeoipProvider {
  return {
    name: 'ipinfo',
    remote: true,
    async lookup(ip, ctx) {
      const label = 'ipinfo';
      const a = await callVendor(ctx, 'ipinfo', label, `${vendor.url}/${encodeURIComponent(ip)}/json`, { headers: { authorization: `Bearer ${vendor.secrets.TOKEN ?? ''}` } });
      const error = isObject(a.json) && isObject(a.json.error) ? a.json.error : undefined;
      if (a.status === 401 || a.status === 403) throw providerFailed(label, `refused the token: ${str(error?.title) ?? a.status} ${str(error?.message) ?? ''}`.trim());
      if (a.status !== 200 || !isObject(a.json)) throw unexpected(label, a);
      const b = a.json;
      const [lat, lon] = (str(b.loc) ?? '').split(',').map(Number);
      const located = lat !== undefined && lon !== undefined && Number.isFinite(lat) && Number.isFinite(lon) && str(b.loc) !== null;
      return {
        country: str(b.country),
        region: str(b.region),
        city: str(b.city),
        postalCode: str(b.postal),
        timeZone: str(b.timezone) ?? (located ? tzLookup(lat, lon) : null),
        latitude: located ? lat : null,
        longitude: located ? lon : null,
        source: { name: label, date: ctx.deps.clock().toISOString(), url: 'https://ipinfo.io' },
      };
    },
  };
}
