// Errors by content negotiation: a browser (Accept: text/html) gets a page in the site's frame with the status
// (404, 405, 429, 500), an API client and every API path the JSON envelope.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const browse = () => new FormClient(t.baseUrl);
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The page frame: the site's header and navigation around the error. */
function expectFramed(text: string, heading: string) {
  expect(text).toContain('<header class="site">');
  expect(text).toContain('<nav aria-label="Main">');
  expect(text).toContain(`<h1>${heading}</h1>`);
  expect(text).toContain('<meta name="robots" content="noindex">');
}

describe('errors for browsers and for API clients', () => {
  it('answers an unknown address as a 404 page to a browser, and as JSON to an API client', async () => {
    const page = await browse().get('/nope', { accept: BROWSER_ACCEPT });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    expectFramed(page.text, 'Not found');
    expect(page.text).toContain('There is no page at <code class="wrap">/nope</code>');
    expect(page.text).toContain('action="/search"');

    for (const accept of [undefined, 'application/json', '*/*']) {
      const res = await fetch(`${t.baseUrl}/nope`, { headers: accept ? { accept } : {} });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('keeps API paths in JSON whatever the browser asks for', async () => {
    for (const path of ['/v1/nope', '/api/v1/nope', '/api/nope', '/v1']) {
      const res = await fetch(t.baseUrl + path, { headers: { accept: BROWSER_ACCEPT } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toContain('application/json');
    }
  });

  it('answers a method an address does not take as a 405 page with Allow', async () => {
    const res = await fetch(`${t.baseUrl}/search`, { method: 'PUT', headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expectFramed(await res.text(), 'Not allowed here');
    const json = await fetch(`${t.baseUrl}/search`, { method: 'PUT', headers: { accept: 'application/json' } });
    expect(json.status).toBe(405);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  });

  it('answers a failure as a 500 page with the request id, and nothing of the cause', async () => {
    const db = t.runtime.deps.db;
    await sql`alter table panel_statements rename to panel_statements_away`.execute(db);
    try {
      const res = await fetch(`${t.baseUrl}/panels`, { headers: { accept: BROWSER_ACCEPT, 'x-request-id': 'err-page-1' } });
      expect(res.status).toBe(500);
      const text = await res.text();
      expectFramed(text, 'Something went wrong');
      expect(text).toContain('<code>err-page-1</code>');
      expect(text).not.toMatch(/panel_statements|no such table|does not exist/);
      // The API's read of the same table: the envelope, with the request id and nothing more.
      const json = await fetch(`${t.baseUrl}/v1/panels`, { headers: { accept: BROWSER_ACCEPT } });
      expect(json.status).toBe(500);
      expect(json.headers.get('content-type')).toContain('application/json');
    } finally {
      await sql`alter table panel_statements_away rename to panel_statements`.execute(db);
    }
  });
  it('answers a rate-limited browser with a 429 page that says how long to wait', async () => {
    const b = browse();
    let last = await b.get('/login', { accept: BROWSER_ACCEPT });
    for (let i = 0; i < 80 && last.status !== 429; i++) last = await b.get('/login', { accept: BROWSER_ACCEPT });
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expectFramed(last.text, 'Too many requests');
    expect(last.text).toMatch(/Wait \d+ seconds?, then reload the page/);
    // The same address asking as an API client gets the envelope (a record is a page or JSON by Accept).
    const json = await fetch(`${t.baseUrl}/records/1`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(429);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
  });
});
