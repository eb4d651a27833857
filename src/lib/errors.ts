/**
 * The error services throw when they refuse: a code from one list, and a message for the caller
 * that names the problem. The HTTP layer (http/errors.ts) maps each code to a status; the pages
 * map it to their own words.
 */
export const ERROR_CODES = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'gone',
  'payload_too_large',
  'unsupported_media_type',
  'unprocessable',
  'rate_limited',
  'internal',
  /** A lookup's provider is not configured, failed or refused: the message says which and why. */
  'provider_error',
  'unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Headers the answer carries (Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new AppError('bad_request', message);
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const conflict = (message: string) => new AppError('conflict', message);

/**
 * A refusal a guest reads: `phrase` names the sentence in the guest catalogues (src/i18n) that
 * the guest's pages show in the guest's language; the message is its English for logs and API.
 */
export class GuestError extends AppError {
  constructor(
    code: ErrorCode,
    readonly phrase: string,
    message: string,
    readonly values: Record<string, string | number> = {},
  ) {
    super(code, message);
  }
}
