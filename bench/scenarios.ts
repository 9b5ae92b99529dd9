// What `npm run bench` measures, in order. To add a benchmark, add a scenario here: a target process, and the
// path of each request (a function, so a run can walk a large set of URLs without building every path first).
// The first scenario is the baseline every other one is compared with.
import { createPrng } from '../src/demo/prng.js';
import type { Fixture } from './fixture.js';
import type { TargetName } from './server.js';

export interface Scenario {
  name: string;
  description: string;
  target: TargetName;
  /** Returns a function giving the next request's path; called once per run, with the fixture built. */
  paths(fixture: Fixture): () => string;
  /** A CMS registers this many new pages per second on the same server while the scenario runs. */
  writesPerSecond?: number;
  /** Request headers (the embed sends a browser's Accept-Encoding). */
  headers?: Record<string, string>;
}

/** How many URLs the warm scenarios cycle through: well inside the record cache (20,000 entries). */
export const WARM_SET = 1_000;

/**
 * Paths for every registered page, built before the clock starts: the client has one core, and encoding a URL per
 * request in setupRequest costs it about a fifth of its rate.
 */
function pathsFor(fixture: Fixture, prefix: string): string[] {
  return fixture.urls.map((url) => `${prefix}${encodeURIComponent(url)}`);
}

/** Paths picked uniformly at random from every registered page: most miss the record cache. */
function randomPaths(fixture: Fixture, prefix: string, seed: number): () => string {
  const all = pathsFor(fixture, prefix);
  const rng = createPrng(seed);
  return () => all[rng.int(all.length)]!;
}

/** A fixed set of WARM_SET paths, requested in random order: after the warm-up every lookup is a cache hit. */
function warmPaths(fixture: Fixture, prefix: string, seed: number): () => string {
  const all = pathsFor(fixture, prefix);
  const pick = createPrng(seed);
  const set = Array.from({ length: Math.min(WARM_SET, all.length) }, () => all[pick.int(all.length)]!);
  const rng = createPrng(seed + 1);
  return () => set[rng.int(set.length)]!;
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'bare',
    description: 'Fastify route returning a constant object; same query strings, so the client does the same work',
    target: 'bare',
    paths: (f) => randomPaths(f, '/bare?url=', 1),
  },
  {
    name: 'bare-record',
    description: 'Fastify route returning a constant object as large as a lookup answer (about 1 KB)',
    target: 'bare',
    paths: (f) => randomPaths(f, '/bare-record?url=', 7),
  },
  {
    name: 'bare-embed',
    description: 'Fastify route writing a warm embed answer as constant bytes: its 13 headers and a brotli body of 347 bytes, in one write',
    target: 'bare',
    paths: (f) => randomPaths(f, '/bare-embed?url=', 9),
    headers: { 'accept-encoding': 'gzip, deflate, br' },
  },
  {
    name: 'app-healthz',
    description: 'GET /healthz on the app: its app-wide hooks and logger, none of a surface’s (auth, rate limit, schema)',
    target: 'app',
    paths: (f) => randomPaths(f, '/healthz?url=', 6),
  },
  {
    name: 'lookup-warm',
    description: `GET /api/v1/pages/lookup over ${WARM_SET.toLocaleString('en')} URLs (record cache warm)`,
    target: 'app',
    paths: (f) => warmPaths(f, '/api/v1/pages/lookup?url=', 2),
  },
  {
    name: 'lookup-warm-w20',
    description: `lookup-warm while a CMS registers 20 new pages per second (one POST /api/v1/pages each)`,
    target: 'app',
    paths: (f) => warmPaths(f, '/api/v1/pages/lookup?url=', 2),
    writesPerSecond: 20,
  },
  {
    name: 'lookup-warm-w200',
    description: `lookup-warm while a CMS registers 200 new pages per second (one POST /api/v1/pages each)`,
    target: 'app',
    paths: (f) => warmPaths(f, '/api/v1/pages/lookup?url=', 2),
    writesPerSecond: 200,
  },
  {
    name: 'lookup-cold',
    description: 'GET /api/v1/pages/lookup over every registered URL, uniformly at random',
    target: 'app',
    paths: (f) => randomPaths(f, '/api/v1/pages/lookup?url=', 3),
  },
  {
    name: 'record-warm',
    description: `GET /v1/pages/record over ${WARM_SET.toLocaleString('en')} URLs (record cache warm)`,
    target: 'app',
    paths: (f) => warmPaths({ ...f, urls: f.recorded }, '/v1/pages/record?url=', 4),
  },
  {
    name: 'embed-warm',
    description: `GET /api/v1/embed/by-url over ${WARM_SET.toLocaleString('en')} URLs (server-side embed cache warm)`,
    target: 'app',
    paths: (f) => warmPaths(f, '/api/v1/embed/by-url?url=', 8),
    // What every browser sends (readers load embeds through embed.js): a block past 1 KB goes compressed.
    headers: { 'accept-encoding': 'gzip, deflate, br' },
  },
  {
    name: 'record-cold',
    description: 'GET /v1/pages/record over every URL with a record (accepted work), uniformly at random',
    target: 'app',
    paths: (f) => randomPaths({ ...f, urls: f.recorded }, '/v1/pages/record?url=', 5),
  },
];
