// Heavy batch work leaves the event loop free: 500 pages with 9 KB of text each (4.5 MB), registered and then
// updated with new text, are worked in slices (domain/batch.ts `slicer`), so /livez is answered meanwhile. Held
// whole, the loop stalled 0.84 s on the create and 1.62 s on the update: most of the request. What is checked is the
// shape, not a time: /livez is answered while the batch is worked, and no single stall of the loop takes half the
// request (held whole, one stall is nearly all of it; the longest left is parsing the 4.5 MB body, about a third),
// so a loaded machine, which stretches both alike, cannot fail it. The stall in milliseconds and its aim are
// benchmark figures (docs/performance.md). Both databases.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
});
afterAll(async () => t?.close());

const WORDS = 'The battery recycling plant coming to Westbrook will process lithium cells from across the region. ';
const items = (suffix: string) =>
  Array.from({ length: 500 }, (_, i) => ({ url: `https://${pub.domain}/long/${i}`, title: `Long page ${i}`, topic: 'energy', text: `${WORDS.repeat(91).slice(0, 8990)} ${i} ${suffix}` }));

/**
 * The batch sent while /livez is asked every 25 ms: how many /livez answers came while it was worked, the loop's
 * longest stall and the request's whole time.
 */
async function during(body: unknown) {
  const stall = monitorEventLoopDelay({ resolution: 10 });
  let answered = 0;
  let done = false;
  const probe = (async () => {
    const anon = new Client(t.baseUrl);
    while (!done) {
      expect((await anon.get('/livez')).status).toBe(200);
      if (!done) answered += 1;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  const started = performance.now();
  stall.enable();
  const res = await pub.api.post('/api/v1/pages', body);
  stall.disable();
  const requestMs = performance.now() - started;
  done = true;
  await probe;
  const stallMs = stall.max / 1e6;
  if (process.env.SHOW_FIGURES) console.log(`request ${Math.round(requestMs)} ms, longest stall ${Math.round(stallMs)} ms, /livez answered ${answered}×`);
  return { res, answered, stallMs, requestMs };
}

describe('a 4.5 MB batch of page text', () => {
  it('leaves /livez answering while 500 pages are created', async () => {
    const { res, answered, stallMs, requestMs } = await during(items('first'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.summary).toMatchObject({ created: 500, failed: 0 });
    expect(answered).toBeGreaterThanOrEqual(1);
    expect(stallMs).toBeLessThan(requestMs / 2);
  });

  it('and while their new text is anchored', async () => {
    const { res, answered, stallMs, requestMs } = await during(items('second'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.summary).toMatchObject({ updated: 500, failed: 0 });
    expect(answered).toBeGreaterThanOrEqual(1);
    expect(stallMs).toBeLessThan(requestMs / 2);
  });
});
