import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// One list of error codes drives the status of every error answer.
const STATUS = {
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
  /** A lookup's provider is not configured, failed or refused: the message says which and why. */
  provider_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof STATUS;

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

export const badRequest = (message: string) => new AppError('bad_request', message);
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const conflict = (message: string) => new AppError('conflict', message);

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
  return reply.code(err.status).headers(err.headers).type('application/json; charset=utf-8').send(body);
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = error instanceof AppError ? error : fromFastify(error);
    if (known) {
      if (known.status >= 500) request.log.error({ err: error }, known.message);
      return sendError(request, reply, known);
    }
    // Never show a stack or an internal message; the request id finds it in the logs.
    request.log.error({ err: error }, 'unhandled error');
    return sendError(request, reply, new AppError('internal', `internal error; quote request id ${request.id}`));
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new AppError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`)),
  );
}
