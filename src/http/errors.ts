import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { AppError, badRequest, type ErrorCode } from '../lib/errors.js';

// Each error code's status: the one place a refusal becomes HTTP.
const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  provider_error: 500,
  unavailable: 503,
};

/** The HTTP status an error answers with. */
export const statusOf = (err: AppError): number => STATUS[err.code];

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  request_id: string;
}

// Fastify's own errors for malformed requests, mapped to our codes with messages a client can act on.
function fromFastify(err: FastifyError): AppError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'request body is larger than the 1 MiB limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('unsupported_media_type', 'request body must be JSON (Content-Type: application/json)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest('body: Content-Type is application/json but the body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return badRequest(`body: malformed JSON (${err.message})`);
    default:
      break;
  }
  if (err.validation) return badRequest(err.message);
  if (err instanceof SyntaxError || (err as { type?: string }).type === 'entity.parse.failed') {
    return badRequest(`body: malformed JSON (${err.message})`);
  }
  if (err.statusCode === 429) return new AppError('rate_limited', err.message);
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    const code = (Object.keys(STATUS) as ErrorCode[]).find((c) => STATUS[c] === err.statusCode) ?? 'bad_request';
    return new AppError(code, err.message);
  }
  return undefined;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: AppError) {
  const body: ErrorBody = { error: err.message, code: err.code, request_id: request.id };
  return reply.code(statusOf(err)).headers(err.headers).type('application/json; charset=utf-8').send(body);
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = error instanceof AppError ? error : fromFastify(error);
    if (known) {
      if (statusOf(known) >= 500) request.log.error({ err: error }, known.message);
      return sendError(request, reply, known);
    }
    // Never show a stack or an internal message; the request id finds it in the logs.
    request.log.error({ err: error }, 'unhandled error');
    return sendError(request, reply, new AppError('internal', `internal error; quote request id ${request.id}`));
  });

  app.setNotFoundHandler((request, reply) => sendError(request, reply, new AppError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`)));
}
