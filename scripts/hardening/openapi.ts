/** The operations of the service's own OpenAPI document, and values their schemas accept. */
import type { TestApp } from '../../test/harness.js';

export type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  $ref?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  pattern?: string;
  additionalProperties?: boolean | Schema;
};

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** As the document writes it: /v1/reservations/{id} */
  path: string;
  /** As the router writes it: /v1/reservations/:id */
  route: string;
  query: Record<string, { schema: Schema; required: boolean }>;
  body: Schema | undefined;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, { parameters?: { in: string; name: string; required?: boolean; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}

export async function operations(t: TestApp): Promise<{ doc: OpenApiDoc; ops: Operation[] }> {
  const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<OpenApiDoc>();
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      const upper = method.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'DELETE'].includes(upper)) continue;
      const query: Operation['query'] = {};
      for (const p of op.parameters ?? []) if (p.in === 'query') query[p.name] = { schema: p.schema, required: Boolean(p.required) };
      ops.push({
        method: upper as Operation['method'],
        path,
        route: path.replace(/\{(\w+)\}/g, ':$1'),
        query,
        body: op.requestBody?.content['application/json']?.schema,
      });
    }
  }
  return { doc, ops };
}

/** Values for fields whose rules go beyond their schema (an expression must compile, a URL must be a URL). */
const MEANINGFUL: Record<string, unknown> = {
  expression: 'reservation.nights > 30',
  webhook_url: 'https://example.test/hook',
  webhook_key: 'reservation_webhook_url',
  email: 'probe@example.test',
  supervised: 'approve',
  config_data: [],
  name: 'Probe Person',
  first_name: 'Probe',
  last_name: 'Person',
  text: 'probe',
  type: 'globalcheck',
  pms: 'api',
  list: 'OFAC SDN',
  entry_id: '1',
  event_source: 'probe',
  event_id: 'e1',
  event_type: 'charge',
  event_status: 'succeeded',
  country: 'GB',
  fname: 'Probe',
  lname: 'Person',
  dob: '1980-01-01',
  state: 'CA',
};

/** Optional in the schema, but one of them is needed (the rule is stated in the operation's prose). */
const ONE_OF_NEEDED = new Set(['email', 'first_name', 'last_name', 'country']);

export function resolve(doc: OpenApiDoc, s: Schema): Schema {
  if (s.$ref) return resolve(doc, doc.components?.schemas?.[s.$ref.split('/').pop() ?? ''] ?? {});
  return s;
}

/** The least value a schema accepts, with meaningful values for the fields that need them. */
export function minimal(doc: OpenApiDoc, schema: Schema, name = ''): unknown {
  const s = resolve(doc, schema);
  if (name in MEANINGFUL) return MEANINGFUL[name];
  if (s.enum) return s.enum[0];
  if (s.anyOf) return minimal(doc, s.anyOf[0] ?? {}, name);
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(s.properties ?? {})) {
        if (s.required?.includes(key) || ONE_OF_NEEDED.has(key)) out[key] = minimal(doc, s.properties?.[key] ?? {}, key);
      }
      return out;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    default:
      if (s.format === 'date') return '2027-01-01';
      if (s.format === 'email') return 'probe@example.test';
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
  }
}

/** The query string an operation needs at the least. */
export function minimalQuery(doc: OpenApiDoc, op: Operation): string {
  const pairs = Object.entries(op.query)
    .filter(([name, q]) => q.required || ONE_OF_NEEDED.has(name))
    .map(([name, q]) => `${name}=${encodeURIComponent(String(minimal(doc, q.schema, name)))}`);
  return pairs.length ? `?${pairs.join('&')}` : '';
}
