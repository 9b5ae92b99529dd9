// The HTTP side of errors. Services throw DomainError (domain/errors.ts), which knows no status; statusOf maps its
// code to one. AppError is the HTTP layer's own error (a parser's 413/415/431, a 405, a rate limit with its
// headers): a DomainError that carries its status and extra headers.
import { DomainError, type ErrorCode, type ErrorDetail } from '../domain/errors.js';

export { DomainError, type ErrorCode, type ErrorDetail } from '../domain/errors.js';
export {
  conflict,
  forbidden,
  invalid,
  invalidUrl,
  missing,
  notFound,
  pageNotVerified,
  publisherKeyScope,
  sessionRequired,
  unauthorized,
} from '../domain/errors.js';

const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_url: 400,
  missing_parameter: 400,
  unauthorized: 401,
  key_revoked: 401,
  key_expired: 401,
  forbidden: 403,
  conflict_of_interest: 403,
  page_not_verified: 403,
  session_required: 403,
  account_suspended: 403,
  publisher_key_scope: 403,
  https_required: 403,
  not_found: 404,
  already_decided: 409,
  conflict: 409,
  claim_pending: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};

export class AppError extends DomainError {
  constructor(
    readonly status: number,
    code: ErrorCode,
    message: string,
    details?: ErrorDetail[],
    /** Extra response headers, such as Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(code, message, details);
    this.name = 'AppError';
  }
}

/** The HTTP status of any domain error: its own for an AppError, else the one its code stands for. */
export function statusOf(err: DomainError): number {
  return err instanceof AppError ? err.status : STATUS[err.code];
}

/** A domain error as the HTTP layer sends it: its status, and Retry-After when it says when to come back. */
export function toHttp(err: DomainError): AppError {
  if (err instanceof AppError) return err;
  const headers = err.retryAfterSeconds !== undefined ? { 'Retry-After': String(err.retryAfterSeconds) } : undefined;
  return new AppError(STATUS[err.code], err.code, err.message, err.details, headers);
}

export const rateLimited = (retryAfterSeconds: number, headers: Record<string, string> = {}) =>
  new AppError(429, 'rate_limited', `Too many requests; retry in ${retryAfterSeconds} s`, undefined, {
    ...headers,
    'Retry-After': String(retryAfterSeconds),
  });
