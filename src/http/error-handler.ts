// Every error, whatever threw it (a service's DomainError, the validator, the body parser), becomes an AppError
// here, with its status; each surface only chooses the envelope. A 500 shows no cause: the log line under the same request id has it.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/errors.js';
import { AppError, DomainError, type ErrorCode, toHttp } from './errors.js';
import { tooLarge } from './bodies.js';
import { onlyLongUrls, toDetails } from './validation.js';

const byStatus: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'invalid_request',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'invalid_request',
  429: 'rate_limited',
};

/** `req`, where there is one, lets a 413 name the route's own limit. */
export function toAppError(err: unknown, req?: FastifyRequest): AppError {
  if (err instanceof DomainError) return toHttp(err);
  const e = err as FastifyError & { validationContext?: string };
  if (e.validation) {
    const context = e.validationContext ?? 'body';
    const details = toDetails(e.validation as Parameters<typeof toDetails>[0]);
    const missingParam = context !== 'body' && e.validation.some((v) => v.keyword === 'required');
    const first = details[0];
    const where = context === 'querystring' ? 'query parameter' : context === 'params' ? 'path parameter' : 'field';
    return new AppError(
      400,
      missingParam ? 'missing_parameter' : onlyLongUrls(e.validation as Parameters<typeof onlyLongUrls>[0]) ? 'invalid_url' : 'invalid_request',
      first ? `The ${where} ${first.field} ${first.message}` : 'The request is invalid',
      details,
    );
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return req ? tooLarge(req) : new AppError(413, 'payload_too_large', 'The body is larger than this route takes');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'invalid_request', 'Send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 'invalid_request', 'The body is empty; send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(400, 'invalid_request', 'The body is not valid JSON');
  }
  // The client went away while sending its body (Fastify marks the stream's error a 400): its fault, not the
  // database's, though it carries a socket code the database check knows.
  if (isAbortedUpload(err)) return new AppError(400, 'invalid_request', 'The body did not arrive in full');
  // The database is down or restarting: fail fast with 503 and a retry hint, not a 500.
  if (isDatabaseUnavailable(err)) {
    return new AppError(503, 'service_unavailable', 'The service is briefly unavailable; retry in a moment', undefined, { 'Retry-After': '1' });
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    // JSON.parse's SyntaxError arrives as a bare 400 from the body parser.
    const message = err instanceof SyntaxError ? 'The body is not valid JSON' : 'The request is invalid';
    return new AppError(status, byStatus[status] ?? 'invalid_request', message);
  }
  return new AppError(500, 'internal_error', 'Something went wrong on our side');
}

/** An error of the request's own stream (reset or aborted while its body was read), as Fastify's body reader gives it. */
function isAbortedUpload(err: unknown): boolean {
  const e = err as { code?: unknown; statusCode?: unknown } | null;
  return e?.statusCode === 400 && (e.code === 'ECONNRESET' || e.code === 'ECONNABORTED' || e.code === 'ERR_STREAM_PREMATURE_CLOSE' || (err as Error).message === 'aborted');
}

export type Envelope = (error: AppError) => unknown;

export const v1Envelope: Envelope = (error) => ({ error: error.toBody() });
export const apiEnvelope: Envelope = (error) => ({ success: false, error: error.toBody() });

export function errorHandler(envelope: Envelope) {
  return (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    if (isAbortedUpload(err)) {
      // Nobody is left to answer; say what happened, at the level of a client's mistake.
      req.log.info({ code: (err as { code?: unknown }).code }, 'upload aborted by the client');
    }
    const error = toAppError(err, req);
    if (error.status === 503) req.log.warn({ err: { code: (err as { code?: unknown }).code, message: (err as Error).message } }, 'database unavailable');
    else if (error.status >= 500) req.log.error({ err }, 'request failed');
    const body =
      error.status >= 500 && error.status !== 503
        ? envelope(new AppError(500, 'internal_error', `Something went wrong on our side; quote request id ${req.id}`))
        : envelope(error);
    if (error.headers) void reply.headers(error.headers);
    return reply.status(error.status).type('application/json; charset=utf-8').send(body);
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by buildApp: which methods each registered path takes. */
    methodTable?: { allowed(path: string): string[] };
  }
}

/** No route: 405 with `Allow` when the path exists under other methods, else 404. */
export function notFoundHandler(envelope: Envelope) {
  return (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0] ?? '/';
    const allowed = req.server.methodTable?.allowed(path) ?? [];
    if (allowed.length > 0) {
      const message = `${req.method} is not allowed on ${path}; it takes ${allowed.join(', ')}`;
      return reply.status(405).header('Allow', allowed.join(', ')).send(envelope(new AppError(405, 'invalid_request', message)));
    }
    return reply.status(404).send(envelope(new AppError(404, 'not_found', `No route ${req.method} ${path}`)));
  };
}
