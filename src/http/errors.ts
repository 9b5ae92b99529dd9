// Services throw AppError; each surface's error handler turns it into that surface's envelope (SPEC §6).
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_url'
  | 'missing_parameter'
  | 'unauthorized'
  | 'key_revoked'
  | 'key_expired'
  | 'forbidden'
  | 'page_not_verified'
  | 'session_required'
  | 'not_found'
  | 'already_decided'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'https_required'
  | 'internal_error';

export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers, such as Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): { code: ErrorCode; message: string; details?: ErrorDetail[] } {
    return this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message };
  }
}

export const invalid = (field: string, message: string) =>
  new AppError(400, 'invalid_request', `${field}: ${message}`, [{ field, message }]);
export const invalidUrl = (field = 'url') =>
  new AppError(400, 'invalid_url', `${field} must be an http or https URL of at most 2048 characters`, [
    { field, message: 'must be an http or https URL of at most 2048 characters' },
  ]);
export const missing = (field: string) =>
  new AppError(400, 'missing_parameter', `${field} is required`, [{ field, message: 'is required' }]);
export const notFound = (what: string) => new AppError(404, 'not_found', `${what} not found`);
export const forbidden = (message: string) => new AppError(403, 'forbidden', message);
export const conflict = (message: string) => new AppError(409, 'conflict', message);
export const unauthorized = (message = 'A valid API key or session token is required') =>
  new AppError(401, 'unauthorized', message);
export const sessionRequired = () =>
  new AppError(403, 'session_required', 'This route needs a session token; API keys cannot manage an account');
export const pageNotVerified = (host: string) =>
  new AppError(403, 'page_not_verified', `${host} is not a verified site on this account`);
export const rateLimited = (retryAfterSeconds: number, headers: Record<string, string> = {}) =>
  new AppError(429, 'rate_limited', `Too many requests; retry in ${retryAfterSeconds} s`, undefined, {
    ...headers,
    'Retry-After': String(retryAfterSeconds),
  });
