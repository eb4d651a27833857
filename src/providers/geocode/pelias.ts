import tzLookup from '@photostructure/tz-lookup';
import countries from 'i18n-iso-countries';
import type { VendorConfig } from '../../config.js';
import { callVendor, isObject, providerFailed, str, unexpected } from '../core.js';
import type { Geocoder, Place } from './index.js';

/** Pelias layers by how much of an address they place. */
const STREET_LAYERS = new Set(['address', 'venue', 'street']);
const CITY_LAYERS = new Set(['locality', 'localadmin', 'borough', 'neighbourhood', 'county', 'postalcode', 'macrohood']);

/**
 * Pelias `/v1/search` (self-hosted, or geocode.earth with an `api_key`): a GeoJSON feature
 * collection, coordinates as [lon, lat], the country as ISO alpha-3, errors in
 * `geocoding.errors`.
 */
export function peliasGeocoder(vendor: VendorConfig): Geocoder {
  return {
    name: 'pelias',
    remote: true,
    async geocode(address, ctx) {
      const label = 'Pelias';
      const q = new URLSearchParams({ text: address, size: '1', lang: 'en' });
      if (vendor.secrets.API_KEY) q.set('api_key', vendor.secrets.API_KEY);
      const a = await callVendor(ctx, 'pelias', label, `${vendor.url}/v1/search?${q}`);
      const errors = isObject(a.json) && isObject(a.json.geocoding) && Array.isArray(a.json.geocoding.errors) ? a.json.geocoding.errors.filter((e): e is string => typeof e === 'string') : [];
      if (a.status === 401 || a.status === 403) throw providerFailed(label, 'refused the API key');
      if (errors.length) throw providerFailed(label, `refused the query: ${errors.join('; ')}`);
      if (a.status !== 200 || !isObject(a.json) || !Array.isArray(a.json.features)) throw unexpected(label, a);
      const source = { name: label, date: ctx.deps.clock().toISOString(), license: 'data © OpenStreetMap contributors, WhosOnFirst, OpenAddresses, GeoNames (see the server)', url: vendor.url };
      const hit = a.json.features.find(isObject);
      const props = hit && isObject(hit.properties) ? hit.properties : undefined;
      const coords = hit && isObject(hit.geometry) && Array.isArray(hit.geometry.coordinates) ? hit.geometry.coordinates : [];
      if (!props) {
        return { address, street: null, city: null, state: null, country: null, countryCode: null, zipcode: null, timezone: null, lat: null, lon: null, precision: 'none', source };
      }
      const [lon, lat] = coords.map(Number);
      const located = lat !== undefined && lon !== undefined && Number.isFinite(lat) && Number.isFinite(lon);
      const alpha3 = str(props.country_a);
      const cc = str(props.country_code)?.toUpperCase() ?? (alpha3 ? (countries.alpha3ToAlpha2(alpha3) ?? null) : null);
      const layer = str(props.layer) ?? '';
      const street = str(props.street);
      const place: Place = {
        address: str(props.label) ?? address,
        street: street ? [str(props.housenumber), street].filter(Boolean).join(' ') : null,
        city: str(props.locality) ?? str(props.localadmin) ?? str(props.county),
        state: str(props.region),
        country: str(props.country) ?? (cc ? (countries.getName(cc, 'en') ?? null) : null),
        countryCode: cc,
        zipcode: str(props.postalcode),
        timezone: located ? tzLookup(lat, lon) : null,
        lat: located ? lat : null,
        lon: located ? lon : null,
        precision: STREET_LAYERS.has(layer) ? 'address' : CITY_LAYERS.has(layer) ? 'city' : 'country',
        source,
      };
      return place;
    },
  };
}
