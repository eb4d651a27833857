import type { VendorName } from '../config.js';
import type { Deps } from '../deps.js';
import { AppError } from '../lib/errors.js';
import { OutboundRefused, requestOutbound } from '../lib/outbound.js';
import { iso } from '../lib/time.js';
import { countCall } from './store.js';

/** Where an answer came from, named beside the spec's fields of every lookup. */
export interface Source {
  name: string;
  /** Date of the data (a database's build, an import, or the time a service answered). */
  date: string | null;
  license?: string;
  url?: string;
}

/** What a provider call may use: the service, and the account it is made for (its quota). */
export interface LookupContext {
  deps: Deps;
  accountId: string;
}

/** The lookup cannot answer: no provider is configured for it. */
export const notConfigured = (lookup: string, how: string) => new AppError('provider_error', `${lookup} lookup is not available: ${how}`);

/** A provider failed or refused; a rate limit carries the provider's Retry-After. */
export const providerFailed = (vendor: string, problem: string, retryAfterSeconds?: number) =>
  new AppError('provider_error', `${vendor} ${problem}`, retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) });

export interface VendorAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  text: string;
}

/**
 * Vendors whose calls cost nothing, so the account's quota does not count them (yente and Pelias
 * are counted: their hosted APIs are paid; watchman is only ever self-hosted).
 */
const FREE_VENDORS = new Set<VendorName>(['rdap', 'nominatim', 'gdelt', 'watchman']);

/** Counts a call to a paid provider against the account's daily quota; 429 once it is used up. */
async function spendQuota(ctx: LookupContext): Promise<void> {
  const { deps } = ctx;
  const quota = deps.config.lookups.quotaPerDay;
  if (quota === 0) return;
  const now = deps.clock();
  const day = iso(now).slice(0, 10);
  if ((await countCall(deps.db, ctx.accountId, day)) > quota) {
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const wait = Math.ceil((midnight - now.getTime()) / 1000);
    throw new AppError('rate_limited', `this account used its ${quota} paid lookups for today (UTC); the quota resets at midnight UTC`, { 'retry-after': String(wait) });
  }
}

/**
 * One request to a provider, through the outbound guard (no private targets unless allowed,
 * no redirects, 10 s, 1 MiB). Unreachable, 5xx and 429 become a provider error here; every
 * other status is the adapter's to read, since "not found" differs from vendor to vendor.
 */
export async function callVendor(
  ctx: LookupContext,
  vendor: VendorName,
  label: string,
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<VendorAnswer> {
  const { deps } = ctx;
  if (!FREE_VENDORS.has(vendor)) await spendQuota(ctx);
  let res;
  try {
    res = await requestOutbound(
      init.method ?? 'GET',
      url,
      { headers: { accept: 'application/json', 'user-agent': `guestscreen/1 (+${deps.config.publicUrl})`, ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }) },
      { allowPrivate: deps.config.allowPrivateTargets, timeoutMs: init.timeoutMs ?? 10_000, maxResponseBytes: 1024 * 1024 },
    );
  } catch (err) {
    // A query string may carry a key (some vendors take it there): never repeat it.
    const why = (err as Error).name === 'TimeoutError' && !(err instanceof OutboundRefused) ? `timed out after ${(init.timeoutMs ?? 10_000) / 1000} s` : (err as Error).message.replace(/\?\S*/g, '');
    throw providerFailed(label, `could not be reached: ${why}`);
  }
  if (res.status === 429) {
    const after = Number(res.headers['retry-after']);
    throw providerFailed(label, 'rate limit reached; try again later', Number.isFinite(after) && after > 0 ? Math.ceil(after) : 60);
  }
  if (res.status >= 500) throw providerFailed(label, `failed with HTTP ${res.status}`);
  if (res.truncated) throw providerFailed(label, 'answered more than 1 MiB');
  let json: unknown;
  try {
    json = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text: res.body };
}

/** Basic authorization header value. */
export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A vendor's answer the adapter did not expect: its status and the start of its body. */
export const unexpected = (label: string, a: VendorAnswer) => providerFailed(label, `answered HTTP ${a.status}: ${a.text.slice(0, 200) || '(empty body)'}`);

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);
