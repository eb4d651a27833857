import type { VendorConfig } from '../../config.js';
import { whoisDomain } from './port43.js';
import { callVendor, isObject, notConfigured, providerFailed, str, unexpected, type LookupContext, type Source } from '../core.js';

/** A domain's registration, in our terms. */
export interface DomainRecord {
  domain: string;
  /** The RDAP server that answered. */
  server: string;
  registrar: string | null;
  createdAt: string | null;
  expiresAt: string | null;
  /** The registrant, when the registry publishes it (organisations usually, people rarely). */
  registrant: { name: string | null; organisation: string | null; country: string | null } | null;
  source: Source;
}

const DAY = 86_400_000;
const bootstraps = new Map<string, { at: number; services: [string[], string[]][] }>();

/** IANA's RDAP bootstrap file (RFC 9224), fetched once a day. */
async function bootstrap(ctx: LookupContext, vendor: VendorConfig) {
  const now = ctx.deps.clock().getTime();
  const cached = bootstraps.get(vendor.url);
  if (cached && now - cached.at < DAY) return cached.services;
  const a = await callVendor(ctx, 'rdap', 'the RDAP bootstrap file', vendor.url);
  if (a.status !== 200 || !isObject(a.json) || !Array.isArray(a.json.services)) throw unexpected('the RDAP bootstrap file', a);
  const services = a.json.services.filter((s): s is [string[], string[]] => Array.isArray(s) && Array.isArray(s[0]) && Array.isArray(s[1]));
  bootstraps.set(vendor.url, { at: now, services });
  return services;
}

/** The base URL for a domain: the longest label suffix listed, HTTPS preferred. */
function serverFor(services: [string[], string[]][], domain: string): string | undefined {
  const labels = domain.split('.');
  for (let i = 1; i < labels.length; i++) {
    const suffix = labels.slice(i).join('.');
    const hit = services.find(([tlds]) => tlds.some((t) => t.toLowerCase() === suffix));
    if (hit) return hit[1].find((u) => u.startsWith('https://')) ?? hit[1][0];
  }
  return undefined;
}

type VCard = [string, Record<string, unknown>, string, unknown][];
const vcardField = (entity: Record<string, unknown>, field: string): string | null => {
  const card = Array.isArray(entity.vcardArray) && Array.isArray(entity.vcardArray[1]) ? (entity.vcardArray[1] as VCard) : [];
  const hit = card.find((f) => Array.isArray(f) && f[0] === field);
  if (!hit) return null;
  if (field === 'adr') {
    const label = isObject(hit[1]) ? str(hit[1]['cc']) : null;
    const parts = Array.isArray(hit[3]) ? hit[3] : [];
    return label ?? str(parts[6]);
  }
  return str(hit[3]);
};

function entitiesWithRole(body: Record<string, unknown>, role: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (list: unknown) => {
    for (const e of Array.isArray(list) ? list.filter(isObject) : []) {
      if (Array.isArray(e.roles) && e.roles.includes(role)) out.push(e);
      walk(e.entities);
    }
  };
  walk(body.entities);
  return out;
}

/**
 * RDAP (RFC 9082/9083): the registry's server from the bootstrap file, then the domain, or WHOIS
 * over port 43 for a top-level domain that has no RDAP server. Not registered: null.
 */
export async function rdapDomain(ctx: LookupContext, domain: string): Promise<DomainRecord | null> {
  const vendor = ctx.deps.config.lookups.vendors.rdap;
  if (!vendor) throw notConfigured('whois', 'RDAP is switched off (GUESTSCREEN_RDAP_ENABLED=false)');
  const base = serverFor(await bootstrap(ctx, vendor), domain);
  if (!base) {
    // Some registries (several country codes) still answer only WHOIS over port 43.
    const whois = ctx.deps.config.lookups.whois;
    if (whois) return whoisDomain(ctx, whois, domain);
    throw providerFailed('RDAP', `has no server for the top-level domain of ${domain}`);
  }
  const label = `RDAP server ${new URL(base).host}`;
  const a = await callVendor(ctx, 'rdap', label, `${base.replace(/\/?$/, '/')}domain/${encodeURIComponent(domain)}`, { headers: { accept: 'application/rdap+json, application/json' } });
  if (a.status === 404) return null;
  if (a.status !== 200 || !isObject(a.json)) throw unexpected(label, a);
  const body = a.json;
  const events = Array.isArray(body.events) ? body.events.filter(isObject) : [];
  const event = (action: string) => str(events.find((e) => e.eventAction === action)?.eventDate);
  const registrar = entitiesWithRole(body, 'registrar')[0];
  const registrant = entitiesWithRole(body, 'registrant')[0];
  return {
    domain: (str(body.ldhName) ?? domain).toLowerCase(),
    server: str(body.port43) ?? new URL(base).host,
    registrar: registrar ? vcardField(registrar, 'fn') : null,
    createdAt: event('registration'),
    expiresAt: event('expiration'),
    registrant: registrant ? { name: vcardField(registrant, 'fn'), organisation: vcardField(registrant, 'org'), country: vcardField(registrant, 'adr') } : null,
    source: { name: 'RDAP', date: ctx.deps.clock().toISOString(), url: base },
  };
}
