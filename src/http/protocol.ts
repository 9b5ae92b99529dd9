// What HTTP itself can get wrong before a route runs: a request Node's parser refuses (an unknown method, a bad
// Content-Length, headers too large), and a known path asked with a method it does not take. Both answer in the
// surface's envelope, with a request id, like every other answer.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import FindMyWay from 'find-my-way';
import type { FastifyBaseLogger } from 'fastify';
import type { Envelope } from './error-handler.js';
import { AppError } from './errors.js';

/** The surface a raw path belongs to, for the envelope of an error raised before routing. */
export type EnvelopeFor = (path: string) => Envelope;

const PARSER_ERRORS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'The request headers are too large (at most 16 KB in all)' },
  HPE_INVALID_METHOD: { status: 400, message: 'The request method is not a known HTTP method' },
  HPE_INVALID_CONTENT_LENGTH: { status: 400, message: 'The Content-Length header is not a valid length' },
  HPE_UNEXPECTED_CONTENT_LENGTH: { status: 400, message: 'Send either Content-Length or Transfer-Encoding, not both' },
  HPE_INVALID_TRANSFER_ENCODING: { status: 400, message: 'The Transfer-Encoding header is not valid' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request took too long to arrive' },
};

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the request, so there is no request object, no route
 * and no reply; the answer is written to the socket by hand, then the connection is closed (what is left on it
 * cannot be trusted to start a new request).
 */
export function clientErrorHandler(envelopeFor: EnvelopeFor) {
  // Fastify calls it bound to the instance, whose logger it uses.
  return function (this: { log: FastifyBaseLogger }, err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const known = PARSER_ERRORS[err.code ?? ''] ?? { status: 400, message: 'The request is not valid HTTP/1.1' };
    const raw = Buffer.isBuffer(err.rawPacket) ? err.rawPacket : undefined;
    const requestLine = raw?.subarray(0, 4096).toString('latin1').split('\r\n', 1)[0] ?? '';
    const path = /^\S+\s+(\/\S*)/.exec(requestLine)?.[1] ?? '/';
    const id = randomUUID();
    const body = JSON.stringify(envelopeFor(path)(new AppError(known.status, 'invalid_request', known.message)));
    this.log.info({ reqId: id, status: known.status, cause: err.code }, 'client error');
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(
      `HTTP/1.1 ${known.status} ${STATUS_CODES[known.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        'Connection: close\r\n\r\n' +
        body,
    );
  };
}

/**
 * Every registered method and path, matched the way Fastify's router matches them, so that a 404 can tell "no
 * such path" from "no such method on this path" (405 with `Allow`, RFC 9110 §15.5.6).
 */
export class MethodTable {
  private readonly router = FindMyWay({ maxParamLength: 500 });
  private readonly seen = new Set<string>();

  add(method: string, url: string): void {
    const key = `${method} ${url}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.router.on(method as FindMyWay.HTTPMethod, url, () => undefined);
  }

  /** The methods the path takes, in a stable order; empty when no route has this path. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const key of this.seen) methods.add(key.slice(0, key.indexOf(' ')));
    return [...methods].filter((m) => this.router.find(m as FindMyWay.HTTPMethod, path) !== null).sort();
  }
}
