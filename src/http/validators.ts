import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const common: Options = { removeAdditional: false, useDefaults: true, allErrors: true, strict: false, strictNumbers: true };

/**
 * A copy of a schema in which every number must be finite and every integer without bounds of
 * its own stays within ±(2^53 - 1). `from=1e309` in a query, or 1e309 in JSON, reads as Infinity,
 * which ajv's coercion lets through and its bounds never look at; past 2^53 a JavaScript number no
 * longer holds the integer it was sent as, and the databases refuse what they cannot store as one
 * (SQLite's OFFSET answered `from=99999999999999999999` with a datatype mismatch).
 */
export function boundNumbers<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(boundNumbers) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) copy[k] = k === 'enum' || k === 'const' || k === 'default' ? v : boundNumbers(v);
  const types = Array.isArray(copy.type) ? (copy.type as unknown[]) : [copy.type];
  if (types.includes('integer')) {
    copy.maximum ??= Number.MAX_SAFE_INTEGER;
    copy.minimum ??= Number.MIN_SAFE_INTEGER;
  }
  if (types.includes('integer') || types.includes('number')) copy.finite = true;
  return copy as T;
}

function withRules(ajv: Ajv): Ajv {
  ajv.addKeyword({
    keyword: 'finite',
    schemaType: 'boolean',
    validate: (_: boolean, data: unknown) => typeof data !== 'number' || Number.isFinite(data),
    error: { message: 'must be a finite number' },
  });
  return addFormats(ajv);
}

/**
 * Two validators: query strings, paths and headers are text, so their values are coerced
 * ("20" becomes 20); JSON bodies have real types, so a string where a number belongs is a
 * 400, not silently converted. Bodies of HTML forms are text too (`formBodies`, the console's).
 */
export function createValidatorCompiler(shared: object[], opts: { formBodies?: boolean } = {}): FastifySchemaCompiler<FastifySchema> {
  const strict = withRules(new Ajv({ ...common, coerceTypes: false }));
  const coercing = withRules(new Ajv({ ...common, coerceTypes: 'array' }));
  for (const schema of shared.map(boundNumbers)) {
    strict.addSchema(schema);
    coercing.addSchema(schema);
  }
  return ({ schema, httpPart }) => lazily(() => (httpPart === 'body' && !opts.formBodies ? strict : coercing).compile(boundNumbers(schema as object)));
}

/**
 * A validator compiled on its first use rather than when its route is registered: compiling
 * every route's schemas (validators and serializers) was about a third of the time from start
 * to the first answer. Fastify reads a failed validation's errors from the function itself.
 */
function lazily(compile: () => ValidateFunction): (data: unknown) => boolean {
  let validate: ValidateFunction | undefined;
  const run = (data: unknown) => {
    validate ??= compile();
    const ok = validate(data);
    run.errors = validate.errors;
    return ok;
  };
  run.errors = undefined as ValidateFunction['errors'];
  return run;
}

/**
 * Fastify's serializer compiler (fast-json-stringify, with the shared schemas), each route's
 * serializer built on its first use: see lazily above.
 */
export function lazySerializers(factory: (schemas: unknown, opts: unknown) => (route: unknown) => (data: unknown) => string) {
  return (schemas: unknown, opts: unknown) => {
    const build = factory(schemas, opts);
    return (route: unknown) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => (serialize ??= build(route))(data);
    };
  };
}
