import tzLookup from '@photostructure/tz-lookup';
import countries from 'i18n-iso-countries';
import type { VendorConfig } from '../../config.js';
import { callVendor, isObject, str, unexpected } from '../core.js';
import type { Geocoder, Place } from './index.js';

/**
 * Nominatim search (jsonv2, address details). Meant for a self-hosted server: the public one's
 * policy allows one request a second and no bulk use, and asks for an e-mail to reach you.
 */
export function nominatimGeocoder(vendor: VendorConfig, email: string | undefined): Geocoder {
  return {
    name: 'nominatim',
    remote: true,
    async geocode(address, ctx) {
      const label = 'Nominatim';
      const q = new URLSearchParams({ q: address, format: 'jsonv2', addressdetails: '1', limit: '1', 'accept-language': 'en' });
      if (email) q.set('email', email);
      const a = await callVendor(ctx, 'nominatim', label, `${vendor.url}/search?${q}`);
      if (a.status !== 200 || !Array.isArray(a.json)) throw unexpected(label, a);
      const source = { name: label, date: ctx.deps.clock().toISOString(), license: 'ODbL 1.0 (© OpenStreetMap contributors)', url: vendor.url };
      const hit = a.json.find(isObject);
      if (!hit) {
        return { address, street: null, city: null, state: null, country: null, countryCode: null, zipcode: null, timezone: null, lat: null, lon: null, precision: 'none', source };
      }
      const ad = isObject(hit.address) ? hit.address : {};
      const lat = Number(hit.lat);
      const lon = Number(hit.lon);
      const cc = str(ad.country_code)?.toUpperCase() ?? null;
      const road = str(ad.road);
      const rank = typeof hit.place_rank === 'number' ? hit.place_rank : 0;
      const place: Place = {
        address: str(hit.display_name) ?? address,
        street: road ? [str(ad.house_number), road].filter(Boolean).join(' ') : null,
        city: str(ad.city) ?? str(ad.town) ?? str(ad.village) ?? str(ad.municipality),
        state: str(ad.state),
        country: str(ad.country) ?? (cc ? (countries.getName(cc, 'en') ?? null) : null),
        countryCode: cc,
        zipcode: str(ad.postcode),
        timezone: Number.isFinite(lat) && Number.isFinite(lon) ? tzLookup(lat, lon) : null,
        lat: Number.isFinite(lat) ? lat : null,
        lon: Number.isFinite(lon) ? lon : null,
        precision: rank >= 26 ? 'address' : rank >= 12 ? 'city' : 'country',
        source,
      };
      return place;
    },
  };
}
