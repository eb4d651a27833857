import { parsePhoneNumberFromString } from '../../lib/phone.js';
import countries from 'i18n-iso-countries';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { badRequest } from '../../lib/errors.js';
import { breachesFor } from '../../providers/breaches/index.js';
import { companyByDomain } from '../../providers/company/index.js';
import type { LookupContext, Source } from '../../providers/core.js';
import { geocoder } from '../../providers/geocode/index.js';
import { geoipProvider } from '../../providers/geoip/index.js';
import { reservedRange } from '../../providers/ip.js';
import { threatProviders } from '../../providers/ip-threats/index.js';
import { phoneProvider } from '../../providers/phone/index.js';
import { sexOffenderSearch, type OffenderQuery } from '../../providers/sex-offender/index.js';
import { socialPresence } from '../../providers/social/index.js';
import { rdapDomain } from '../../providers/whois/rdap.js';
import { cached } from './cache.js';

/** An answer and the sources behind it (named in a header too, since an empty array cannot). */
export interface Answer<T> {
  body: T;
  sources: string[];
}

const answer = <T>(body: T, sources: (Source | string)[]): Answer<T> => ({ body, sources: [...new Set(sources.map((s) => (typeof s === 'string' ? s : s.name)))] });

const IANA = {
  name: 'IANA special-purpose address registries',
  date: null,
  url: 'https://www.iana.org/assignments/iana-ipv4-special-registry',
};

export function checkIp(ip: string): string {
  if (!isIP(ip)) throw badRequest(`ip: '${ip.slice(0, 60)}' is not an IPv4 or IPv6 address`);
  return ip;
}

export function checkEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (e.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@.]+$/.test(e)) throw badRequest(`email: '${email.slice(0, 60)}' is not an e-mail address`);
  return e;
}

export function checkDomain(domain: string): string {
  const d = domainToASCII(domain.trim().toLowerCase().replace(/\.$/, ''));
  if (!d || d.length > 253 || !/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/.test(d) || isIP(d)) {
    throw badRequest(`domain: '${domain.slice(0, 60)}' is not a domain name`);
  }
  return d;
}

export function checkPhone(number: string, field = 'number'): string {
  const phone = parsePhoneNumberFromString(number.trim().replace(/^00/, '+'));
  if (!phone || !phone.isPossible()) throw badRequest(`${field}: '${number.slice(0, 40)}' is not a phone number in international format (+ and the country code, e.g. +14155552671)`);
  return phone.number;
}

export async function lookupPhone(ctx: LookupContext, number: string) {
  const e164 = checkPhone(number);
  const provider = phoneProvider(ctx);
  const r = await cached(ctx, `phone:${provider.name}`, e164, provider.remote, () => provider.lookup(e164, ctx));
  return answer(
    {
      countryCode: r.country,
      phoneNumber: r.e164,
      nationalFormat: r.nationalFormat,
      carrier: { name: r.carrier, type: r.lineType },
      valid: r.valid,
      carrier_is_current: r.carrierIsCurrent,
      location: r.location,
      source: r.source,
    },
    [r.source],
  );
}

export async function lookupSocial(ctx: LookupContext, body: { email?: string | undefined; phoneNumber?: string | undefined }) {
  if (!body.email && !body.phoneNumber) throw badRequest('body: give email, phoneNumber or both');
  const email = body.email ? checkEmail(body.email) : undefined;
  const phone = body.phoneNumber ? checkPhone(body.phoneNumber, 'phoneNumber') : undefined;
  const r = await cached(ctx, 'social', `${email ?? ''}\n${phone ?? ''}`, true, () => socialPresence(ctx, { email, phone }));
  const details = (p: Record<string, boolean | null> | null) => (p ? { accountDetails: Object.fromEntries(Object.entries(p).map(([k, v]) => [k, { registered: v }])) } : {});
  return answer({ phoneNumber: details(r.phone), email: details(r.email), source: r.source }, [r.source]);
}

export async function lookupBreaches(ctx: LookupContext, email: string) {
  const e = checkEmail(email);
  const remote = Boolean(ctx.deps.config.lookups.vendors.hibp);
  const r = await cached(ctx, 'breaches', e, remote, () => breachesFor(ctx, e));
  return answer(
    r.breaches.map((b) => ({ Name: b.name, Domain: b.domain, BreachDate: b.date, source: b.source })),
    r.breaches.length ? r.breaches.map((b) => b.source) : [remote ? 'Have I Been Pwned' : 'imported breach corpus'],
  );
}

export async function lookupWhois(ctx: LookupContext, domain: string) {
  const d = checkDomain(domain);
  const r = await cached(ctx, 'whois', d, true, () => rdapDomain(ctx, d));
  if (!r) return answer([], ['RDAP']);
  return answer([{ server: r.server, data: { domainName: r.domain, registrar: r.registrar, creationDate: r.createdAt, expirationDate: r.expiresAt }, source: r.source }], [r.source]);
}

