// Warm answers found by their request line. A cached route's handler parses and validates the query, then
// derives the cache key of its answer from it. The same request line always gives the same key: so the handler
// remembers the key under the line, and the next request for that line is answered from the cache in a
// preValidation hook, before Ajv, the handler and the key's string are reached again. Only lines the handler
// answered from the cache are remembered: a cold read pays one lookup here, and nothing is kept for it. Counted
// (docs/performance.md), a warm embed costs 104,400 instructions the normal way and 98,000 this way; its bytes alone
// (the bench's bare-embed) cost 89,800.
//
// What may be skipped, and what may not:
// - Everything before preValidation still runs: the request id, the HTTPS rule, the caller's credential, the rate
//   limit. The route's guards run first too (the hook goes after them in its preValidation list).
// - The line is the method's target as sent (`req.url`: path and query), which the router and the query's parsing,
//   coercion and defaults turn into the same values every time: a line is remembered only once the handler has
//   them, that is, once the request was valid, and what is remembered is what the handler derived from them.
// - Whatever else an answer depends on in the request (Accept, Accept-Encoding, If-None-Match) is read again by the
//   route's `answer` on each request, as the handler does.
// - The value itself is the cache's, asked for through `peek`: the record cache's freshness rules hold as they do for
//   every hit (a change seen by the follower is never served again, in any process). Anything the cache cannot serve
//   now, or that the route answers otherwise (a 404), goes on to the handler.
import type { FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import { LRUCache } from 'lru-cache';

/** What a route's hook does with what its handler remembered: true when it answered. */
export type AnswerByLine<K> = (req: FastifyRequest, reply: FastifyReply, remembered: K) => boolean;

/** One route's request lines and what its handler derived from each (bounded: least recently used first out). */
export class RequestLines<K extends object | string> {
  private readonly lines: LRUCache<string, K>;

  /** `max`: the lines kept; the record cache's size is the natural bound (more lines than answers cannot all hit). */
  constructor(max: number) {
    this.lines = new LRUCache<string, K>({ max });
  }

  /** What the handler derived for this line when it last answered it from the cache (the hook could not, this time). */
  known(req: FastifyRequest): K | undefined {
    return this.lines.get(req.url);
  }

  /**
   * The handler's answer, passed through: undefined when it was sent at once from the cache, and then what the
   * handler derived for the line is remembered for the hook; or the promise of a load, and nothing is remembered (the
   * next request for the line, a hit, will be). A line asked for once (a crawler, a cold read) churns nothing here.
   */
  answered(req: FastifyRequest, derived: K, pending: Promise<void> | undefined): Promise<void> | undefined {
    if (pending === undefined && !this.lines.has(req.url)) this.lines.set(req.url, derived);
    return pending;
  }

  /** The route's preValidation hook (after its guards): `answer` from what was remembered for this line, or go on. */
  hook(answer: AnswerByLine<K>): preValidationHookHandler {
    return (req, reply, done) => {
      const known = this.lines.get(req.url);
      // Answered: the reply is sent (sendWire hijacks it), and the route's later steps must not run.
      if (known !== undefined && answer(req, reply, known)) return;
      done();
    };
  }
}
