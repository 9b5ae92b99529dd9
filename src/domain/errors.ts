// The domain's own errors (STYLE habit 7): a code from the contract's list (SPEC §6), a message a caller can act on,
// and the fields at fault. Services throw them; they know nothing of HTTP. Each surface's error handler
// (http/error-handler.ts) maps the code to a status and writes that surface's envelope.
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_url'
  | 'missing_parameter'
  | 'unauthorized'
  | 'key_revoked'
  | 'key_expired'
  | 'forbidden'
  | 'conflict_of_interest'
  | 'page_not_verified'
  | 'session_required'
  | 'account_suspended'
  | 'publisher_key_scope'
  | 'not_found'
  | 'already_decided'
  | 'conflict'
  | 'claim_pending'
  | 'payload_too_large'
  | 'rate_limited'
  | 'https_required'
  | 'internal_error'
  | 'service_unavailable';

export const ERROR_CODES: readonly ErrorCode[] = [
  'invalid_request',
  'invalid_url',
  'missing_parameter',
  'unauthorized',
  'key_revoked',
  'key_expired',
  'forbidden',
  'conflict_of_interest',
  'page_not_verified',
  'session_required',
  'account_suspended',
  'publisher_key_scope',
  'not_found',
  'already_decided',
  'conflict',
  'claim_pending',
  'payload_too_large',
  'rate_limited',
  'https_required',
  'internal_error',
  'service_unavailable',
];

export interface ErrorDetail {
  field: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** For `rate_limited`: whole seconds until a retry can succeed. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  toBody(): { code: ErrorCode; message: string; details?: ErrorDetail[] } {
    return this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message };
  }
}

export const invalid = (field: string, message: string) => new DomainError('invalid_request', `${field}: ${message}`, [{ field, message }]);
export const invalidUrl = (field = 'url') =>
  new DomainError('invalid_url', `${field} must be an http or https URL of at most 2048 characters`, [
    { field, message: 'must be an http or https URL of at most 2048 characters' },
  ]);
export const missing = (field: string) => new DomainError('missing_parameter', `${field} is required`, [{ field, message: 'is required' }]);
export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const unauthorized = (message = 'A valid API key or session token is required') => new DomainError('unauthorized', message);
export const sessionRequired = () =>
  new DomainError('session_required', 'This route needs a session token; API keys cannot manage an account');
/** A publisher key registers its publication's pages, opens requests on them and decides work, and nothing else (seed 001 §5.2). */
export const publisherKeyScope = () =>
  new DomainError('publisher_key_scope', 'This is a publisher key: it registers its publication’s pages, opens requests and decides work, nothing else. Use a contributor key or a session');
export const pageNotVerified = (host: string) => new DomainError('page_not_verified', `${host} is not a verified site on this account`);
export const rateLimited = (retryAfterSeconds: number) =>
  new DomainError('rate_limited', `Too many requests; retry in ${retryAfterSeconds} s`, undefined, retryAfterSeconds);
