// Publications, members and domain verification for real: DNS TXT from a stub resolver, the well-known file from a
// local HTTP server (SPEC §1, §16).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { addMember, confirmClaims, signup, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let files: Map<string, { status: number; body: string }>;
let fileServer: http.Server;
beforeAll(async () => {
  t = await startTestApp();
  files = new Map();
  fileServer = http.createServer((req, res) => {
    const f = files.get(req.url ?? '') ?? { status: 404, body: 'not found' };
    res.writeHead(f.status, { 'content-type': 'text/plain' }).end(f.body);
  });
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
  t.setWellKnownBase(`http://127.0.0.1:${(fileServer.address() as AddressInfo).port}`);
});
afterAll(async () => {
  fileServer?.close();
  await t?.close();
});

async function newPublication(owner: TestUser, slug: string) {
  const res = await owner.client.post('/api/v1/account/publishers', { name: `The ${slug}`, slug });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

describe('publications and members', () => {
  it('makes the creator owner, and refuses a taken slug', async () => {
    const owner = await signup(t);
    const p = await newPublication(owner, 'ledger');
    expect(p).toMatchObject({ slug: 'ledger', role: 'owner' });
    const again = await owner.client.post('/api/v1/account/publishers', { name: 'Other', slug: 'ledger' });
    expect(again.status).toBe(409);
    const me = await owner.client.get('/api/v1/account');
    expect(me.body.data.publishers).toEqual([{ slug: 'ledger', name: 'The ledger', role: 'owner' }]);
  });

  it('lets an owner add an editor, who cannot add members', async () => {
    const owner = await signup(t);
    const editor = await signup(t);
    const stranger = await signup(t);
    await newPublication(owner, 'gazette');
    await addMember(owner.client, 'gazette', editor);
    const again = await owner.client.post('/api/v1/account/publishers/gazette/members', { username: editor.username, role: 'editor' });
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe('member');
    const byEditor = await editor.client.post('/api/v1/account/publishers/gazette/members', { username: stranger.username, role: 'editor' });
    expect(byEditor.status).toBe(403);
    const members = await editor.client.get('/api/v1/account/publishers/gazette/members');
    expect(members.body.data.map((m: { username: string }) => m.username).sort()).toEqual([editor.username, owner.username].sort());
    const unknownUser = await owner.client.post('/api/v1/account/publishers/gazette/members', { username: 'no-such-user', role: 'editor' });
    expect(unknownUser.status).toBe(400);
    expect(unknownUser.body.error.details[0].field).toBe('username');
  });
});

describe('domain verification', () => {
  it('claims a domain with instructions, then verifies it by DNS TXT', async () => {
    const owner = await signup(t);
    await newPublication(owner, 'dns-pub');
    const claim = await owner.client.post('/api/v1/account/publishers/dns-pub/domains', { domain: 'News.DNS-Pub.example' });
    expect(claim.status).toBe(201);
    const d = claim.body.data;
    expect(d).toMatchObject({ domain: 'news.dns-pub.example', status: 'pending' });
    expect(d.instructions.dns).toEqual({ type: 'TXT', name: 'news.dns-pub.example', value: `credence-verification=${d.token}` });
    expect(d.instructions.file.url).toBe('https://news.dns-pub.example/.well-known/credence-verification.txt');

    const early = await owner.client.post('/api/v1/account/publishers/dns-pub/domains/news.dns-pub.example/verify');
    expect(early.status).toBe(400);
    expect(early.body.error.message).toContain('no TXT records');
    expect(early.body.error.message).toContain('HTTP 404');

    t.dns.txt.set('news.dns-pub.example', [['v=spf1 -all'], ['credence-verification=wrong']]);
    const wrong = await owner.client.post('/api/v1/account/publishers/dns-pub/domains/news.dns-pub.example/verify');
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toContain('does not match');

    // A long TXT value arrives in chunks; they are one value.
    const value = `credence-verification=${d.token}`;
    t.dns.txt.set('news.dns-pub.example', [['v=spf1 -all'], [value.slice(0, 10), value.slice(10)]]);
    const ok = await owner.client.post('/api/v1/account/publishers/dns-pub/domains/news.dns-pub.example/verify');
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data).toMatchObject({ status: 'verified', method: 'dns', verified_at: '2026-11-21T10:00:00.000Z' });
  });

  it('verifies by the well-known file, and says what the file answered', async () => {
    const owner = await signup(t);
    await newPublication(owner, 'file-pub');
    const claim = await owner.client.post('/api/v1/account/publishers/file-pub/domains', { domain: 'file-pub.example' });
    files.set('/.well-known/credence-verification.txt', { status: 200, body: 'something else' });
    const wrong = await owner.client.post('/api/v1/account/publishers/file-pub/domains/file-pub.example/verify');
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details).toContainEqual({ field: 'file', message: 'answered 200 but did not hold the token' });
    files.set('/.well-known/credence-verification.txt', { status: 200, body: `${claim.body.data.token}\n` });
    const ok = await owner.client.post('/api/v1/account/publishers/file-pub/domains/file-pub.example/verify');
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.method).toBe('file');
    files.clear();
  });

  it('gives a verified domain to one publisher at a time', async () => {
    const a = await signup(t);
    const b = await signup(t);
    await newPublication(a, 'holder-a');
    await newPublication(b, 'holder-b');
    const claimA = await a.client.post('/api/v1/account/publishers/holder-a/domains', { domain: 'shared.example' });
    const claimB = await b.client.post('/api/v1/account/publishers/holder-b/domains', { domain: 'shared.example' });
    t.dns.txt.set('shared.example', [[`credence-verification=${claimA.body.data.token}`]]);
    expect((await a.client.post('/api/v1/account/publishers/holder-a/domains/shared.example/verify')).status).toBe(200);
    // B proves control later (the domain changed hands): B holds it now, A's verification lapses.
    t.dns.txt.set('shared.example', [[`credence-verification=${claimB.body.data.token}`]]);
    expect((await b.client.post('/api/v1/account/publishers/holder-b/domains/shared.example/verify')).status).toBe(200);
    const aDomains = await a.client.get('/api/v1/account/publishers/holder-a/domains');
    expect(aDomains.body.data[0].status).toBe('pending');
    const pub = await new Client(t.baseUrl).get('/api/v1/publishers/holder-b');
    expect(pub.body.data.domains).toEqual(['shared.example']);
  });

  it.each(['localhost', '127.0.0.1', 'https://x.example/', 'nodot'])('refuses to claim %s', async (domain) => {
    const owner = await signup(t);
    const slug = `bad-${Math.random().toString(36).slice(2, 8)}`;
    await newPublication(owner, slug);
    const res = await owner.client.post(`/api/v1/account/publishers/${slug}/domains`, { domain });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('domain');
  });
});

