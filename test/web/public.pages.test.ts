// The public pages over HTTP, as a browser without JavaScript sees them: content, <title>, lang, canonical links,
// schema.org JSON-LD, 404s as pages, escaping of hostile names, and no private field anywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';
import { HOSTILE, jsonLdOf, makePagesWorld, type PagesWorld } from './pages.fixtures.js';

let t: TestApp;
let w: PagesWorld;
const SITE = 'https://credence.test';

beforeAll(async () => {
  // Page tests browse from one loopback address; lift its limit so the suite measures pages, not the limiter.
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  w = await makePagesWorld(t);
});
afterAll(async () => t?.close());

const browse = () => new FormClient(t.baseUrl);
const titleOf = (page: string) => /<title>([\s\S]*?)<\/title>/.exec(page)?.[1];
const canonicalOf = (page: string) => /<link rel="canonical" href="([^"]+)">/.exec(page)?.[1];

/** Every public page the fixture world has, by path. */
const publicPaths = () => [
  '/',
  '/search?q=ida',
  `/search?q=${encodeURIComponent(w.page.url)}`,
  `/records/${w.page.id}`,
  `/proofs/${w.correctionId}`,
  `/proofs/${w.authorshipId}`,
  `/contributors/${w.specialist.username}`,
  `/contributors/${w.hostile.username}`,
  `/publishers/${w.pub.slug}`,
  '/panels',
  `/panels/${w.panelId}`,
  '/requests',
  '/requests?topic=health&kind=fact_check',
];

