// Records the web understands: schema.org JSON-LD on the record page, the APIs and the embed routes,
// expanded offline against the shipped schema.org context; every contribution as a W3C Web Annotation, checked
// against the Web Annotation test suite's schemas; fact-check claims and verdicts; quotes of the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { confirmClaims, contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { annotationMustFailures, expand, schemaOrgTerms, termsUsed } from '../linked-data/linked-data.js';

let t: TestApp;
let pub: TestPublisher;
let anon: Client;
let people: Record<'author' | 'editor' | 'reviewer' | 'checker' | 'checker2' | 'corrector', TestUser>;
let pageUrl: string;
let pageId: number;
const proofs: Record<string, number> = {};

async function submitAndAccept(user: TestUser, item: Record<string, unknown>): Promise<number> {
  const key = await contributorKey(user);
  const sub = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', { url: pageUrl, ...item });
  expect(sub.status, sub.text).toBe(201);
  const decided = await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept' });
  expect(decided.status, decided.text).toBe(200);
  return decided.body.data.contribution_id as number;
}

beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  anon = new Client(t.baseUrl);
  people = {
    author: await signup(t, { name: 'Nellie Bly' }),
    editor: await signup(t, { name: 'Maxwell Perkins' }),
    reviewer: await signup(t, { name: 'Rachel Carson' }),
    checker: await signup(t, { name: 'Ida Tarbell' }),
    checker2: await signup(t, { name: 'Ed Murrow' }),
    corrector: await signup(t, { name: 'Grace Hopper' }),
  };
  pageUrl = `https://${pub.domain}/health/measles`;
  const reg = await pub.api.post('/api/v1/pages', { url: pageUrl, title: 'Measles cases rise', topic: 'health', authors: [people.author.username] });
  await confirmClaims(people.author);
  pageId = reg.body.data.id;
  const evidence = { reason: 'Checked against the CDC table', sources: ['https://cdc.example/measles'] };
  proofs.edit = await submitAndAccept(people.editor, { role: 'edit', summary: 'Tightened the lede', evidence });
  proofs.review = await submitAndAccept(people.reviewer, {
    role: 'review',
    summary: 'The numbers hold up',
    evidence,
    quote: { exact: '120 cases in three states', prefix: 'There were ', suffix: ' this spring' },
  });
  proofs.claim = await submitAndAccept(people.checker, {
    role: 'fact_check',
    summary: 'Checked the vaccination claim',
    evidence,
    claim_reviewed: 'Vaccination rates fell by half',
    verdict: 'mostly_false',
    quote: { exact: 'rates fell by half' },
  });
  proofs.plainCheck = await submitAndAccept(people.checker2, { role: 'fact_check', summary: 'Dates verified', evidence });
  proofs.correction = await submitAndAccept(people.corrector, {
    role: 'correction',
    summary: 'Fixed the count',
    evidence: { before: '102 cases', after: '120 cases', reason: 'The table says 120', sources: [] },
  });
});
afterAll(async () => t?.close());

const PRIVATE = () => [...Object.values(people).map((p) => p.email), pub.owner.email, '@mail.test', 'password', 'token', 'hash', 'secret'];

function expectNothingPrivate(text: string) {
  for (const word of PRIVATE()) expect(text.toLowerCase()).not.toContain(word.toLowerCase());
}

async function expectCleanSchemaOrg(doc: Record<string, unknown>) {
  expect(doc['@context']).toBe('https://schema.org');
  // Every term is one schema.org defines by name (its @vocab would otherwise accept any word silently) ...
  const unknown = [...termsUsed(doc)].filter((term) => !schemaOrgTerms.has(term));
  expect(unknown).toEqual([]);
  // ... and expansion against the shipped context drops nothing (jsonld.js safe mode throws on a dropped term).
  const expanded = await expand(doc);
  expect(expanded).toHaveLength(1);
  expect(JSON.stringify(expanded)).toContain('http://schema.org/NewsArticle');
}

