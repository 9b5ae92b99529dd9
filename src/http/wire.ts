// Cached answers written as the bytes they are. A warm lookup, record or embed sends a body made once and
// kept: ASCII JSON (http/ascii-json.ts) or a compressed coding of it (http/precompressed.ts). Fastify's send treats
// it as a new payload on every request (it parses the reply's content type and measures the body's UTF-8 length), and
// Node then writes a string body as UTF-8 text joined to the head, or a Buffer body as a second chunk, corked, by
// `writev`. Held as latin1, one byte a character, the same bytes are written with the head in one write and a
// length that is the string's own. Counted, on a warm steady state (docs/performance.md, 2026-11-24): lookups
// 110,500 → 101,700 instructions a request, embeds 117,400 → 109,800; records, whose answers are smaller, unchanged.
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { answerHeaders } from './security-headers.js';

declare const bytes: unique symbol;
/**
 * A body as the bytes it is sent as, one character a byte (each below U+0100). ASCII text is one already
 * (asciiJson); anything else becomes one through `asWire`.
 */
export type Wire = string & { readonly [bytes]: true };

/** Text of ASCII characters only: its UTF-8 length is its own. */
export const isAscii = (text: string): boolean => Buffer.byteLength(text) === text.length;

/** Bytes as a Wire: a Buffer's as they are, a string's as its UTF-8 (ASCII text is its own). */
export function asWire(body: string | Buffer): Wire {
  if (typeof body !== 'string') return body.toString('latin1') as Wire;
  return (isAscii(body) ? body : Buffer.from(body, 'utf8').toString('latin1')) as Wire;
}

/** The headers of an answer in a media type, made once per type (`sendWire` adds the length). */
export const typeHeader = (type: string): Readonly<Record<string, string>> => Object.freeze({ 'content-type': type });
export const JSON_ANSWER = typeHeader('application/json; charset=utf-8');

/**
 * Send a cached answer: the reply's status and the headers a route or hook set on it, then `headers` (its type, and
 * for an embed its caching, ETag and coding), the headers every answer carries (the security set, the request id:
 * http/security-headers.ts), its length, and its bytes, written with the head in one go. The answer leaves
 * Fastify's send (`reply.hijack()`), so no onSend hook runs for it: the app's one, which adds the headers every
 * answer carries, is done here (test/ops.test.ts fails when another is added). onResponse hooks (metrics, the access
 * log) still run, and Node leaves the body out of an answer to HEAD.
 */
export function sendWire(reply: FastifyReply, headers: Readonly<Record<string, string>>, body: Wire): void {
  reply.hijack();
  // Fastify's header type allows numbers where Node's names string-only fields; the reply's are all strings.
  const all = answerHeaders(reply.request, Object.assign(reply.getHeaders(), headers)) as OutgoingHttpHeaders;
  all['content-length'] = body.length;
  reply.raw.writeHead(reply.statusCode, all);
  reply.raw.end(body, 'latin1');
}
