import type { VendorConfig } from '../../config.js';
import { callVendor, isObject, notConfigured, providerFailed, str, unexpected, type LookupContext, type Source } from '../core.js';

/** Which platforms know an e-mail or a phone: true, false, or null when the check could not run. */
export type Presence = Record<string, boolean | null>;

export interface SocialReport {
  email: Presence | null;
  phone: Presence | null;
  source: Source;
}

async function seon(ctx: LookupContext, vendor: VendorConfig, kind: 'email' | 'phone', value: string): Promise<Presence> {
  const label = `SEON ${kind} API`;
  const path = kind === 'email' ? `email-api/v3/${encodeURIComponent(value)}` : `phone-api/v2/${encodeURIComponent(value.replace(/^\+/, ''))}`;
  const a = await callVendor(ctx, 'seon', label, `${vendor.url}/${path}`, { headers: { 'x-api-key': vendor.secrets.API_KEY ?? '' } });
  const error = isObject(a.json) && isObject(a.json.error) ? a.json.error : {};
  if (a.status === 401 || a.status === 403) throw providerFailed(label, `refused the license key${str(error.message) ? `: ${str(error.message)}` : ''}`);
  if (a.status !== 200 || !isObject(a.json)) throw unexpected(label, a);
  if (a.json.success === false) throw providerFailed(label, `failed: ${str(error.code) ?? ''} ${str(error.message) ?? ''}`.trim());
  const data = isObject(a.json.data) ? a.json.data : {};
  const accounts = isObject(data.account_details) ? data.account_details : {};
  const out: Presence = {};
  for (const [platform, v] of Object.entries(accounts)) if (isObject(v)) out[platform] = typeof v.registered === 'boolean' ? v.registered : null;
  return out;
}

/** SEON's e-mail and phone APIs (which platforms an address or a number is registered on). */
export async function socialPresence(ctx: LookupContext, input: { email?: string | undefined; phone?: string | undefined }): Promise<SocialReport> {
  const vendor = ctx.deps.config.lookups.vendors.seon;
  if (!vendor) throw notConfigured('social', 'no offline source exists for it; set GUESTSCREEN_SEON_API_KEY');
  const [email, phone] = await Promise.all([input.email ? seon(ctx, vendor, 'email', input.email) : null, input.phone ? seon(ctx, vendor, 'phone', input.phone) : null]);
  return { email, phone, source: { name: 'SEON', date: ctx.deps.clock().toISOString(), url: 'https://seon.io' } };
}
