// The answer of a record route by URL (`GET /api/v1/pages/lookup`, `GET /v1/pages/record`), written once for its
// handler and for its warm-line hook so the two cannot choose differently: the record as JSON, or as schema.org
// JSON-LD when `format=jsonld` or the Accept header asks for it (`Vary: Accept` either way), each representation
// kept finished in the record cache under its own key; a page without a record (null) is a 404. A request line
// answered from the cache before is answered again ahead of validation (http/request-lines.ts).
import type { FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import type { Deps } from '../domain/deps.js';
import { useCached } from '../domain/pages/record-cache.js';
import { notFound } from '../http/errors.js';
import { RequestLines } from '../http/request-lines.js';
import { JSON_ANSWER, sendWire, type Wire } from '../http/wire.js';
import { tierHeaders } from '../http/cache-tier.js';
import { JSON_LD_ANSWER, wantsJsonLd } from './linked-data/schema-org.js';

/** One line's two answers: its `format` as asked, and the cache key of each representation. */
interface RecordKeys {
  format: string | undefined;
  json: string;
  jsonld: string;
}

export interface RecordRoute {
  /** Names the route's cache keys (`lookup-json:<url>`, `lookup-jsonld:<url>`). */
  name: 'lookup' | 'record';
  /** The finished answer for a URL as JSON or as JSON-LD (`ld`), or null when the page has no record to show. */
  load(url: string, ld: boolean): Promise<Wire | null>;
  /** What the 404 says is missing when the answer is null ("<missing> not found"). */
  missing: string;
}

export interface RecordLines {
  /** The route's preValidation hook, after its guard: a cached answer for this line, sent; else on to the handler. */
  hook: preValidationHookHandler;
  /**
   * The handler's answer for its validated URL and format: sent at once from the cache (undefined), else the promise
   * of the load. A hit remembers the line for the hook (RequestLines.answered).
   */
  answer(req: FastifyRequest, reply: FastifyReply, url: string, format: string | undefined): Promise<void> | undefined;
}

export function recordLines(deps: Deps, route: RecordRoute): RecordLines {
  const lines = new RequestLines<RecordKeys>(deps.config.recordCacheEntries);
  // `Vary: Accept` on every answer, the 404 included: the same line can be answered as JSON or as JSON-LD.
  const vary = (reply: FastifyReply) => void reply.header('vary', 'Accept');
  return {
    hook: lines.hook((req, reply, keys) => {
      const ld = wantsJsonLd(req.headers.accept, keys.format);
      // Not cached now, or cached as no record (null): the handler answers, 404 included.
      const key = ld ? keys.jsonld : keys.json;
      const body = deps.recordCache.peek<Wire | null>(key);
      if (body === undefined || body === null) return false;
      vary(reply);
      sendWire(reply, tierHeaders(deps, req, key, ld ? JSON_LD_ANSWER : JSON_ANSWER), body);
      return true;
    }),
    answer: (req, reply, url, format) => {
      vary(reply);
      const keys = lines.known(req) ?? { format, json: `${route.name}-json:${url}`, jsonld: `${route.name}-jsonld:${url}` };
      const ld = wantsJsonLd(req.headers.accept, keys.format);
      const load = () => route.load(url, ld);
      const key = ld ? keys.jsonld : keys.json;
      return lines.answered(req, keys, useCached(deps.recordCache, key, load, (body) => {
        if (body === null) throw notFound(route.missing);
        sendWire(reply, tierHeaders(deps, req, key, ld ? JSON_LD_ANSWER : JSON_ANSWER), body);
      }));
    },
  };
}