describe('every public page', () => {
  it('is an English HTML page with a title, a canonical link and no private field', async () => {
    const b = browse();
    for (const path of publicPaths()) {
      const res = await b.get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toContain('text/html');
      expect(res.text, path).toMatch(/^<!doctype html>\n<html lang="en">/);
      expect(titleOf(res.text), path).toMatch(/ · Credence$/);
      expect(canonicalOf(res.text), path).toBe(`${SITE}${path.split('?')[0]}`);
      for (const email of w.everyEmail) expect(res.text, `${path} shows ${email}`).not.toContain(email);
      expect(res.text, path).not.toMatch(/@mail\.test|password|cred_live_|cred_sess_/);
      // The hostile name is text wherever it shows, never markup.
      expect(res.text, path).not.toContain(HOSTILE);
    }
  });

  it('shows a hostile contributor name as text', async () => {
    const b = browse();
    for (const path of [`/records/${w.page.id}`, `/contributors/${w.hostile.username}`, `/publishers/${w.pub.slug}`]) {
      const res = await b.get(path);
      expect(res.text, path).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
    const profile = await b.get(`/contributors/${w.hostile.username}`);
    // Inside JSON-LD too: the script element cannot be closed by a name.
    expect(jsonLdOf(profile.text)[0].mainEntity.name).toBe(HOSTILE);
    expect(profile.text).not.toMatch(/<script type="application\/ld\+json">[^<]*<img/);
  });
});

describe('home and search', () => {
  it('explains the service, offers a GET search form and shows recent work', async () => {
    const res = await browse().get('/');
    expect(res.text).toContain('<form method="get" action="/search"');
    expect(res.text).toContain('Recently accepted work');
    expect(res.text).toContain(`/proofs/${w.correctionId}`);
    expect(res.text).toContain(`/panels/${w.panelId}`);
    expect(jsonLdOf(res.text)[0]).toMatchObject({ '@type': 'WebSite', url: `${SITE}/` });
  });

  it('finds a page by URL, with or without its scheme', async () => {
    for (const q of [w.page.url, w.page.url.replace('https://', ''), w.page.url.replace('https://', 'HTTP://').toUpperCase().replace('/NEWS/MEASLES-OUTBREAK', '/news/measles-outbreak/')]) {
      const res = await browse().get(`/search?q=${encodeURIComponent(q)}`);
      expect(res.text, q).toContain(`href="/records/${w.page.id}"`);
      expect(res.text).toContain('<meta name="robots" content="noindex">');
    }
    const none = await browse().get(`/search?q=${encodeURIComponent(`https://${w.pub.domain}/not-registered`)}`);
    expect(none.text).toContain('No page is on record at');
  });

  it('finds contributors by name and publishers by slug or name', async () => {
    const people = await browse().get('/search?q=ida%20b');
    expect(people.text).toContain(`href="/contributors/${w.specialist.username}"`);
    const bySlug = await browse().get(`/search?q=${w.pub.slug}`);
    expect(bySlug.text).toContain(`href="/publishers/${w.pub.slug}"`);
    const byName = await browse().get(`/search?q=${encodeURIComponent(`The ${w.pub.slug}`.toUpperCase())}`);
    expect(byName.text).toContain(`href="/publishers/${w.pub.slug}"`);
    const nothing = await browse().get('/search?q=%25_%5C');
    expect(nothing.text).toContain('Nothing matched.');
    const empty = await browse().get('/search');
    expect(empty.status).toBe(200);
  });
});

describe('/records/{id}', () => {
  it('answers a browser with the record page: every contribution with its proof', async () => {
    const res = await browse().get(`/records/${w.page.id}`);
    expect(res.status).toBe(200);
    expect(titleOf(res.text)).toBe(`Trust record: ${w.page.title} · Credence`);
    expect(res.text).toContain('✓ Verified site');
    expect(res.text).toContain(`href="/proofs/${w.correctionId}"`);
    expect(res.text).toContain(`href="/proofs/${w.authorshipId}"`);
    expect(res.text).toContain(`href="/contributors/${w.author.username}"`);
    // The correction's change as a word diff.
    expect(res.text).toContain('<del>1887</del><ins>1889</ins>');
    const [ld] = jsonLdOf(res.text);
    expect(ld).toMatchObject({
      '@context': 'https://schema.org',
      // The page itself, as a NewsArticle (docs/decisions/linked-data.md).
      '@type': 'NewsArticle',
      name: w.page.title,
      url: w.page.url,
      publisher: { '@type': 'Organization', url: `${SITE}/publishers/${w.pub.slug}` },
      author: [{ '@type': 'Person', name: 'Nellie Bly', url: `${SITE}/contributors/${w.author.username}` }],
    });
    expect(ld.contributor.map((p: { name: string }) => p.name).sort()).toEqual([HOSTILE, 'Ida B. Wells'].sort());
  });

  it('keeps answering API clients with the same JSON', async () => {
    const res = await new Client(t.baseUrl).get(`/records/${w.page.id}`);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toMatchObject({ id: w.page.id, url: w.page.url, has_record: true, status: 'verified' });
    const asJson = await browse().get(`/records/${w.page.id}`, { accept: 'application/json, text/html' });
    expect(asJson.headers.get('content-type')).toContain('application/json');
    for (const path of [`/records/${w.page.id}`, `/proofs/${w.correctionId}`]) {
      expect((await browse().get(path)).headers.get('vary'), path).toMatch(/accept/i);
      expect((await new Client(t.baseUrl).get(path)).headers.get('vary'), path).toMatch(/accept/i);
    }
  });

  it('is a 404 page for a browser and a JSON 404 for an API client', async () => {
    const page = await browse().get('/records/999999');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('<h1>Not found</h1>');
    expect(page.text).toContain('<html lang="en">');
    const json = await new Client(t.baseUrl).get('/records/999999');
    expect(json.status).toBe(404);
    expect(json.body.error.code).toBe('not_found');
    const bad = await browse().get('/records/not-a-number');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('text/html');
  });
});

describe('/proofs/{id}', () => {
  it('shows the evidence: a readable diff, the reason, the sources and the decision date', async () => {
    const res = await browse().get(`/proofs/${w.correctionId}`);
    expect(res.status).toBe(200);
    expect(titleOf(res.text)).toBe(`Correction by Ida B. Wells: ${w.page.title} · Credence`);
    expect(res.text).toContain('The outbreak began in <del>1887</del><ins>1889</ins> in the northern districts, <ins>health</ins> officials said.');
    expect(res.text).toContain('The health ministry archive dates the first cases to March 1889.');
    // Sources are links that carry no weight of ours, their query strings escaped.
    expect(res.text).toContain('<a href="https://library.example/papers?id=42&amp;lang=en" rel="nofollow ugc noopener noreferrer">');
    expect(res.text).toContain('<time datetime="2026-11-21T10:00:00.000Z">21 Nov 2026</time>');
    expect(res.text).toContain('Checked against the archive.');
    expect(res.text).toContain(`href="/records/${w.page.id}"`);
    expect(jsonLdOf(res.text)[0]).toMatchObject({
      '@type': 'CreativeWork',
      url: `${SITE}/proofs/${w.correctionId}`,
      author: { '@type': 'Person', name: 'Ida B. Wells' },
      about: { url: w.page.url },
      citation: ['https://archive.example/ministry/report-1889', 'https://library.example/papers?id=42&lang=en'],
    });
  });

  it('says an author was named by the publisher, without evidence', async () => {
    const res = await browse().get(`/proofs/${w.authorshipId}`);
    expect(res.text).toContain('is named as an author of this page by');
    expect(res.text).not.toContain('<h2>Reason</h2>');
  });

  it('keeps its JSON for API clients, and 404s as a page', async () => {
    const json = await new Client(t.baseUrl).get(`/proofs/${w.correctionId}`);
    expect(json.body).toMatchObject({ id: `ctb_${w.correctionId}`, role: 'correction', evidence: { reason: expect.any(String) } });
    const missing = await browse().get('/proofs/999999');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Proof not found');
  });
});

describe('/contributors/{username}', () => {
  it('shows scores, topic authority and accepted work, with Person JSON-LD', async () => {
    const res = await browse().get(`/contributors/${w.specialist.username}`);
    expect(titleOf(res.text)).toBe(`Ida B. Wells (@${w.specialist.username}) · Credence`);
    expect(res.text).toContain('trust score');
    expect(res.text).toContain('contribution score');
    expect(res.text).toContain('<h2>Topic authority</h2>');
    expect(res.text).toContain('>health</a>');
    expect(res.text).toContain(`href="/proofs/${w.correctionId}"`);
    // A panellist on a current statement is an expert (SPEC §13).
    expect(res.text).toContain('>expert</span>');
    const [ld] = jsonLdOf(res.text);
    expect(ld).toMatchObject({
      '@type': 'ProfilePage',
      mainEntity: { '@type': 'Person', name: 'Ida B. Wells', alternateName: w.specialist.username, knowsAbout: ['health'] },
    });
  });

  it('finds a profile by username in any case, and 404s as a page for nobody', async () => {
    expect((await browse().get(`/contributors/${w.specialist.username.toUpperCase()}`)).status).toBe(200);
    const missing = await browse().get('/contributors/nobody-here');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Contributor not found');
    expect(canonicalOf(missing.text)).toBe(`${SITE}/contributors/nobody-here`);
  });
});

describe('/publishers/{slug}', () => {
  it('shows verified domains, recent pages and contributors, with Organization JSON-LD', async () => {
    const res = await browse().get(`/publishers/${w.pub.slug}`);
    expect(titleOf(res.text)).toBe(`The ${w.pub.slug} · Credence`);
    expect(res.text).toContain(`✓ ${w.pub.domain}`);
    expect(res.text).toContain(`href="/records/${w.page.id}"`);
    expect(res.text).toContain(`href="/contributors/${w.specialist.username}"`);
    expect(jsonLdOf(res.text)[0]).toEqual({
      '@context': 'https://schema.org',
      '@type': 'Organization',
      name: `The ${w.pub.slug}`,
      url: `${SITE}/publishers/${w.pub.slug}`,
      sameAs: [`https://${w.pub.domain}`],
    });
    expect((await browse().get('/publishers/nope')).status).toBe(404);
  });
});

describe('/panels and /panels/{id}', () => {
  it('shows the current statement, vote, panellists, revisit date, triggers and what changed', async () => {
    const res = await browse().get(`/panels/${w.panelId}`);
    expect(titleOf(res.text)).toBe('Expert panel: Is the MMR vaccine safe for children? · Credence');
    expect(res.text).toContain('Version 2');
    expect(res.text).toContain('high certainty');
    expect(res.text).toMatch(/<strong>2<\/strong> agree<\/li><li><strong>1<\/strong> dissent/);
    expect(res.text).toContain(`href="/contributors/${w.specialist.username}"`);
    expect(res.text).toContain('Dr. Omar Haddad');
    expect(res.text).toContain('<time datetime="2027-06-01">1 Jun 2027</time>');
    expect(res.text).toContain('A cited source is corrected');
    // What changed in version 2, and version 1 kept in full.
    expect(res.text).toContain('<h2>What changed in version 2</h2>');
    expect(res.text).toContain('Serious side effects are <ins>very</ins> rare');
    expect(res.text).toContain('moderate certainty → high certainty');
    expect(res.text).toContain('<ins>Dr. Omar Haddad (member, dissent)</ins>');
    expect(res.text).toMatch(/<summary>Version 1 <span class="muted">issued <time datetime="2026-11-21T10:00:00.000Z">/);
    expect(res.text).toContain('Yes. Serious side effects are rare.');
    expect(jsonLdOf(res.text)[0]).toMatchObject({ '@type': 'CreativeWork', name: 'Is the MMR vaccine safe for children?', version: 2, keywords: 'health' });
  });

  it('lists current statements by topic, and 404s for an unknown one', async () => {
    const list = await browse().get('/panels?topic=health');
    expect(list.text).toContain(`href="/panels/${w.panelId}"`);
    const other = await browse().get('/panels?topic=astrology');
    expect(other.text).not.toContain(`href="/panels/${w.panelId}"`);
    expect((await browse().get('/panels/no-such-panel')).status).toBe(404);
    expect((await browse().get(`/panels/${w.panelId.toUpperCase()}`)).status).toBe(200);
  });
});

describe('/requests', () => {
  it('lists open requests with filters; visitors are asked to log in to take one', async () => {
    const all = await browse().get('/requests');
    expect(all.text).toContain('Check the vaccination figures');
    expect(all.text).toContain('Review the climate explainer');
    expect(all.text).toContain('Sign in to take it');
    expect(all.text).not.toContain('action="/me/requests/');
    const health = await browse().get('/requests?topic=health');
    expect(health.text).toContain('Check the vaccination figures');
    expect(health.text).not.toContain('Review the climate explainer');
    const reviews = await browse().get('/requests?kind=review');
    expect(reviews.text).not.toContain('Check the vaccination figures');
    expect(reviews.text).toContain('<option value="review" selected>');
    const junk = await browse().get('/requests?kind=%3Cscript%3E&page=-4&topic=%3Cb%3E');
    expect(junk.status).toBe(200);
    expect(junk.text).toContain('value="&lt;b&gt;"');
    expect(junk.text).not.toContain('<b>');
  });
});
