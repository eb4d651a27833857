import { Ajv, type Options } from 'ajv';
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
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema as object);
}
