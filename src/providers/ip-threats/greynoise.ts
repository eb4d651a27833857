import type { VendorConfig } from '../../config.js';
import { callVendor, isObject, providerFailed, str, unexpected } from '../core.js';
import type { ThreatProvider } from './index.js';

/**
 * GreyNoise Community: whether the address was seen scanning the internet. A 404 with its
 * "not observed" body is an answer (clean), not an error; a benign classification (a search
 * engine's crawler, a known business service) is no threat either.
 */
export function greynoiseThreats(vendor: VendorConfig): ThreatProvider {
  return {
    name: 'greynoise',
    remote: true,
    async lookup(ip, ctx) {
      const label = 'GreyNoise';
      const a = await callVendor(ctx, 'greynoise', label, `${vendor.url}/v3/community/${encodeURIComponent(ip)}`, { headers: { key: vendor.secrets.API_KEY ?? '' } });
      const body = isObject(a.json) ? a.json : {};
      if (a.status === 404) return [];
      if (a.status === 401 || a.status === 403) throw providerFailed(label, `refused the API key${str(body.message) ? `: ${str(body.message)}` : ''}`);
      if (a.status !== 200 || !isObject(a.json)) throw unexpected(label, a);
      const classification = str(body.classification) ?? 'unknown';
      if (body.noise !== true || classification === 'benign') return [];
      return [
        {
          title: `Seen scanning the internet by GreyNoise (${classification})`,
          link: str(body.link),
          timestamp: str(body.last_seen),
          tags: ['scanner', classification],
          reasons: [`${ip} was observed scanning the internet${str(body.name) && str(body.name) !== 'unknown' ? ` as ${str(body.name)}` : ''}, classified ${classification}`],
          source: { name: 'GreyNoise Community', date: ctx.deps.clock().toISOString(), url: 'https://www.greynoise.io' },
        },
      ];
    },
  };
}
