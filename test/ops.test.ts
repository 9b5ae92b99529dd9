// What operators probe and scrape: /livez, /readyz (database, Redis when set, relay backlog), and /metrics, which
// is not public: absent without METRICS_TOKEN, 401 without the token, Prometheus text with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from './client.js';
import { startTestApp, type TestApp } from './harness.js';

const TOKEN = 'metrics-token-0123456789';
let t: TestApp;
let open: TestApp;
beforeAll(async () => {
  t = await startTestApp({ metricsToken: TOKEN });
  open = await startTestApp();
});
afterAll(async () => {
  await t?.close();
  await open?.close();
});

describe('probes', () => {
  it('/livez answers without touching a dependency', async () => {
    const res = await new Client(t.baseUrl).get('/livez');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('/readyz reports the database and the relay backlog', async () => {
    const res = await new Client(t.baseUrl).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.status).toBe('ok');
    expect(res.body.checks.database.status).toBe('ok');
    expect(res.body.checks.relay).toEqual({ status: 'ok', detail: '0 events waiting; oldest 0 s' });
    expect(res.body.checks.redis).toBeUndefined();
  });

  it('/readyz is 503 with the reason when the database cannot be read', async () => {
    const broken = await startTestApp();
    // The database closed under the app: every query fails, as when the server is gone.
    await broken.runtime.database.close();
    const res = await new Client(broken.baseUrl).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('failing');
    expect(res.body.checks.database.status).toBe('failing');
    expect(res.body.checks.database.detail).toMatch(/unreachable/);
    await broken.app.close();
  });
});

describe('metrics', () => {
  it('are not served at all without METRICS_TOKEN (or METRICS_PORT, a listener of its own)', async () => {
    const res = await new Client(open.baseUrl).get('/metrics');
    expect(res.status).toBe(404);
  });

  it('need the token as a bearer token', async () => {
    expect((await new Client(t.baseUrl).get('/metrics')).status).toBe(401);
    const wrong = await new Client(t.baseUrl, undefined, 'metrics-token-wrong-one').get('/metrics');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('unauthorized');
  });

  it('count requests by route pattern, cache reads, refusals and the relay backlog', async () => {
    const c = new Client(t.baseUrl, '10.9.9.9');
    for (let i = 0; i < 3; i++) await c.get('/api/v1/pages/lookup?url=https://nothing.example/a');
    // Cached answers are written past Fastify's send (http/wire.ts): still counted, a hit as a miss.
    for (let i = 0; i < 2; i++) expect((await c.get('/api/v1/embed/by-url?url=https://nothing.example/a')).status).toBe(200);
    // A path no route matches is one label, whatever the path.
    expect((await new Client(t.baseUrl, '10.9.9.8').get('/api/v1/nothing-here/at-all')).status).toBe(404);
    // One address past its bucket (60 without a key): refusals are counted by route.
    let refused = 0;
    for (let i = 0; i < 70 && refused === 0; i++) if ((await c.get(`/v1/pages/record?url=https://nothing.example/${i}`)).status === 429) refused++;
    expect(refused).toBe(1);
    const res = await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/credence_http_requests_total\{route="\/api\/v1\/pages\/lookup",method="GET",status="200"\} 3/);
    expect(text).toMatch(/credence_http_request_duration_seconds_bucket\{le="0\.1",route="\/api\/v1\/pages\/lookup",method="GET"\} 3/);
    expect(text).toMatch(/credence_rate_limit_refusals_total\{route="\/v1\/pages\/record"\} 1/);
    expect(text).toMatch(/credence_http_requests_total\{route="unmatched",method="GET",status="404"\} 1/);
    expect(text).toMatch(/credence_http_requests_total\{route="\/api\/v1\/embed\/by-url",method="GET",status="200"\} 2/);
    expect(text).toMatch(/credence_record_cache_requests_total\{result="miss"\} \d+/);
    expect(text).toMatch(/credence_relay_backlog_events 0/);
    expect(text).toMatch(/credence_relay_scrape_ok 1/);
    expect(text).toMatch(/credence_process_cpu_seconds_total|credence_nodejs_eventloop_lag/);
    // Raw paths never become labels: the query string and the URL asked for are not in the text.
    expect(text).not.toContain('nothing.example');
    expect(text).not.toContain('nothing-here');
  });
});

describe('hooks', () => {
  it('has one onSend hook of its own, the answer headers, besides Fastify’s for HEAD: cached answers are written past Fastify’s send', () => {
    // Warm lookups, records and embeds leave Fastify's send (http/wire.ts), so an onSend hook would silently skip the
    // busiest routes. The answer headers' hook is the one they do the work of themselves (security-headers.ts); one
    // added to the app must find another way, or that decision must be revisited (docs/decisions/cached-answers-as-bytes.md, "Cached
    // answers are written as their bytes").
    const lines = t.app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n');
    const onSend = lines.filter((line) => line.includes('(onSend)')).map((line) => line.replace(/^[\s│├└─]*/, ''));
    expect(onSend.length).toBeGreaterThan(0);
    expect(new Set(onSend)).toEqual(
      new Set(['• (onSend) ["answerHeadersOnSend()"]', '• (onSend) ["answerHeadersOnSend()","headRouteOnSendHandler()"]']),
    );
  });
});
