import type { VendorConfig } from '../../config.js';
import { callVendor, isObject, providerFailed, str, unexpected, type LookupContext, type Source } from '../core.js';
import { rdapDomain } from '../whois/rdap.js';

/** A company behind a domain, in our terms. */
export interface Company {
  name: string;
  country: string | null;
  industry: string | null;
  size: string | null;
  linkedinUrl: string | null;
  founded: string | null;
  source: Source;
}

/** People Data Labs company enrichment; 404 means no company is known for the domain. */
async function pdlCompany(ctx: LookupContext, vendor: VendorConfig, domain: string): Promise<Company[]> {
  const label = 'People Data Labs';
  const a = await callVendor(ctx, 'pdl', label, `${vendor.url}/company/enrich?website=${encodeURIComponent(domain)}`, { headers: { 'x-api-key': vendor.secrets.API_KEY ?? '' } });
  const error = isObject(a.json) && isObject(a.json.error) ? a.json.error : undefined;
  if (a.status === 404) return [];
  if (a.status === 401 || a.status === 402 || a.status === 403) throw providerFailed(label, `refused the request: ${str(error?.type) ?? a.status} ${str(error?.message) ?? ''}`.trim());
  if (a.status !== 200 || !isObject(a.json)) throw unexpected(label, a);
  const b = a.json;
  const location = isObject(b.location) ? b.location : {};
  const linkedin = str(b.linkedin_url);
  return [
    {
      name: str(b.display_name) ?? str(b.name) ?? domain,
      country: str(location.country),
      industry: str(b.industry),
      size: str(b.size),
      linkedinUrl: linkedin ? (linkedin.startsWith('http') ? linkedin : `https://${linkedin}`) : null,
      founded: str(b.founded),
      source: { name: 'People Data Labs', date: ctx.deps.clock().toISOString(), url: 'https://www.peopledatalabs.com' },
    },
  ];
}

/**
 * Clearbit's Company API, for accounts that still hold a key (Clearbit issues no new ones).
 * 404 is an unknown company; 202 means Clearbit has queued the lookup and will know in a few
 * minutes, which is passed on as a provider error with Retry-After rather than as "none".
 */
async function clearbitCompany(ctx: LookupContext, vendor: VendorConfig, domain: string): Promise<Company[]> {
  const label = 'Clearbit';
  const a = await callVendor(ctx, 'clearbit', label, `${vendor.url}/v2/companies/find?domain=${encodeURIComponent(domain)}`, { headers: { authorization: `Bearer ${vendor.secrets.API_KEY ?? ''}` } });
  const error = isObject(a.json) && isObject(a.json.error) ? a.json.error : undefined;
  if (a.status === 404) return [];
  if (a.status === 202) throw providerFailed(label, `is still looking ${domain} up; try again in a few minutes`, 180);
  if (a.status === 401 || a.status === 402 || a.status === 403) throw providerFailed(label, `refused the request: ${str(error?.type) ?? a.status} ${str(error?.message) ?? ''}`.trim());
  if (a.status !== 200 || !isObject(a.json)) throw unexpected(label, a);
  const b = a.json;
  const geo = isObject(b.geo) ? b.geo : {};
  const category = isObject(b.category) ? b.category : {};
  const metrics = isObject(b.metrics) ? b.metrics : {};
  const linkedin = isObject(b.linkedin) ? str(b.linkedin.handle) : null;
  return [
    {
      name: str(b.name) ?? str(b.legalName) ?? domain,
      country: str(geo.country),
      industry: str(category.industry) ?? str(category.sector),
      size: str(metrics.employeesRange) ?? str(metrics.employees),
      linkedinUrl: linkedin ? `https://www.linkedin.com/${linkedin}` : null,
      founded: str(b.foundedYear),
      source: { name: label, date: ctx.deps.clock().toISOString(), url: 'https://clearbit.com' },
    },
  ];
}

/**
 * People Data Labs or Clearbit when configured (in that order); else the registrant
 * organisation that RDAP publishes (most registries hide people, not companies).
 */
export async function companyByDomain(ctx: LookupContext, domain: string): Promise<{ companies: Company[]; remote: boolean; source: Source }> {
  const { pdl, clearbit } = ctx.deps.config.lookups.vendors;
  if (pdl) {
    const companies = await pdlCompany(ctx, pdl, domain);
    return { companies, remote: true, source: { name: 'People Data Labs', date: ctx.deps.clock().toISOString() } };
  }
  if (clearbit) {
    const companies = await clearbitCompany(ctx, clearbit, domain);
    return { companies, remote: true, source: { name: 'Clearbit', date: ctx.deps.clock().toISOString() } };
  }
  const record = await rdapDomain(ctx, domain);
  const org = record?.registrant?.organisation ?? null;
  const source = record?.source ?? { name: 'RDAP', date: ctx.deps.clock().toISOString() };
  const companies: Company[] = org ? [{ name: org, country: record?.registrant?.country ?? null, industry: null, size: null, linkedinUrl: null, founded: null, source }] : [];
  return { companies, remote: true, source };
}
