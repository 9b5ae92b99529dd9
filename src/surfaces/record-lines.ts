// The cached answers of a record route by URL (`GET /api/v1/pages/lookup`, `GET /v1/pages/record`): the record as
// JSON, or as schema.org JSON-LD when `format=jsonld` or the Accept header asks for it, each kept finished under its
// own key. A request line answered from the cache before is answered again ahead of validation
// (http/request-lines.ts).
import type { FastifyRequest, preValidationHookHandler } from 'fastify';
import type { Deps } from '../domain/deps.js';
import { RequestLines } from '../http/request-lines.js';
import { JSON_ANSWER, sendWire, type Wire } from '../http/wire.js';
import { JSON_LD_ANSWER, wantsJsonLd } from './linked-data/schema-org.js';

/** One line's two answers: its `format` as asked, and the cache key of each representation. */
export interface RecordKeys {
  format: string | undefined;
  json: string;
  jsonld: string;
}

export interface RecordLines {
  /** The route's preValidation hook, after its guard: a cached answer for this line, sent; else on to the handler. */
  hook: preValidationHookHandler;
  /** The handler's keys for its validated URL and format (those remembered for the line, when it was answered before). */
  keys(req: FastifyRequest, url: string, format: string | undefined): RecordKeys;
  /** The handler's answer, passed through; a hit remembers the keys for the line (RequestLines.answered). */
  answered(req: FastifyRequest, keys: RecordKeys, pending: Promise<void> | undefined): Promise<void> | undefined;
}

/** `route` names the route's keys (`lookup-json:<url>`, `lookup-jsonld:<url>`). */
export function recordLines(deps: Deps, route: 'lookup' | 'record'): RecordLines {
  const lines = new RequestLines<RecordKeys>(deps.config.recordCacheEntries);
  return {
    hook: lines.hook((req, reply, keys) => {
      const ld = wantsJsonLd(req.headers.accept, keys.format);
      // Not cached now, or cached as no record (null): the handler answers, 404 included.
      const body = deps.recordCache.peek<Wire | null>(ld ? keys.jsonld : keys.json);
      if (body === undefined || body === null) return false;
      void reply.header('vary', 'Accept');
      sendWire(reply, ld ? JSON_LD_ANSWER : JSON_ANSWER, body);
      return true;
    }),
    keys: (req, url, format) => lines.known(req) ?? { format, json: `${route}-json:${url}`, jsonld: `${route}-jsonld:${url}` },
    answered: (req, keys, pending) => lines.answered(req, keys, pending),
  };
}
