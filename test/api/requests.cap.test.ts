// One publication cannot fill the marketplace: at most ACTIVE_REQUESTS_MAX requests open or taken at once; past it,
// each item of a batch fails on its own (409 conflict) and says how to go on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVE_REQUESTS_MAX } from '../../src/domain/requests/request.service.js';
import { publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
});
afterAll(async () => t?.close());

const batch = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ url: `https://${pub.domain}/r/${from + i}`, request_type: 'fact_checker', topic: 'news', title: `Check ${from + i}` }));

describe('requests open at once', () => {
  it(`stop at ${ACTIVE_REQUESTS_MAX} per publication, item by item`, async () => {
    for (let from = 0; from < ACTIVE_REQUESTS_MAX - 1; from += 500) {
      const res = await pub.api.post('/api/v1/requests', batch(from, Math.min(500, ACTIVE_REQUESTS_MAX - 1 - from)));
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      expect(res.body.data.summary.failed).toBe(0);
    }
    const past = await pub.api.post('/api/v1/requests', batch(ACTIVE_REQUESTS_MAX, 3));
    expect(past.status, past.text.slice(0, 300)).toBe(200);
    expect(past.body.data.summary).toMatchObject({ created: 1, failed: 2 });
    expect(past.body.data.results[1].error).toMatchObject({ code: 'conflict', message: expect.stringContaining(`at most ${ACTIVE_REQUESTS_MAX}`) });
    const one = await pub.api.post('/api/v1/requests', batch(ACTIVE_REQUESTS_MAX + 10, 1)[0]);
    expect(one.status).toBe(409);
  });
});
