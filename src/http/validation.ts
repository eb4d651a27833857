import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

type SchemaContext = 'body' | 'querystring' | 'params' | 'headers';

const CONTEXT_NAME: Record<SchemaContext, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** A string enum that validates with a readable "must be one of" message. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * A nullable wrapper that OpenAPI 3.1 and ajv both understand. Scalars become `type: [t, "null"]`
 * rather than anyOf: fast-json-stringify serializes an anyOf by running ajv on every branch for
 * every value, which profiling showed as a large share of a reservation answer's cost.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const type = (schema as { type?: unknown }).type;
  if (typeof type !== 'string' || type === 'object' || type === 'array') return Type.Union([schema, Type.Null()]);
  // An enum's values must take null too, or a null is refused however the type reads.
  const values = (schema as { enum?: unknown[] }).enum;
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'], ...(values ? { enum: [...values, null] } : {}) });
}

function describe(e: FastifySchemaValidationError): string {
  const params = e.params;
  switch (e.keyword) {
    case 'additionalProperties':
      return `unknown field '${String(params.additionalProperty)}'`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'type':
      return `must be ${String(params.type).replace(',', ' or ')}`;
    default:
      return e.message ?? 'is invalid';
  }
}

/**
 * Names every problem of a request part, one per field, in the order ajv found them:
 * "body.guest.email: must match format \"email\"; body.check_in_date: must match format \"date\"".
 * A field that fails a union fails each branch: its first failure stands for it.
 */
export function formatValidationErrors(errors: FastifySchemaValidationError[], context: string): Error {
  const base = CONTEXT_NAME[context as SchemaContext] ?? context;
  const said = new Map<string, string>();
  for (const e of errors) {
    const segments = e.instancePath.split('/').filter(Boolean);
    if (e.keyword === 'required') segments.push(String(e.params.missingProperty));
    if (e.keyword === 'additionalProperties') segments.push(String(e.params.additionalProperty));
    const where = [base, ...segments].join('.');
    // An unknown field is named in full where it was found, as before (body: unknown field 'x').
    const at = e.keyword === 'additionalProperties' ? [base, ...segments.slice(0, -1)].join('.') : where;
    if (said.has(where)) continue;
    said.set(where, `${at}: ${e.keyword === 'required' ? 'is required' : describe(e)}`);
  }
  return new Error(said.size ? [...said.values()].join('; ') : `${base}: is invalid`);
}
