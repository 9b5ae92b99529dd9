import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestLines } from './request-lines.js';

let app: FastifyInstance | undefined;
afterEach(async () => app?.close());

/**
 * A route whose handler derives a key from its query and counts its runs, and whose hook answers a line it knows
 * while `cached` holds the key. `runs.validation` counts what reached validation (a query with `bad` is refused
 * there).
 */
function routeWithLines(max = 10) {
  const lines = new RequestLines<{ key: string }>(max);
  const cached = new Map<string, string>();
  const runs = { handler: 0, validation: 0, derived: 0 };
  app = Fastify();
  app.setValidatorCompiler(() => (data) => {
    runs.validation++;
    return (data as { bad?: string }).bad === undefined ? { value: data } : { error: new Error('bad') };
  });
  app.get(
    '/thing',
    {
      preValidation: lines.hook((_req, reply, known) => {
        const body = cached.get(known.key);
        if (body === undefined) return false;
        void reply.send(`hook ${body}`);
        return true;
      }),
      schema: { querystring: { type: 'object' } },
    },
    (req, reply) => {
      runs.handler++;
      const derived = lines.known(req) ?? (runs.derived++, { key: String((req.query as { k?: string }).k) });
      const hit = cached.has(derived.key);
      cached.set(derived.key, derived.key.toUpperCase());
      // A hit is answered at once (undefined); a miss is a promise, as a load is.
      if (hit) void reply.send(`handler hit ${derived.key}`);
      return lines.answered(req, derived, hit ? undefined : Promise.resolve().then(() => void reply.send(`handler miss ${derived.key}`)));
    },
  );
  const get = async (url: string) => (await app!.inject({ method: 'GET', url })).body;
  return { runs, cached, get };
}

describe('request lines', () => {
  it('answer a line the handler answered from the cache by its hook, before validation and the handler', async () => {
    const { runs, get } = routeWithLines();
    expect(await get('/thing?k=a')).toBe('handler miss a'); // a miss: nothing remembered
    expect(await get('/thing?k=a')).toBe('handler hit a'); // a hit: remembered
    expect(await get('/thing?k=a')).toBe('hook A');
    expect(await get('/thing?k=a')).toBe('hook A');
    expect(runs).toEqual({ handler: 2, validation: 2, derived: 2 });
    // Another line with the same values goes the normal way, until the handler answers it from the cache.
    expect(await get('/thing?k=a&x=1')).toBe('handler hit a');
    expect(await get('/thing?k=a&x=1')).toBe('hook A');
    expect(runs).toEqual({ handler: 3, validation: 3, derived: 3 });
  });

  it('go on to the handler when the hook cannot answer, reusing what was derived', async () => {
    const { runs, cached, get } = routeWithLines();
    await get('/thing?k=b');
    await get('/thing?k=b');
    cached.clear();
    expect(await get('/thing?k=b')).toBe('handler miss b');
    expect(runs).toEqual({ handler: 3, validation: 3, derived: 2 });
  });

  it('remember nothing of a line refused by validation', async () => {
    const { runs, get } = routeWithLines();
    await get('/thing?k=c&bad=1');
    await get('/thing?k=c&bad=1');
    expect(runs).toEqual({ handler: 0, validation: 2, derived: 0 });
  });

  it('keep at most their bound, the least recently used line dropped first', async () => {
    const { runs, cached, get } = routeWithLines(2);
    for (const k of ['a', 'b', 'c']) cached.set(k, k.toUpperCase());
    for (const k of ['a', 'b', 'a', 'c']) await get(`/thing?k=${k}`);
    expect(runs.derived).toBe(3);
    expect(await get('/thing?k=a')).toBe('hook A');
    expect(await get('/thing?k=b')).toBe('handler hit b'); // dropped for c
    expect(runs.derived).toBe(4);
  });
});