describe('schema.org JSON-LD of a record', () => {
  it('GET /v1/pages/record with format=jsonld or Accept: application/ld+json', async () => {
    const byFormat = await anon.get(`/v1/pages/record?url=${encodeURIComponent(pageUrl)}&format=jsonld`);
    expect(byFormat.status, byFormat.text).toBe(200);
    expect(byFormat.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    const byAccept = await anon.get(`/v1/pages/record?url=${encodeURIComponent(pageUrl)}`, { headers: { accept: 'application/ld+json' } });
    expect(byAccept.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expect(byAccept.body).toEqual(byFormat.body);
    expect(byAccept.headers.get('vary')).toMatch(/accept/i);
    await expectCleanSchemaOrg(byFormat.body);
    expectNothingPrivate(byFormat.text);
    // The plain JSON answer is unchanged by default.
    const json = await anon.get(`/v1/pages/record?url=${encodeURIComponent(pageUrl)}`);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json.body.contributions).toHaveLength(6);
  });

  it('describes who did what: authors, editors and contributors as Persons, corrections, reviews and claim reviews', async () => {
    const { body: doc } = await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(pageUrl)}&format=jsonld`);
    expect(doc).toMatchObject({ '@type': 'NewsArticle', url: pageUrl, headline: 'Measles cases rise', keywords: 'health' });
    const profile = (u: TestUser) => `https://credence.test/contributors/${u.username}`;
    expect(doc.author).toEqual([{ '@type': 'Person', name: 'Nellie Bly', alternateName: people.author.username, url: profile(people.author) }]);
    expect(doc.editor.map((p: { url: string }) => p.url)).toEqual([profile(people.editor)]);
    expect(doc.contributor.map((p: { url: string }) => p.url).sort()).toEqual(
      [people.reviewer, people.checker, people.checker2, people.corrector].map(profile).sort(),
    );
    expect(doc.correction).toEqual([
      expect.objectContaining({
        '@type': 'CorrectionComment',
        url: `https://credence.test/proofs/${proofs.correction}`,
        text: 'Fixed the count Changed “102 cases” to “120 cases”.',
      }),
    ]);
    const byUrl = Object.fromEntries(doc.review.map((r: { url: string }) => [r.url, r]));
    expect(byUrl[`https://credence.test/proofs/${proofs.review}`]['@type']).toBe('Review');
    expect(byUrl[`https://credence.test/proofs/${proofs.plainCheck}`]['@type']).toBe('Review');
    expect(byUrl[`https://credence.test/proofs/${proofs.claim}`]).toMatchObject({
      '@type': 'ClaimReview',
      claimReviewed: 'Vaccination rates fell by half',
      reviewRating: { '@type': 'Rating', ratingValue: 2, bestRating: 5, worstRating: 1, alternateName: 'Mostly false' },
      itemReviewed: { '@type': 'Claim', appearance: { '@type': 'CreativeWork', url: pageUrl } },
      author: { '@type': 'Person', url: profile(people.checker) },
    });
    await expectCleanSchemaOrg(doc);
  });

  it('lookup by Accept; an unregistered page is 404 in JSON-LD, has_record false in JSON', async () => {
    const ld = await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(pageUrl)}`, { headers: { accept: 'application/ld+json, application/json;q=0.5' } });
    expect(ld.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expect(ld.body['@type']).toBe('NewsArticle');
    const unknown = await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent('https://nowhere.example/x')}&format=jsonld`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, error: { code: 'not_found' } });
    const json = await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent('https://nowhere.example/x')}`);
    expect(json.body.data.has_record).toBe(false);
    const bad = await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(pageUrl)}&format=xml`);
    expect(bad.status).toBe(400);
  });

  it('is in the record page, and the record URL answers it to Accept: application/ld+json', async () => {
    const page = await anon.get(`/records/${pageId}`, { headers: { accept: 'text/html' } });
    const scripts = [...page.text.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    const inPage = JSON.parse(scripts[0]!);
    const negotiated = await anon.get(`/records/${pageId}`, { headers: { accept: 'application/ld+json' } });
    expect(negotiated.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expect(inPage).toEqual(negotiated.body);
    await expectCleanSchemaOrg(inPage);
    // No executable inline script: the only inline script element is the JSON-LD data block.
    expect(page.text.match(/<script(?![^>]*type="application\/ld\+json")[^>]*>/g) ?? []).toEqual([]);
  });

  it('embed routes give a ready <script type="application/ld+json"> snippet with format=jsonld', async () => {
    const byId = await anon.get(`/api/v1/embed/article/${pageId}?format=jsonld`);
    expect(byId.status).toBe(200);
    expect(byId.headers.get('content-type')).toMatch(/^text\/html/);
    expect(byId.headers.get('access-control-allow-origin')).toBe('*');
    const m = /^<script type="application\/ld\+json">(.*)<\/script>\n$/s.exec(byId.text);
    expect(m).not.toBeNull();
    await expectCleanSchemaOrg(JSON.parse(m![1]!));
    const byUrl = await anon.get(`/api/v1/embed/by-url?url=${encodeURIComponent(`http://www.${pub.domain}/health/measles/`)}&format=jsonld`);
    expect(byUrl.text).toBe(byId.text);
    const none = await anon.get(`/api/v1/embed/by-url?url=${encodeURIComponent('https://nowhere.example/x')}&format=jsonld`);
    // No record: a 404 in the surface's envelope, never an empty script to paste (test/api/embeds.edges.test.ts).
    expect(none.status).toBe(404);
  });

  it('escapes values so that nothing can end the script element', async () => {
    const sneaky = `https://${pub.domain}/sneaky`;
    await pub.api.post('/api/v1/pages', { url: sneaky, title: '</script><script>alert(1)</script>', authors: [people.author.username] });
    await confirmClaims(people.author);
    const res = await anon.get(`/api/v1/embed/by-url?url=${encodeURIComponent(sneaky)}&format=jsonld`);
    expect(res.text).not.toContain('</script><script>');
    expect(JSON.parse(/^<script type="application\/ld\+json">(.*)<\/script>\n$/s.exec(res.text)![1]!).headline).toBe('</script><script>alert(1)</script>');
  });
});

describe('fact-check claims and verdicts, and quotes', () => {
  it('are stored with the submission and shown once accepted', async () => {
    const mine = await new Client(t.baseUrl).as(await contributorKey(people.checker)).get('/api/v1/submissions');
    expect(mine.body.data[0]).toMatchObject({
      claim_reviewed: 'Vaccination rates fell by half',
      verdict: { value: 2, name: 'mostly_false', label: 'Mostly false' },
      quote: { exact: 'rates fell by half', prefix: null, suffix: null },
    });
  });

  it.each([
    [{ role: 'review', claim_reviewed: 'x', verdict: 'true' }, 'claim_reviewed'],
    [{ role: 'fact_check', verdict: 'true' }, 'claim_reviewed'],
    [{ role: 'fact_check', claim_reviewed: 'Something' }, 'verdict'],
    [{ role: 'fact_check', claim_reviewed: 'Something', verdict: 'pants_on_fire' }, 'verdict'],
    [{ role: 'review', quote: { exact: '' } }, 'quote.exact'],
  ])('refuses %j naming %s', async (extra, field) => {
    const client = new Client(t.baseUrl).as(await contributorKey(people.reviewer));
    const res = await client.post('/api/v1/submissions', { url: pageUrl, summary: 'x', evidence: { reason: 'r', sources: [] }, ...extra });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('W3C Web Annotations', () => {
  const annotation = (id: number, accept = 'application/ld+json; profile="http://www.w3.org/ns/anno.jsonld"') =>
    anon.get(`/proofs/${id}`, { headers: { accept } });

  it('every public contribution is one, valid against the Web Annotation test suite, expanding cleanly', async () => {
    for (const id of Object.values(proofs)) {
      const res = await annotation(id);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/ld+json; profile="http://www.w3.org/ns/anno.jsonld"; charset=utf-8');
      expect(annotationMustFailures(res.body)).toEqual([]);
      const expanded = await expand(res.body);
      expect(JSON.stringify(expanded)).toContain('http://www.w3.org/ns/oa#Annotation');
      expectNothingPrivate(res.text);
    }
  });

  it('the suite’s schemas do catch a broken annotation', async () => {
    const good = (await annotation(proofs.review!)).body;
    expect(annotationMustFailures(good)).toEqual([]);
    expect(annotationMustFailures({ ...good, target: undefined })).not.toEqual([]);
    expect(annotationMustFailures({ ...good, created: 'last Tuesday' })).not.toEqual([]);
    expect(annotationMustFailures({ ...good, '@context': 'https://schema.org' })).not.toEqual([]);
  });

  it('targets the page with a TextQuoteSelector where the work quotes it; motivation and creator follow the work', async () => {
    const correction = (await annotation(proofs.correction!)).body;
    expect(correction).toMatchObject({
      '@context': 'http://www.w3.org/ns/anno.jsonld',
      id: `https://credence.test/proofs/${proofs.correction}`,
      type: 'Annotation',
      motivation: 'editing',
      creator: { id: `https://credence.test/contributors/${people.corrector.username}`, type: 'Person', name: 'Grace Hopper' },
      target: { source: pageUrl, selector: { type: 'TextQuoteSelector', exact: '102 cases' } },
    });
    expect(correction.body).toContainEqual({ type: 'TextualBody', value: '120 cases', format: 'text/plain', purpose: 'editing' });
    const review = (await annotation(proofs.review!)).body;
    expect(review.motivation).toBe('assessing');
    expect(review.target).toEqual({
      source: pageUrl,
      selector: { type: 'TextQuoteSelector', exact: '120 cases in three states', prefix: 'There were ', suffix: ' this spring' },
    });
    expect((await annotation(proofs.edit!)).body).toMatchObject({ motivation: 'editing', target: pageUrl });
    const plain = await annotation(proofs.plainCheck!, 'application/ld+json');
    expect(plain.body).toMatchObject({ type: 'Annotation', motivation: 'assessing', target: pageUrl });
  });

  it('the proof URL still answers HTML and JSON as before', async () => {
    expect((await anon.get(`/proofs/${proofs.review}`, { headers: { accept: 'text/html' } })).headers.get('content-type')).toMatch(/^text\/html/);
    const json = await anon.get(`/proofs/${proofs.review}`);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json.body.id).toBe(`ctb_${proofs.review}`);
  });
});
