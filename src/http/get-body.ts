import type { FastifyRequest } from 'fastify';
import type { TSchema, Static } from '@sinclair/typebox';
import { AppError, badRequest } from '../lib/errors.js';
import { findTextProblem } from './input-rules.js';
import { formatValidationErrors } from './validation.js';

const LIMIT = 1024 * 1024;

/**
 * Fastify does not read bodies on GET. The spec's settings endpoint takes its update as a
 * GET body, so this reads it from the raw stream with the same rules as every other body:
 * JSON only (415), 1 MiB (413), malformed JSON or a schema failure (400).
 */
export async function readGetBody<T extends TSchema>(request: FastifyRequest, schema: T): Promise<Static<T> | undefined> {
  const headers = request.headers;
  const hasBody = headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
  if (!hasBody) return undefined;
  const type = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new AppError('unsupported_media_type', 'request body must be JSON (Content-Type: application/json)');
  }
  if (Number(headers['content-length'] ?? 0) > LIMIT) {
    throw new AppError('payload_too_large', 'request body is larger than the 1 MiB limit');
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request.raw) {
    total += (chunk as Buffer).length;
    if (total > LIMIT) throw new AppError('payload_too_large', 'request body is larger than the 1 MiB limit');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw badRequest(`body: malformed JSON (${(err as Error).message})`);
  }
  const problem = findTextProblem(parsed, 'body');
  if (problem) throw badRequest(problem);
  const validate = request.compileValidationSchema(schema, 'body');
  if (!validate(parsed)) throw badRequest(formatValidationErrors(validate.errors ?? [], 'body').message);
  return parsed;
}
