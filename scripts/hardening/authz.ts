/**
 * The authorization matrix: every operation of the OpenAPI document, each of the eight
 * principals, the owner's objects in the path, against a table of what each principal must get.
 */
import { call } from '../../test/harness.js';
import { minimal, minimalQuery, operations } from './openapi.js';
import { multipartForm, pathFor, PRINCIPALS, probePhoto, UPLOADS, type Principal, type World } from './world.js';

/** What a principal must get: a status, or 'allowed' (any answer below 400, or a lookup's provider error). */
type Expected = number | 'allowed' | 'refused';

export interface AuthzFigures {
  operations: number;
  requests: number;
  matched: number;
  mismatches: string[];
  /** Answers below 400 to a principal other than the owner on a request naming the owner's object. */
  crossTenant: number;
}

export async function authorizationMatrix(w: World): Promise<AuthzFigures> {
  const { doc, ops } = await operations(w.t);
  const catalog = new Map(w.t.app.routeCatalog.map((r) => [`${r.method} ${r.url}`, r]));
  const figures: AuthzFigures = { operations: ops.length, requests: 0, matched: 0, mismatches: [], crossTenant: 0 };
  const photo = await probePhoto();
  // Deletions last, the owner's very last: they take the objects the other requests name.
  const order = [...ops].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  for (const principal of PRINCIPALS.filter((p) => p !== 'owner'))
    await run(
      principal,
      order.filter((o) => o.method !== 'DELETE'),
    );
  for (const principal of PRINCIPALS.filter((p) => p !== 'owner'))
    await run(
      principal,
      order.filter((o) => o.method === 'DELETE'),
    );
  await run('owner', order);
  return figures;

  async function run(principal: Principal, list: typeof ops) {
    for (const op of list) {
      const info = catalog.get(`${op.method} ${op.route}`);
      const namesObject = (/\{(id|file_id)\}/.test(op.path) && !op.path.startsWith('/v1/lookup/')) || op.path.startsWith('/v1/lookup/adverse-media/results/');
      const takesUserId = 'user_id' in op.query;
      let query = minimalQuery(doc, op);
      if (takesUserId && principal !== 'owner') query += `${query ? '&' : '?'}user_id=${w.owner.account.id}`;
      const expected = expect(principal, op.method, op.path, { namesObject: namesObject || takesUserId, resellerOnly: Boolean(info?.resellerOnly) });
      const parts = UPLOADS[`${op.method} ${op.path}`];
      const form = parts ? multipartForm(parts, photo) : undefined;
      const r = await call(w.t, op.method, pathFor(w, op.path) + query, {
        key: w.principals[principal],
        ...(form ? { rawBody: form.payload, headers: form.headers } : { body: op.body ? minimal(doc, op.body) : undefined }),
      });
      figures.requests += 1;
      // Answers past authorization: a lookup without a provider, a webhook already removed, a
      // blocklist edit that would make the entry the twin of one the POST probe made with the same
      // body, and a one-off document read or face comparison with no worker to run it.
      const allowed =
        r.status < 400 ||
        (op.path.startsWith('/v1/lookup/') && r.json?.code === 'provider_error') ||
        (op.method === 'DELETE' && op.path === '/v1/accounts/webhooks' && r.status === 404) ||
        (op.method === 'PUT' && op.path === '/v1/blocklist/{id}' && r.json?.code === 'conflict') ||
        (op.method === 'POST' && (op.path === '/v1/identity/read' || op.path === '/v1/identity/compare') && r.json?.code === 'unavailable');
      const ok = expected === 'allowed' ? allowed : expected === 'refused' ? r.status === 403 || r.status === 404 : r.status === expected;
      if (ok) figures.matched += 1;
      else figures.mismatches.push(`${principal} ${op.method} ${op.path}: ${r.status} (expected ${expected}) ${r.body.slice(0, 120)}`);
      if (principal !== 'owner' && (namesObject || takesUserId) && r.status < 400 && !['missing', 'malformed'].includes(principal)) figures.crossTenant += 1;
    }
  }
}

/** The table: DESIGN.md section 3 written as outcomes. */
function expect(p: Principal, method: string, path: string, o: { namesObject: boolean; resellerOnly: boolean }): Expected {
  if (p === 'missing' || p === 'malformed' || p === 'disabled') return 401;
  if (p === 'suspended') return method === 'GET' && path === '/v1/accounts/me' ? 'allowed' : 403;
  if (p === 'owner') return 'allowed';
  const reseller = p === 'other_reseller';
  if (o.resellerOnly && !reseller) return 403;
  // Another tenant's object: 404 (never 403, which would tell it exists); a child's own requests otherwise pass.
  return o.namesObject ? (reseller ? 404 : 'refused') : 'allowed';
}
