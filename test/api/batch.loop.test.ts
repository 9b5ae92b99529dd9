// Heavy batch work leaves the event loop free: 500 pages with 9 KB of text each (4.5 MB), registered and then
// updated with new text, are worked in slices (domain/batch.ts `slicer`), so /livez is answered meanwhile. Held
// whole, the loop stalled 0.84 s on the create and 1.62 s on the update. The bound here is looser than the aim
// (250 ms, docs/performance.md) for a loaded CI machine; never a throughput figure. Both databases.
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

/** The batch sent while /livez is asked every 25 ms: the loop's longest stall and /livez's slowest answer. */
async function during(body: unknown) {
  const stall = monitorEventLoopDelay({ resolution: 10 });
  stall.enable();
  let slowest = 0;
  let done = false;
  const probe = (async () => {
    const anon = new Client(t.baseUrl);
    while (!done) {
      const started = performance.now();
      expect((await anon.get('/livez')).status).toBe(200);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  const res = await pub.api.post('/api/v1/pages', body);
  done = true;
  await probe;
  stall.disable();
  if (process.env.SHOW_FIGURES) console.log(`stall ${Math.round(stall.max / 1e6)} ms, /livez ${Math.round(slowest)} ms`);
  return { res, stallMs: stall.max / 1e6, slowest };
}

describe('a 4.5 MB batch of page text', () => {
  it('leaves /livez answering while 500 pages are created', async () => {
    const { res, stallMs, slowest } = await during(items('first'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.summary).toMatchObject({ created: 500, failed: 0 });
    expect(stallMs).toBeLessThan(500);
    expect(slowest).toBeLessThan(500);
  });

  it('and while their new text is anchored', async () => {
    const { res, stallMs, slowest } = await during(items('second'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.summary).toMatchObject({ updated: 500, failed: 0 });
    expect(stallMs).toBeLessThan(500);
    expect(slowest).toBeLessThan(500);
  });
});
