// Page registration (upsert, batches, authors, the outbox) and trust records on both surfaces (SPEC §3, §9).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { confirmClaims, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
let anon: Client;
beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  anon = new Client(t.baseUrl);
});
afterAll(async () => t?.close());

const lookup = (url: string) => anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(url)}`);
const v1Record = (url: string) => anon.get(`/v1/pages/record?url=${encodeURIComponent(url)}`);

describe('registration', () => {
  it('creates, skips when nothing changed, updates when title or topic changed', async () => {
    const url = `https://${pub.domain}/news/one`;
    const created = await pub.api.post('/api/v1/pages', { url, title: 'One', topic: 'Health' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ index: 0, status: 'created', url });
    const id = created.body.data.id;
    const same = await pub.api.post('/api/v1/pages', { url: `${url}/`, title: 'One', topic: 'health' });
    expect(same.status).toBe(200);
    expect(same.body.data).toMatchObject({ status: 'skipped', id });
    const changed = await pub.api.post('/api/v1/pages', { url, title: 'One, corrected' });
    expect(changed.body.data).toMatchObject({ status: 'updated', id });
    const rec = await anon.get(`/api/v1/articles/${id}`);
    expect(rec.body.data).toMatchObject({ id, title: 'One, corrected', topic: 'health' });
  });

  it('applies each batch item on its own and counts every status', async () => {
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/b/1`, title: 'B1' });
    const res = await pub.api.post('/api/v1/pages', [
      { url: `https://${pub.domain}/b/1`, title: 'B1' },
      { url: `https://${pub.domain}/b/2`, title: 'B2' },
      { url: 'javascript:alert(1)' },
      { url: 'https://elsewhere.example/x' },
      { title: 'no url' },
      { url: `https://${pub.domain}/b/1`, title: 'B1 renamed' },
      { url: `https://sub.${pub.domain}/b/3` },
      { url: `https://${pub.domain}/b/4`, authors: ['no-such-author'] },
    ]);
    expect(res.status).toBe(200);
    const statuses = res.body.data.results.map((r: { status: string }) => r.status);
    expect(statuses).toEqual(['skipped', 'created', 'failed', 'failed', 'failed', 'updated', 'created', 'failed']);
    expect(res.body.data.summary).toEqual({ created: 2, updated: 1, skipped: 1, failed: 4 });
    const errors = res.body.data.results.map((r: { error?: { code: string } }) => r.error?.code);
    expect(errors[2]).toBe('invalid_url');
    expect(errors[3]).toBe('page_not_verified');
    expect(res.body.data.results[3].error.message).toContain('elsewhere.example');
    expect(res.body.data.results[4].error.details[0].field).toBe('url');
    expect(res.body.data.results[7].error.details[0].field).toBe('authors.0');
    expect(res.body.data.results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('takes 500 items and refuses 501 as a whole', async () => {
    const items = Array.from({ length: 500 }, (_, i) => ({ url: `https://${pub.domain}/bulk/${i}`, title: `Bulk ${i}` }));
    const ok = await pub.api.post('/api/v1/pages', items);
    expect(ok.status).toBe(200);
    expect(ok.body.data.summary.created).toBe(500);
    const tooMany = await pub.api.post('/api/v1/pages', [...items, { url: `https://${pub.domain}/bulk/500` }]);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toContain('500');
    expect((await lookup(`https://${pub.domain}/bulk/500`)).body.data.registered).toBe(false);
  });

  it('refuses a single item off the verified domains with 403 page_not_verified naming the host', async () => {
    const res = await pub.api.post('/api/v1/pages', { url: 'https://not-mine.example/a' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'page_not_verified' });
    expect(res.body.error.message).toContain('not-mine.example');
  });

  it('writes page.registered to the outbox with the page, only for new pages', async () => {
    const url = `https://${pub.domain}/events/1`;
    const before = await t.runtime.deps.db.selectFrom('events').select('id').where('type', '=', 'page.registered').execute();
    await pub.api.post('/api/v1/pages', { url, title: 'E1' });
    await pub.api.post('/api/v1/pages', { url, title: 'E1 again' });
    const after = await t.runtime.deps.db.selectFrom('events').selectAll().where('type', '=', 'page.registered').orderBy('id').execute();
    expect(after.length).toBe(before.length + 1);
    expect(JSON.parse(after.at(-1)!.payload)).toMatchObject({ url, title: 'E1' });
  });
});

