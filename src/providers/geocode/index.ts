import type { LookupContext, Source } from '../core.js';
import { embeddedGeocoder } from './embedded.js';
import { nominatimGeocoder } from './nominatim.js';
import { peliasGeocoder } from './pelias.js';

/** Where an address is, in our terms. `precision` says how much of it was placed. */
export interface Place {
  address: string;
  street: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  countryCode: string | null;
  zipcode: string | null;
  timezone: string | null;
  lat: number | null;
  lon: number | null;
  /** 'address' (a street or house), 'city', 'country', or 'none' when nothing matched. */
  precision: 'address' | 'city' | 'country' | 'none';
  source: Source;
}

export interface Geocoder {
  name: string;
  remote: boolean;
  geocode(address: string, ctx: LookupContext): Promise<Place>;
}

/** A Nominatim or a Pelias server when its URL is set (in that order), else the world's cities offline. */
export function geocoder(ctx: LookupContext): Geocoder {
  const { nominatim, pelias } = ctx.deps.config.lookups.vendors;
  if (nominatim) return nominatimGeocoder(nominatim, ctx.deps.config.lookups.nominatimEmail);
  return pelias ? peliasGeocoder(pelias) : embeddedGeocoder;
}
