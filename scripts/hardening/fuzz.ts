/**
 * Property-based fuzzing from the OpenAPI document: requests built from each operation's
 * schemas (fast-check), then broken in the ways an attacker or a careless client breaks them.
 * What counts: answers of 500 and above that are not a lookup's provider error (DESIGN.md
 * section 7 answers those 500 on purpose), and requests that get no answer within 10 s.
 */
import fc from 'fast-check';
import { minimal, operations, resolve, type OpenApiDoc, type Operation, type Schema } from './openapi.js';
import { pathFor, type World } from './world.js';

export interface FuzzFigures {
  requests: number;
  byStatus: Record<string, number>;
  /** 5xx other than a lookup's provider_error. */
  unexpected5xx: number;
  providerErrors: number;
  hangs: number;
  examples: string[];
}

/** Numbers JSON can carry but no column can: written into the body's text as they are. */
const RAW_NUMBERS = ['1e309', '-1e309', '99999999999999999999', '-99999999999999999999', '1e-400', '-0', '0.5', '123456789012345678901234567890'];
const RAW = '\u0001raw:';

const nastyString = fc.oneof(
  fc.constantFrom(
    'a\u0000b',
    '\u0000',
    '\ud800',
    'x\udfffy',
    '\uffff',
    '\ufdd0',
    '\u{10ffff}',
    '%00',
    '\u202e\u200b\u0301',
    '😀'.repeat(50),
    "'; drop table reservations; --",
    '../../etc/passwd',
    '<script>alert(1)</script>',
    '{{7*7}}',
    '${7*7}',
  ),
  fc.constantFrom(10_000, 100_000, 900_000).map((n) => 'x'.repeat(n)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);
const nastyNumber = fc.oneof(
  fc.constantFrom(...RAW_NUMBERS).map((n) => `${RAW}${n}`),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -1, 0, 1e300, -1e300, 4.9e-324),
);
const wrongType = fc.oneof(fc.constant(null), fc.constant([]), fc.constant({}), fc.constant(true), fc.jsonValue({ maxDepth: 3 }));

/** A value for a schema: mostly what it accepts, sometimes an extreme of it. */
function valueOf(doc: OpenApiDoc, schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(doc, schema);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf) return fc.oneof(...s.anyOf.map((x) => valueOf(doc, x, depth)));
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  switch (type) {
    case 'object': {
      if (depth > 4 || !s.properties) return fc.constant({});
      const entries = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, valueOf(doc, v, depth + 1)]));
      return fc.record(entries, { requiredKeys: s.required ?? [] });
    }
    case 'array':
      return fc.array(valueOf(doc, s.items ?? {}, depth + 1), { maxLength: 4 });
    case 'integer':
      return fc.oneof(fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 100_000 }), fc.constantFrom(s.minimum ?? 0, s.maximum ?? 2 ** 31));
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: s.minimum ?? -1e6, max: s.maximum ?? 1e12 });
    case 'boolean':
      return fc.boolean();
    default:
      if (s.format === 'date') return fc.date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
      if (s.format === 'email') return fc.emailAddress();
      return fc.string({ maxLength: Math.min(s.maxLength ?? 40, 60) });
  }
}

type Mutation =
  | { kind: 'leaf'; pick: number; value: unknown }
  | { kind: 'query'; value: unknown }
  | { kind: 'path'; value: string }
  | { kind: 'proto'; key: '__proto__' | 'constructor' | 'prototype' }
  | { kind: 'deep'; depth: number; arrays: boolean }
  | { kind: 'content-type'; type: string }
  | { kind: 'unknown-field'; name: string }
  | { kind: 'whole'; value: unknown }
  | { kind: 'none' };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('leaf' as const), pick: fc.nat(), value: fc.oneof(nastyString, nastyNumber, wrongType) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('query' as const), value: fc.oneof(nastyString, nastyNumber, fc.constantFrom('1e309', 'Infinity', 'NaN', '-1', '99999999999999999999', '0x10', '')) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('path' as const),
      value: fc.constantFrom('a%00b', '%ED%A0%80', '%EF%BF%BF', '..%2F..%2Fetc', 'x'.repeat(5000), '%', '%E0%A4%A', 'res_' + 'z'.repeat(40)),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('proto' as const), key: fc.constantFrom('__proto__' as const, 'constructor' as const, 'prototype' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deep' as const), depth: fc.constantFrom(40, 1000, 100_000), arrays: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('content-type' as const),
      type: fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/jsonx', ''),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unknown-field' as const), name: fc.constantFrom('id', 'user_id', 'created_at', 'is_reseller', 'x'.repeat(300), 'a\u0000') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('whole' as const), value: fc.oneof(wrongType, nastyString) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
);

/** Every place in a value where a leaf sits, as a list of keys. */
function leaves(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (v === null || typeof v !== 'object') return at.length ? [at] : [];
  const out: (string | number)[][] = at.length ? [at] : [];
  for (const [k, inner] of Object.entries(v)) out.push(...leaves(inner, [...at, Array.isArray(v) ? Number(k) : k]));
  return out;
}

function setAt(root: unknown, at: (string | number)[], value: unknown): unknown {
  if (at.length === 0) return value;
  const copy = Array.isArray(root) ? [...root] : { ...(root as Record<string, unknown>) };
  const [head, ...rest] = at;
  (copy as Record<string | number, unknown>)[head as string] = setAt((root as Record<string | number, unknown>)[head as string], rest, value);
  return copy;
}

