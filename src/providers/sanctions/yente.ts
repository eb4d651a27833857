import type { VendorConfig } from '../../config.js';
import { callVendor, isObject, providerFailed, str, unexpected, type LookupContext } from '../core.js';
import type { SanctionsHit, SanctionsQuery } from './index.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * OpenSanctions yente `/match/{dataset}` (logic-v2): a Person query with the name, the year of
 * birth and the country, its matches at or above 0.70 with yente's own explanation. Older
 * yente answers `features` instead of `explanations`; both are read.
 */
export async function yenteMatch(ctx: LookupContext, vendor: VendorConfig, q: SanctionsQuery): Promise<SanctionsHit[]> {
  const label = 'OpenSanctions yente';
  const properties: Record<string, string[]> = { name: [q.name] };
  if (q.yearOfBirth) properties.birthDate = [String(q.yearOfBirth)];
  if (q.country) properties.nationality = [q.country.toLowerCase()];
  const dataset = vendor.secrets.DATASET ?? 'sanctions';
  const a = await callVendor(ctx, 'yente', label, `${vendor.url}/match/${encodeURIComponent(dataset)}?limit=10&threshold=0.7&algorithm=best`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(vendor.secrets.API_KEY ? { authorization: `ApiKey ${vendor.secrets.API_KEY}` } : {}) },
    body: JSON.stringify({ queries: { q: { schema: 'Person', properties } } }),
  });
  if (a.status === 401 || a.status === 403) throw providerFailed(label, 'refused the API key');
  if (a.status === 404) throw providerFailed(label, `has no dataset '${dataset}'`);
  if (a.status !== 200 || !isObject(a.json) || !isObject(a.json.responses) || !isObject(a.json.responses.q)) throw unexpected(label, a);
  const results = Array.isArray(a.json.responses.q.results) ? a.json.responses.q.results.filter(isObject) : [];
  return results
    .filter((r) => r.match === true || (typeof r.score === 'number' && r.score >= 0.7))
    .map((r) => {
      const p = isObject(r.properties) ? r.properties : {};
      const explanations = isObject(r.explanations) ? r.explanations : isObject(r.features) ? r.features : {};
      const why = Object.entries(explanations)
        .map(([k, v]) =>
          isObject(v)
            ? typeof v.score === 'number' && v.score > 0
              ? `${k} ${v.score.toFixed(2)}${str(v.detail) ? ` (${str(v.detail)})` : ''}`
              : null
            : typeof v === 'number' && v > 0
              ? `${k} ${v.toFixed(2)}`
              : null,
        )
        .filter(Boolean);
      const score = typeof r.score === 'number' ? Math.round(r.score * 100) / 100 : 0;
      const caption = str(r.caption) ?? strings(p.name)[0] ?? 'unnamed';
      return {
        source: `OpenSanctions (${strings(r.datasets).join(', ') || dataset})`,
        entryId: str(r.id) ?? caption,
        listedName: caption,
        primaryName: caption,
        kind: 'individual',
        programs: strings(p.program).length ? strings(p.program) : strings(p.topics),
        birthYears: [
          ...new Set(
            strings(p.birthDate)
              .map((d) => Number(d.slice(0, 4)))
              .filter((y) => Number.isInteger(y)),
          ),
        ],
        countries: [...new Set([...strings(p.country), ...strings(p.nationality)].map((c) => c.toUpperCase()))],
        dataDate: str(r.last_change)?.slice(0, 10) ?? ctx.deps.clock().toISOString().slice(0, 10),
        score,
        explanation: `'${q.name}' matched '${caption}': yente score ${score.toFixed(2)}${why.length ? ` (${why.join(', ')})` : ''}`,
      };
    });
}
