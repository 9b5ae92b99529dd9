// The request counter and duration histogram are counted by our own code and read by prom-client at scrape time
// (metrics.ts): what a scrape shows, and what `serve --workers` sums, must be exactly what prom-client's own Counter
// and Histogram would show for the same requests.
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../domain/deps.js';
import { createMetrics } from './metrics.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** prom-client's own metrics, configured as metrics.ts configured them before it counted for itself. */
function reference() {
  const registry = new Registry();
  const requests = new Counter({
    name: 'credence_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'credence_http_request_duration_seconds',
    help: 'Time from the request arriving to the answer being sent, by route pattern and method',
    labelNames: ['route', 'method'],
    buckets: BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    request(route: string, method: string, status: number, seconds: number) {
      requests.inc({ route, method, status: String(status) });
      duration.observe({ route, method }, seconds);
    },
  };
}

// Nothing here reads the database or the cache: their gauges answer "could not read" and are not compared.
const deps = { recordCache: {}, changes: { entriesRead: 0 }, db: null, clock: { now: () => new Date() } } as unknown as Deps;
const NAMES = ['credence_http_requests_total', 'credence_http_request_duration_seconds'];

/** Requests on a few routes, statuses interleaved, durations on, between and past the bounds. */
function traffic(n: number): [string, string, number, number][] {
  const routes = ['/api/v1/pages/lookup', '/v1/pages/record', '/api/v1/embed/by-url', 'unmatched', '/say/"quoted"\\'];
  const out: [string, string, number, number][] = [];
  for (let i = 0; i < n; i++) {
    const seconds = [0, 0.001, 0.0010001, 0.003, 0.1, 0.25, 0.7, 10, 12.5, 0.0004][i % 10]! * (1 + (i % 7) / 1000);
    out.push([routes[(i * 3) % routes.length]!, i % 4 === 0 ? 'POST' : 'GET', [200, 404, 429, 304, 500][(i * 7) % 5]!, seconds]);
  }
  return out;
}

describe('request metrics', () => {
  it('expose the counts, buckets, sums and labels prom-client would, scrape after scrape', async () => {
    const ours = createMetrics(deps);
    const theirs = reference();
    const all = traffic(500);
    for (const [round, part] of [all.slice(0, 120), all.slice(120, 121), all.slice(121)].entries()) {
      for (const r of part) {
        ours.request(...r);
        theirs.request(...r);
      }
      for (const name of NAMES) {
        const text = await ours.registry.getSingleMetricAsString(name);
        expect(text, `${name}, scrape ${round + 1}`).toBe(await theirs.registry.getSingleMetricAsString(name));
      }
    }
    // Spot checks that do not lean on prom-client: 500 requests, and a bucket that holds exactly its bound.
    const text = await ours.registry.metrics();
    const total = [...text.matchAll(/^credence_http_requests_total\{.*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    expect(total).toBe(500);
    expect(text).toMatch(/^# TYPE credence_http_request_duration_seconds histogram$/m);
    const exact = all.filter(([route, method, , s]) => route === '/api/v1/pages/lookup' && method === 'GET' && s <= 0.001).length;
    expect(text).toContain(`credence_http_request_duration_seconds_bucket{le="0.001",route="/api/v1/pages/lookup",method="GET"} ${exact}`);
  });

  it('sum across workers as prom-client sums its own', async () => {
    const workers = [createMetrics(deps), createMetrics(deps)];
    const refs = [reference(), reference()];
    traffic(300).forEach((r, i) => {
      workers[i % 2]!.request(...r);
      refs[i % 2]!.request(...r);
    });
    const pick = async (registries: Registry[]) =>
      Promise.all(registries.map(async (r) => (await r.getMetricsAsJSON()).filter((m) => NAMES.includes(m.name))));
    const ours = AggregatorRegistry.aggregate(await pick(workers.map((w) => w.registry)));
    const theirs = AggregatorRegistry.aggregate(await pick(refs.map((r) => r.registry)));
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
