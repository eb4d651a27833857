import { createHash } from 'node:crypto';
import type { Db } from '../../db/connection.js';
import type { Deps } from '../../deps.js';
import { badRequest } from '../../lib/errors.js';
import { iso } from '../../lib/time.js';
import { sniffType } from '../guests/index.js';
import * as bookings from '../bookings/index.js';
import { readSetting, writeSetting } from '../settings/index.js';

/**
 * What the guest sees of the host: the name, logo and accent colour on the portal and in
 * messages, and the house rules and rental agreement the guest accepts. Set per account, and per
 * listing where a listing differs: a listing's field, when set, wins over the account's.
 */
export interface Terms {
  text: string;
  updated_at: string;
}
export interface Logo {
  content_type: string;
  /** Base64. */
  data: string;
}
export interface HostProfile {
  display_name: string | null;
  accent_color: string | null;
  logo: Logo | null;
  house_rules: Terms | null;
  usage_agreement: Terms | null;
}

/** A change: a field given replaces, null clears, one left out stays. */
export interface HostProfileInput {
  display_name?: string | null | undefined;
  accent_color?: string | null | undefined;
  /** A data URL: data:image/png;base64,… */
  logo?: string | null | undefined;
  house_rules?: string | null | undefined;
  usage_agreement?: string | null | undefined;
}

export const EMPTY_PROFILE: HostProfile = { display_name: null, accent_color: null, logo: null, house_rules: null, usage_agreement: null };
export const MAX_LOGO_BYTES = 256 * 1024;
const ACCOUNT_KEY = 'host_profile';
const FIELDS = ['display_name', 'accent_color', 'logo', 'house_rules', 'usage_agreement'] as const;

/** A listing's own profile as its row keeps it (JSON, or null for none). */
export const storedProfile = (json: string | null | undefined): HostProfile => ({ ...EMPTY_PROFILE, ...(json ? (JSON.parse(json) as Partial<HostProfile>) : {}) });

/** The version a guest accepted: the first 16 hex digits of the text's SHA-256. */
export const termsVersion = (t: Terms) => createHash('sha256').update(t.text).digest('hex').slice(0, 16);

export async function accountProfile(db: Db, accountId: string): Promise<HostProfile> {
  const stored = (await readSetting(db, accountId, ACCOUNT_KEY)) as Partial<HostProfile> | undefined;
  return { ...EMPTY_PROFILE, ...stored };
}

export async function listingProfile(db: Db, accountId: string, listingId: string): Promise<HostProfile> {
  return storedProfile((await bookings.findListing(db, accountId, listingId))?.profile);
}

/** What the guest of a booking sees: the listing's fields over the account's. */
export async function effectiveProfile(db: Db, accountId: string, listingId: string | null): Promise<HostProfile> {
  const account = await accountProfile(db, accountId);
  if (!listingId) return account;
  const listing = await listingProfile(db, accountId, listingId);
  return Object.fromEntries(FIELDS.map((f) => [f, listing[f] ?? account[f]])) as unknown as HostProfile;
}

function readLogo(dataUrl: string): Logo {
  const m = /^data:(image\/(?:png|jpeg|webp));base64,([A-Za-z0-9+/]+={0,2})$/.exec(dataUrl);
  if (!m) throw badRequest('logo: must be a data URL of a PNG, JPEG or WebP image (data:image/png;base64,…)');
  const bytes = Buffer.from(m[2]!, 'base64');
  if (bytes.length > MAX_LOGO_BYTES) throw badRequest(`logo: at most ${MAX_LOGO_BYTES / 1024} KB`);
  const type = sniffType(bytes);
  if (!type?.startsWith('image/') || type === 'image/heic' || type === 'image/bmp') throw badRequest('logo: the data is not a PNG, JPEG or WebP image');
  return { content_type: type, data: m[2]! };
}

/** Applies a change to a profile; texts changed get today's version date. */
function applyChange(deps: Deps, current: HostProfile, b: HostProfileInput): HostProfile {
  const now = iso(deps.clock());
  const next = { ...current };
  if (b.display_name !== undefined) next.display_name = b.display_name?.trim() || null;
  if (b.accent_color !== undefined) next.accent_color = b.accent_color ? b.accent_color.toLowerCase() : null;
  if (b.logo !== undefined) next.logo = b.logo ? readLogo(b.logo) : null;
  for (const k of ['house_rules', 'usage_agreement'] as const) {
    const text = b[k] === undefined ? undefined : b[k]?.replace(/\r\n/g, '\n').trim() || null;
    if (text === undefined) continue;
    next[k] = text === null ? null : current[k]?.text === text ? current[k] : { text, updated_at: now };
  }
  return next;
}

export async function writeAccountProfile(deps: Deps, accountId: string, b: HostProfileInput): Promise<HostProfile> {
  const next = applyChange(deps, await accountProfile(deps.db, accountId), b);
  await writeSetting(deps.db, accountId, ACCOUNT_KEY, next, iso(deps.clock()));
  return next;
}

export async function writeListingProfile(deps: Deps, accountId: string, listingId: string, b: HostProfileInput): Promise<HostProfile> {
  const next = applyChange(deps, await listingProfile(deps.db, accountId, listingId), b);
  const empty = FIELDS.every((f) => next[f] === null);
  await bookings.saveListingInfo(deps.db, accountId, listingId, { profile: empty ? null : JSON.stringify(next) }, iso(deps.clock()));
  return next;
}

/** The profile as the API shows it: the logo as a data URL, each text with the date of its version. */
export function profileView(p: HostProfile) {
  return {
    display_name: p.display_name,
    accent_color: p.accent_color,
    logo: p.logo ? `data:${p.logo.content_type};base64,${p.logo.data}` : null,
    house_rules: p.house_rules?.text ?? null,
    house_rules_version: p.house_rules ? { version: termsVersion(p.house_rules), updated_at: p.house_rules.updated_at } : null,
    usage_agreement: p.usage_agreement?.text ?? null,
    usage_agreement_version: p.usage_agreement ? { version: termsVersion(p.usage_agreement), updated_at: p.usage_agreement.updated_at } : null,
  };
}