describe('records', () => {
  it('names authors as accepted contributions, on both surfaces', async () => {
    const author = await signup(t, { name: 'Rosalind F.' });
    const url = `https://www.${pub.domain}/science/dna/?ref=home`;
    const reg = await pub.api.post('/api/v1/pages', { url, title: 'DNA', topic: 'science', authors: [author.username] });
    await confirmClaims(author);
    expect(reg.status).toBe(201);
    const rec = await lookup(url);
    expect(rec.body.data).toMatchObject({
      url: `https://www.${pub.domain}/science/dna/?ref=home`,
      title: 'DNA',
      has_record: true,
      registered: true,
      status: 'verified',
      record_url: `https://credence.test/records/${reg.body.data.id}`,
      publisher: { slug: pub.slug, verified: true },
    });
    const entry = rec.body.data.contributors.author[0];
    expect(entry).toMatchObject({
      username: author.username,
      name: 'Rosalind F.',
      level: 'newcomer',
      trust_score: 0.21,
      summary: 'Wrote this page',
      profile_url: `https://credence.test/contributors/${author.username}`,
    });
    expect(entry.proof_url).toMatch(/^https:\/\/credence\.test\/proofs\/\d+$/);
    const v1 = await v1Record(url);
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ status: 'verified', contributions: [{ role: 'author', name: 'Rosalind F.', accepted: '2026-11-21' }] });
    expect(v1.body.contributions[0].change).toBeUndefined();
    // Registering the same author again changes nothing.
    const again = await pub.api.post('/api/v1/pages', { url, title: 'DNA', topic: 'science', authors: [author.username] });
    await confirmClaims(author);
    expect(again.body.data.status).toBe('skipped');
  });

  it('matches URLs by the lookup key: scheme, host case, trailing slash and fragment ignored; query kept', async () => {
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/News/a/?x=1`, title: 'Keyed' });
    for (const variant of [`HTTPS://${pub.domain.toUpperCase()}/News/a/?x=1#top`, `http://${pub.domain}/News/a?x=1`]) {
      expect((await lookup(variant)).body.data.title, variant).toBe('Keyed');
    }
    for (const other of [`https://${pub.domain}/news/a?x=1`, `https://${pub.domain}/News/a?x=2`, `https://${pub.domain}/News/a`]) {
      expect((await lookup(other)).body.data.registered, other).toBe(false);
    }
  });

  it('answers an unknown page with has_record false, and /v1 with 404', async () => {
    const res = await lookup('https://unknown.example/page');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({ has_record: false, registered: false, url: 'https://unknown.example/page', contributors: {} }),
    });
    // Twice: the second 404 comes from the cached answer, thrown as the route sends at once (useCached).
    for (let i = 0; i < 2; i++) {
      const v1 = await v1Record('https://unknown.example/page');
      expect(v1.status).toBe(404);
      expect(v1.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
      const ld = await anon.get(`/v1/pages/record?url=${encodeURIComponent('https://unknown.example/page')}&format=jsonld`);
      expect(ld.status).toBe(404);
      expect(ld.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
  });

  it('agrees on a registered page with no accepted work: has_record false, and /v1 404 (no record yet)', async () => {
    const url = `https://${pub.domain}/quiet/page`;
    expect((await pub.api.post('/api/v1/pages', { url, title: 'Quiet' })).status).toBe(201);
    const res = await lookup(url);
    expect(res.body.data).toMatchObject({ has_record: false, registered: true, title: 'Quiet', contributors: {} });
    const v1 = await v1Record(url);
    expect(v1.status, v1.text).toBe(404);
    expect(v1.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    // Naming an author makes the record, on both surfaces at once (the cache is invalidated by the write).
    const author = await signup(t);
    await pub.api.post('/api/v1/pages', { url, title: 'Quiet', authors: [author.username] });
    await confirmClaims(author);
    expect((await lookup(url)).body.data.has_record).toBe(true);
    expect((await v1Record(url)).status).toBe(200);
  });

  it('refuses a missing or bad url with 400 in each envelope', async () => {
    const v1Missing = await anon.get('/v1/pages/record');
    expect(v1Missing.status).toBe(400);
    expect(v1Missing.body.error.code).toBe('missing_parameter');
    expect(v1Missing.body.success).toBeUndefined();
    const apiMissing = await anon.get('/api/v1/pages/lookup');
    expect(apiMissing.body).toMatchObject({ success: false, error: { code: 'missing_parameter' } });
    for (const bad of ['javascript:alert(1)', 'http://[::1', `https://x.example/${'a'.repeat(3000)}`]) {
      const res = await lookup(bad);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_url');
    }
  });

  it('shows a page as unverified once its domain verification lapses', async () => {
    const other = await publisher(t);
    const writer = await signup(t);
    const reg = await other.api.post('/api/v1/pages', { url: `https://${other.domain}/lapse`, title: 'Lapse', authors: [writer.username] });
    await confirmClaims(writer);
    expect((await anon.get(`/api/v1/articles/${reg.body.data.id}`)).body.data.status).toBe('verified');
    // Another publisher proves control of the domain: the first one's verification lapses.
    const newcomer = await publisher(t, { domain: `x-${other.domain}` });
    const { verifyDomainByOperator } = await import('../../src/domain/publishers/publisher.service.js');
    await verifyDomainByOperator(t.runtime.deps, newcomer.slug, other.domain);
    const after = await anon.get(`/api/v1/articles/${reg.body.data.id}`);
    expect(after.body.data).toMatchObject({ status: 'unverified', publisher: { verified: false } });
    expect((await v1Record(`https://${other.domain}/lapse`)).body.status).toBe('unverified');
  });

  it('lists the publisher’s own pages with records, paginated and capped at 100', async () => {
    const res = await pub.api.get('/api/v1/pages?per_page=500');
    expect(res.status).toBe(200);
    expect(res.body.meta.per_page).toBe(100);
    expect(res.body.data.length).toBe(100);
    expect(res.body.meta.total).toBeGreaterThan(500);
    const page2 = await pub.api.get('/api/v1/pages?page=2&per_page=3');
    expect(page2.body.meta).toMatchObject({ page: 2, per_page: 3 });
    expect(page2.body.data[0]).toHaveProperty('contributors');
    const zero = await pub.api.get('/api/v1/pages?page=0');
    expect(zero.status).toBe(400);
  });

  it('404s an unknown article', async () => {
    const res = await anon.get('/api/v1/articles/999999');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