/** JSON text, with the raw numbers put in as written. */
function toJson(v: unknown): string {
  return JSON.stringify(v).replace(new RegExp(`"\\\\u0001raw:([^"]*)"`, 'g'), '$1');
}

interface Built {
  method: Operation['method'];
  url: string;
  headers: Record<string, string>;
  payload: string | undefined;
}

function build(w: World, doc: OpenApiDoc, op: Operation, base: unknown, m: Mutation): Built {
  let url = pathFor(w, op.path);
  const query = Object.fromEntries(
    Object.entries(op.query)
      .filter(([, q]) => q.required)
      .map(([name, q]) => [name, String(minimal(doc, q.schema, name))]),
  );
  let body = op.body ? base : undefined;
  let contentType = 'application/json';
  let text: string | undefined;
  switch (m.kind) {
    case 'leaf': {
      const spots = leaves(body);
      if (spots.length) body = setAt(body, spots[m.pick % spots.length] ?? [], m.value);
      else {
        const names = Object.keys(op.query);
        if (names.length) query[names[m.pick % names.length] as string] = typeof m.value === 'string' ? m.value.replace(RAW, '') : JSON.stringify(m.value);
      }
      break;
    }
    case 'query': {
      const names = [...Object.keys(op.query), 'from', 'size', 'search'];
      query[names[Math.abs(String(m.value).length) % names.length] as string] = typeof m.value === 'string' ? m.value.replace(RAW, '') : String(m.value);
      break;
    }
    case 'path': {
      const parts = url.split('/');
      if (parts.length > 3) parts[parts.length - 1] = m.value;
      url = parts.join('/');
      break;
    }
    case 'proto':
      text = `{"${m.key}": {"polluted": true, "is_reseller": true}, ${toJson(body ?? {}).slice(1)}`.replace(/, }$/, '}');
      break;
    case 'deep':
      text = m.arrays ? `${'['.repeat(m.depth)}${']'.repeat(m.depth)}` : `${'{"a":'.repeat(m.depth)}1${'}'.repeat(m.depth)}`;
      break;
    case 'content-type':
      contentType = m.type;
      text = m.type.startsWith('application/x-www-form-urlencoded') ? 'a=1&b=%00' : toJson(body ?? {});
      break;
    case 'unknown-field':
      body = { ...(typeof body === 'object' && body !== null ? body : {}), [m.name]: 'x' };
      break;
    case 'whole':
      body = m.value;
      break;
    case 'none':
      break;
  }
  const qs = new URLSearchParams(query).toString();
  const payload = text ?? (body === undefined ? undefined : toJson(body));
  const headers: Record<string, string> = { 'x-api-key': w.principals.owner ?? '' };
  if (payload !== undefined && contentType) headers['content-type'] = contentType;
  return { method: op.method, url: qs ? `${url}?${qs}` : url, headers, payload };
}

export async function fuzzRequests(w: World, total: number, seed: number): Promise<FuzzFigures> {
  const { doc, ops } = await operations(w.t);
  // Deleting the owner's objects would leave the rest of the run naming nothing.
  const targets = ops.filter((o) => o.method !== 'DELETE');
  const figures: FuzzFigures = { requests: 0, byStatus: {}, unexpected5xx: 0, providerErrors: 0, hangs: 0, examples: [] };
  const request = fc.tuple(fc.nat({ max: targets.length - 1 }), mutation, fc.nat());
  const bodies = new Map(targets.map((op) => [op, op.body ? valueOf(doc, op.body) : fc.constant(undefined)]));
  for (let batch = 0; figures.requests < total; batch++) {
    const n = Math.min(500, total - figures.requests);
    const samples = fc.sample(request, { seed: seed + batch, numRuns: n });
    for (const [i, m, s] of samples) {
      const op = targets[i] as Operation;
      const base = op.body ? fc.sample(bodies.get(op) as fc.Arbitrary<unknown>, { seed: s, numRuns: 1 })[0] : undefined;
      const req = build(w, doc, op, base, m);
      let timer: NodeJS.Timeout | undefined;
      const answer = await Promise.race([
        w.t.app.inject({ method: req.method, url: req.url, headers: req.headers, ...(req.payload !== undefined ? { payload: req.payload } : {}) }),
        new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), 10_000))),
      ]);
      clearTimeout(timer);
      figures.requests += 1;
      if (answer === 'hang') {
        figures.hangs += 1;
        if (figures.examples.length < 20) figures.examples.push(`hang: ${req.method} ${req.url.slice(0, 200)} (${m.kind})`);
        continue;
      }
      const status = String(answer.statusCode);
      figures.byStatus[status] = (figures.byStatus[status] ?? 0) + 1;
      if (answer.statusCode < 500) continue;
      const code = (() => {
        try {
          return answer.json<{ code?: string }>().code;
        } catch {
          return undefined;
        }
      })();
      if (code === 'provider_error' && op.path.startsWith('/v1/lookup/')) figures.providerErrors += 1;
      else {
        figures.unexpected5xx += 1;
        if (figures.examples.length < 20) figures.examples.push(`${status}: ${req.method} ${req.url.slice(0, 200)} (${m.kind}) ${req.payload?.slice(0, 200) ?? ''}`);
      }
    }
  }
  return figures;
}
