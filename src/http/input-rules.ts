import type { FastifyInstance } from 'fastify';
import { badRequest } from '../lib/errors.js';

/**
 * Characters no request may carry in any string: U+0000 (PostgreSQL refuses it in text, and it
 * ends a C string in SQLite's full-text queries), unpaired surrogates (not Unicode: the pg driver
 * writes them as U+FFFD, so what is stored is not what was sent) and the 66 noncharacters
 * (U+FDD0–U+FDEF and the last two code points of every plane), which Unicode reserves for a
 * program's internal use and never for interchange.
 */
const FORBIDDEN = new RegExp(
  `[\\u0000\\uD800-\\uDFFF\\uFDD0-\\uFDEF${Array.from({ length: 17 }, (_, plane) => {
    const base = (plane << 16) | 0xfffe;
    return `\\u{${base.toString(16)}}\\u{${(base + 1).toString(16)}}`;
  }).join('')}]`,
  'u',
);

const describe = (cp: number) => {
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  if (cp === 0) return `${hex} (NUL)`;
  if (cp >= 0xd800 && cp <= 0xdfff) return `${hex} (an unpaired surrogate)`;
  return `${hex} (a Unicode noncharacter)`;
};

/** Why a string may not be stored, or null: the first forbidden character and where it is. */
export function textProblem(value: string): string | null {
  const hit = FORBIDDEN.exec(value);
  if (!hit) return null;
  const at = [...value.slice(0, hit.index)].length + 1;
  return `must not contain ${describe(hit[0].codePointAt(0) ?? 0)}; found at character ${at}`;
}

/** Depth past which a request's value is refused rather than walked (no schema nests nearly as deep). */
const MAX_DEPTH = 32;

/** The first string (or object key) in a value that breaks the rule, named like a validation error. */
export function findTextProblem(value: unknown, where: string, depth = 0): string | null {
  if (typeof value === 'string') {
    const p = textProblem(value);
    return p && `${where}: ${p}`;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_DEPTH) return `${where}: is nested more than ${MAX_DEPTH} levels deep`;
  for (const [key, inner] of Object.entries(value)) {
    const keyProblem = textProblem(key);
    if (keyProblem) return `${where}: a field name ${keyProblem}`;
    const p = findTextProblem(inner, `${where}.${key}`, depth + 1);
    if (p) return p;
  }
  return null;
}

/**
 * One rule for every string a request carries (path, query, JSON or form body), on every route,
 * before any validation or handler sees it: a 400 naming the field, on SQLite and PostgreSQL
 * alike. Multipart fields are read by their handler, which applies `findTextProblem` itself.
 */
export function registerInputRules(app: FastifyInstance) {
  app.addHook('preValidation', (request, _reply, done) => {
    const problem = findTextProblem(request.params, 'path') ?? findTextProblem(request.query, 'query') ?? findTextProblem(request.body, 'body');
    done(problem ? badRequest(problem) : undefined);
  });
}