export async function lookupCompany(ctx: LookupContext, domain: string) {
  const d = checkDomain(domain);
  const r = await cached(ctx, 'company', d, true, () => companyByDomain(ctx, d));
  return answer(
    r.companies.map((c) => ({ name: c.name, country: c.country, industry: c.industry, size: c.size, linkedin_url: c.linkedinUrl, founded: c.founded, source: c.source })),
    [r.source],
  );
}

export async function lookupGeoip(ctx: LookupContext, ip: string) {
  checkIp(ip);
  const reserved = reservedRange(ip);
  if (reserved) {
    const none = { country_code: null, country_name: null, city: null, postal_code: null, time_zone_name: null, latitude: null, longitude: null };
    return answer({ ...none, reserved, note: `${ip} is a ${reserved} address: it has no place on the public internet`, source: IANA }, [IANA]);
  }
  const provider = geoipProvider(ctx);
  const r = await cached(ctx, `geoip:${provider.name}`, ip, provider.remote, () => provider.lookup(ip, ctx));
  return answer(
    {
      country_code: r.country,
      country_name: r.country ? (countries.getName(r.country, 'en') ?? null) : null,
      city: r.city,
      region: r.region,
      postal_code: r.postalCode,
      time_zone_name: r.timeZone,
      latitude: r.latitude,
      longitude: r.longitude,
      reserved: null,
      source: r.source,
    },
    [r.source],
  );
}

export async function lookupIpThreats(ctx: LookupContext, ip: string) {
  checkIp(ip);
  const reserved = reservedRange(ip);
  if (reserved) {
    return answer(
      [
        {
          ip,
          title: `Reserved address (${reserved})`,
          link: IANA.url,
          source: IANA.name,
          source_date: null,
          timestamp: null,
          tags: ['bogon', reserved],
          reasons: [`${ip} is a ${reserved} address: it is not routed on the public internet, so no guest connects from it`],
        },
      ],
      [IANA],
    );
  }
  const providers = threatProviders(ctx);
  const found = await Promise.all(providers.map((p) => cached(ctx, `ip-threats:${p.name}`, ip, p.remote, () => p.lookup(ip, ctx))));
  const findings = found.flat();
  return answer(
    findings.map((f) => ({ ip, title: f.title, link: f.link, source: f.source.name, source_date: f.source.date, timestamp: f.timestamp, tags: f.tags, reasons: f.reasons })),
    findings.length ? findings.map((f) => f.source) : providers.map((p) => (p.name === 'embedded' ? 'imported IP threat feeds' : p.name)),
  );
}

// The 50 states, DC and the territories with registries of their own.
const US_STATES = new Set(
  'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR GU VI AS MP'.split(' '),
);

export async function lookupSexOffender(ctx: LookupContext, q: { fname: string; lname: string; dob: string; state: string }) {
  const dob = new Date(`${q.dob}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(q.dob) || Number.isNaN(dob.getTime()) || dob.toISOString().slice(0, 10) !== q.dob) {
    throw badRequest(`dob: '${q.dob}' is not a date (YYYY-MM-DD)`);
  }
  const state = q.state.toUpperCase();
  if (!US_STATES.has(state)) throw badRequest(`state: '${q.state}' is not a US state code (two letters, e.g. CA)`);
  const query: OffenderQuery = { firstName: q.fname.trim(), lastName: q.lname.trim(), dob: q.dob, state };
  const remote = Boolean(ctx.deps.config.lookups.vendors.offenders_io);
  const r = await cached(ctx, 'sexoffender', JSON.stringify(query), remote, () => sexOffenderSearch(ctx, query));
  return answer(
    {
      items: r.matches.map((m) => ({
        id: m.id,
        name: m.name,
        fname: m.firstName,
        lname: m.lastName,
        city: m.city,
        county: m.county,
        state: m.state,
        zip: m.zip,
        dob: m.dob,
        timestamp: m.registeredAt,
        imageURL: m.imageUrl,
        charge: m.charges,
        aliases: m.aliases,
        explanation: m.explanation,
        source: m.source,
      })),
    },
    r.matches.length ? r.matches.map((m) => m.source) : [remote ? 'sex-offender registry service' : 'imported registry records'],
  );
}

export async function lookupAddress(ctx: LookupContext, address: string) {
  const a = address.trim();
  if (a.length < 2 || a.length > 500) throw badRequest('address: give 2 to 500 characters');
  const provider = geocoder(ctx);
  const p = await cached(ctx, `geocode:${provider.name}`, a.toLowerCase(), provider.remote, () => provider.geocode(a, ctx));
  return answer(
    {
      address: p.address,
      street: p.street,
      city: p.city,
      state: p.state,
      country: p.country,
      country_code: p.countryCode,
      zipcode: p.zipcode,
      timezone: p.timezone,
      geo: { lat: p.lat, lon: p.lon },
      precision: p.precision,
      source: p.source,
    },
    [p.source],
  );
}
