import type { VendorConfig } from '../../config.js';
import { callVendor, isObject, providerFailed, str, unexpected, type LookupContext } from '../core.js';
import { SANCTIONS_THRESHOLD, type SanctionsHit, type SanctionsQuery } from './index.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const objects = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

/**
 * moov watchman v2 `/v2/search` (self-hosted, no key): people named like the query, scored by
 * watchman at or above the threshold the embedded lists use. Watchman compares birth dates, not
 * years, so a listed person born more than a year apart from the query is left out here, as the
 * embedded search does; the pieces watchman scored are the explanation.
 */
export async function watchmanSearch(ctx: LookupContext, vendor: VendorConfig, q: SanctionsQuery): Promise<SanctionsHit[]> {
  const label = 'moov watchman';
  const params = new URLSearchParams({ type: 'person', name: q.name, limit: '10', minMatch: String(SANCTIONS_THRESHOLD) });
  const a = await callVendor(ctx, 'watchman', label, `${vendor.url}/v2/search?${params}`);
  if (a.status === 400) throw providerFailed(label, `refused the query: ${isObject(a.json) ? (str(a.json.error) ?? a.text) : a.text}`.slice(0, 300));
  if (a.status !== 200 || !isObject(a.json)) throw unexpected(label, a);
  const hits: SanctionsHit[] = [];
  for (const e of objects(a.json.entities)) {
    const person = isObject(e.person) ? e.person : {};
    const name = str(e.name) ?? str(person.name) ?? 'unnamed';
    const score = typeof e.match === 'number' ? Math.round(e.match * 100) / 100 : 0;
    if (score < SANCTIONS_THRESHOLD) continue;
    const born = str(person.birthDate);
    const birthYears = born && /^\d{4}/.test(born) ? [Number(born.slice(0, 4))] : [];
    if (q.yearOfBirth && birthYears.length && !birthYears.some((y) => Math.abs(y - (q.yearOfBirth as number)) <= 1)) continue;
    const countries = [
      ...new Set(
        [...objects(person.governmentIDs).map((g) => str(g.country)), ...objects(e.addresses).map((ad) => str(ad.country))]
          .filter((c): c is string => !!c && c.length === 2)
          .map((c) => c.toUpperCase()),
      ),
    ];
    const evidence: string[] = [];
    if (q.yearOfBirth && birthYears.length) evidence.push(`year of birth ${q.yearOfBirth} listed`);
    if (q.country && countries.includes(q.country.toUpperCase())) evidence.push(`country ${q.country.toUpperCase()} listed`);
    const pieces = objects(isObject(e.details) ? e.details.pieces : undefined)
      .filter((p) => p.matched === true && typeof p.score === 'number')
      .map((p) => `${str(p.pieceType) ?? 'piece'} ${(p.score as number).toFixed(2)}${p.exact === true ? ' exact' : ''}`);
    const sanctions = isObject(e.sanctionsInfo) ? e.sanctionsInfo : {};
    const list = str(e.sourceList) ?? 'list';
    hits.push({
      source: `moov watchman (${list})`,
      entryId: str(e.sourceID) ?? name,
      listedName: name,
      primaryName: name,
      kind: str(e.entityType) === 'person' ? 'individual' : (str(e.entityType) ?? 'individual'),
      programs: strings(sanctions.programs),
      birthYears,
      countries,
      dataDate: ctx.deps.clock().toISOString().slice(0, 10),
      score,
      explanation: `'${q.name}' matched '${name}': watchman score ${score.toFixed(2)}${pieces.length ? ` (${pieces.join(', ')})` : ''}${evidence.length ? `; ${evidence.join(', ')}` : ''}`,
    });
  }
  return hits;
}
