import type { VendorConfig } from '../../config.js';
import { basic, callVendor, isObject, providerFailed, str, unexpected } from '../core.js';
import { readRecord } from './embedded.js';
import type { GeoipProvider } from './index.js';

/** MaxMind GeoIP2 City web service (or GeoLite at geolite.info, through GUESTSCREEN_MAXMIND_URL). */
export function maxmindGeoip(vendor: VendorConfig): GeoipProvider {
  return {
    name: 'maxmind',
    remote: true,
    async lookup(ip, ctx) {
      const label = 'MaxMind GeoIP2';
      const a = await callVendor(ctx, 'maxmind', label, `${vendor.url}/geoip/v2.1/city/${encodeURIComponent(ip)}`, {
        headers: { authorization: basic(vendor.secrets.ACCOUNT_ID ?? '', vendor.secrets.LICENSE_KEY ?? '') },
      });
      const source = { name: label, date: ctx.deps.clock().toISOString(), url: 'https://www.maxmind.com' };
      const code = isObject(a.json) ? str(a.json.code) : null;
      if (a.status === 404 && code === 'IP_ADDRESS_NOT_FOUND') return { ...readRecord(null), source };
      if (a.status === 401 || a.status === 402 || a.status === 403) {
        throw providerFailed(label, `refused the request: ${code ?? a.status} ${isObject(a.json) ? (str(a.json.error) ?? '') : ''}`.trim());
      }
      if (a.status !== 200 || !isObject(a.json)) throw unexpected(label, a);
      return { ...readRecord(a.json), source };
    },
  };
}