describe('public directory', () => {
  it('lists publishers with pagination and shows one', async () => {
    const anon = new Client(t.baseUrl);
    const list = await anon.get('/api/v1/publishers?per_page=2');
    expect(list.status).toBe(200);
    expect(list.body.meta).toMatchObject({ page: 1, per_page: 2 });
    expect(list.body.data.length).toBeLessThanOrEqual(2);
    expect(list.body.meta.total).toBeGreaterThanOrEqual(list.body.data.length);
    const missing = await anon.get('/api/v1/publishers/no-such-publisher');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, error: { code: 'not_found' } });
  });
});

describe('publisher detail', () => {
  it('shows the publication, its pages on record and its contributors', async () => {
    const { publisher } = await import('../factories.js');
    const author = await signup(t, { name: 'Ida Tarbell' });
    const pub = await publisher(t);
    await pub.api.post('/api/v1/pages', [
      { url: `https://${pub.domain}/one`, title: 'One', topic: 'economy', authors: [author.username] },
      { url: `https://${pub.domain}/two`, title: 'Two', authors: [author.username] },
    ]);
    await confirmClaims(author);
    const res = await new Client(t.baseUrl).get(`/api/v1/publishers/${pub.slug}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ slug: pub.slug, domains: [pub.domain], pages: 2 });
    expect(res.body.data.recent_pages.map((p: { title: string }) => p.title)).toEqual(['Two', 'One']);
    expect(res.body.data.recent_pages[0].record_url).toMatch(/^https:\/\/credence\.test\/records\/\d+$/);
    expect(res.body.data.contributors).toEqual([
      expect.objectContaining({ username: author.username, name: 'Ida Tarbell', contributions: 2, contribution_score: 20 }),
    ]);
    expect(res.text).not.toContain('@');
  });
});
