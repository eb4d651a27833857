import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const common: Options = { removeAdditional: false, useDefaults: true, allErrors: false, strict: false };

/**
 * Two validators: query strings, paths and headers are text, so their values are coerced
 * ("20" becomes 20); JSON bodies have real types, so a string where a number belongs is a
 * 400, not silently converted.
 */
export function createValidatorCompiler(shared: object[]): FastifySchemaCompiler<FastifySchema> {
  const strict = addFormats(new Ajv({ ...common, coerceTypes: false }));
  const coercing = addFormats(new Ajv({ ...common, coerceTypes: 'array' }));
  for (const schema of shared) {
    strict.addSchema(schema);
    coercing.addSchema(schema);
  }
  return ({ schema, httpPart }) => lazily(() => (httpPart === 'body' ? strict : coercing).compile(schema as object));
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
    const ok = validate(data) as boolean;
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
