import type { VendorConfig } from '../../config.js';
import { callVendor, isObject, notConfigured, providerFailed, str, unexpected, type LookupContext, type Source } from '../core.js';
import * as store from './store.js';

/** One breach an e-mail address appeared in, in our terms. */
export interface Breach {
  name: string;
  domain: string | null;
  date: string | null;
  source: Source;
}

/** Digest under which an imported breach record is found (the corpus never holds the address). */
export const emailDigest = (ctx: LookupContext, email: string) => ctx.deps.secrets.digest(email.trim().toLowerCase(), 'breach-email');

/** Have I Been Pwned v3: 404 means "not pwned", an answer and not an error. */
async function hibp(ctx: LookupContext, vendor: VendorConfig, email: string): Promise<Breach[]> {
  const label = 'Have I Been Pwned';
  const a = await callVendor(ctx, 'hibp', label, `${vendor.url}/breachedaccount/${encodeURIComponent(email)}?truncateResponse=false`, {
    headers: { 'hibp-api-key': vendor.secrets.API_KEY ?? '' },
  });
  if (a.status === 404) return [];
  if (a.status === 401 || a.status === 403) throw providerFailed(label, `refused the request: ${a.text.slice(0, 200) || a.status}`);
  if (a.status !== 200 || !Array.isArray(a.json)) throw unexpected(label, a);
  const source = { name: label, date: ctx.deps.clock().toISOString(), license: 'CC BY 4.0', url: 'https://haveibeenpwned.com' };
  return a.json.filter(isObject).map((b) => ({ name: str(b.Name) ?? 'unnamed breach', domain: str(b.Domain), date: str(b.BreachDate), source }));
}

/** The breach corpus an operator imported with `guestscreen data import breaches`. */
async function corpus(ctx: LookupContext, email: string): Promise<Breach[] | null> {
  const rows = await store.breachesOf(ctx.deps.db, emailDigest(ctx, email));
  if (rows.length === 0 && !(await store.hasRecords(ctx.deps.db))) return null;
  return rows.map((r) => ({ name: r.name, domain: r.domain || null, date: r.breach_date, source: { name: r.source, date: r.imported_at.slice(0, 10) } }));
}

export async function breachesFor(ctx: LookupContext, email: string): Promise<{ breaches: Breach[]; remote: boolean }> {
  const vendor = ctx.deps.config.lookups.vendors.hibp;
  if (vendor) return { breaches: await hibp(ctx, vendor, email), remote: true };
  const found = await corpus(ctx, email);
  if (!found) throw notConfigured('breaches', 'set GUESTSCREEN_HIBP_API_KEY, or import a breach corpus with `guestscreen data import breaches FILE`');
  return { breaches: found, remote: false };
}
