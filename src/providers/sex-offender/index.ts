import type { VendorConfig } from '../../config.js';
import { matchName, NAME_THRESHOLD } from '../../lib/names/match.js';
import * as store from './store.js';
import { callVendor, isObject, notConfigured, str, unexpected, type LookupContext, type Source } from '../core.js';

export interface OffenderQuery {
  firstName: string;
  lastName: string;
  /** YYYY-MM-DD */
  dob: string;
  /** Two-letter US state code. */
  state: string;
}

/** A registry record that may be the person asked about: for a human to review, never a verdict. */
export interface OffenderMatch {
  id: string;
  name: string;
  firstName: string;
  lastName: string;
  city: string | null;
  county: string | null;
  state: string;
  zip: string | null;
  dob: string | null;
  registeredAt: string | null;
  imageUrl: string | null;
  charges: string[];
  aliases: string[];
  /** Why it matched: which name matched which, how closely, and what else agreed. */
  explanation: string;
  source: Source;
}

/**
 * The imported registry records (`guestscreen data import sex-offenders`) with the same state
 * and date of birth whose name or an alias is close to the one asked about.
 */
async function imported(ctx: LookupContext, q: OffenderQuery): Promise<OffenderMatch[] | null> {
  const rows = await store.recordsBornOn(ctx.deps.db, q.state, q.dob);
  if (rows.length === 0 && !(await store.hasRecords(ctx.deps.db))) return null;
  const asked = `${q.firstName} ${q.lastName}`;
  const out: OffenderMatch[] = [];
  for (const r of rows) {
    const aliases = JSON.parse(r.aliases) as string[];
    const names = [`${r.first_name} ${r.last_name}`, ...aliases];
    const scored = names.map((n) => ({ n, ...matchName(asked, n) })).sort((a, b) => b.score - a.score)[0];
    if (!scored || scored.score < NAME_THRESHOLD) continue;
    out.push({
      id: r.id,
      name: `${r.first_name} ${r.last_name}`,
      firstName: r.first_name,
      lastName: r.last_name,
      city: r.city,
      county: r.county,
      state: r.state,
      zip: r.zip,
      dob: r.dob,
      registeredAt: r.registered_at,
      imageUrl: r.image_url,
      charges: JSON.parse(r.charges) as string[],
      aliases,
      explanation: `${scored.explanation.replace(/^('(?:[^']|'(?! matched))*' matched )/, `$1${scored.n === names[0] ? 'registered name' : 'alias'} `)}; date of birth ${q.dob} and state ${q.state} equal`,
      source: { name: r.source, date: r.imported_at.slice(0, 10) },
    });
  }
  return out;
}

/** An offenders.io-style registry aggregator. */
async function aggregator(ctx: LookupContext, vendor: VendorConfig, q: OffenderQuery): Promise<OffenderMatch[]> {
  const label = 'the sex-offender registry service';
  const params = new URLSearchParams({ key: vendor.secrets.API_KEY ?? '', firstName: q.firstName, lastName: q.lastName, dob: q.dob, state: q.state });
  const a = await callVendor(ctx, 'offenders_io', label, `${vendor.url}/sexoffender?${params}`);
  if (a.status !== 200 || !isObject(a.json) || !Array.isArray(a.json.offenders)) throw unexpected(label, a);
  const source = { name: new URL(vendor.url).host, date: ctx.deps.clock().toISOString() };
  return a.json.offenders.filter(isObject).map((o, i) => {
    const first = str(o.firstName) ?? '';
    const last = str(o.lastName) ?? '';
    const name = str(o.name) ?? `${first} ${last}`.trim();
    return {
      id: str(o.id) ?? str(o.offenderUrl) ?? `${source.name}-${i}`,
      name,
      firstName: first,
      lastName: last,
      city: str(o.city),
      county: str(o.county),
      state: str(o.state) ?? q.state,
      zip: str(o.zipcode),
      dob: str(o.dob),
      registeredAt: str(o.registrationDate),
      imageUrl: str(o.offenderImageUrl),
      charges: [str(o.crime)].filter((c): c is string => c !== null),
      aliases: Array.isArray(o.aliases) ? o.aliases.filter((x): x is string => typeof x === 'string') : [],
      explanation: `returned by ${source.name} for ${q.firstName} ${q.lastName}, born ${q.dob}, in ${q.state} (name match ${matchName(`${q.firstName} ${q.lastName}`, name).score.toFixed(2)})`,
      source,
    };
  });
}

export async function sexOffenderSearch(ctx: LookupContext, q: OffenderQuery): Promise<{ matches: OffenderMatch[]; remote: boolean }> {
  const vendor = ctx.deps.config.lookups.vendors.offenders_io;
  if (vendor) return { matches: await aggregator(ctx, vendor, q), remote: true };
  const found = await imported(ctx, q);
  if (!found) {
    throw notConfigured('sex-offender', 'import registry records with `guestscreen data import sex-offenders FILE`, or set GUESTSCREEN_OFFENDERS_IO_API_KEY');
  }
  return { matches: found, remote: false };
}
