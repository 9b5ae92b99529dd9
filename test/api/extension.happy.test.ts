// The browser extension's private lookup: the verified domains (with an ETag), a bucket by hash prefix answering
// everything the popup shows of every record in it (nothing of a page without work), and the inclusion proofs of
// the entries a bucket cites, checked here by an inclusion check written from RFC 9162 §2.1.3.2, not the service's.
import { createHash } from 'node:crypto';
import { verifyDomainByOperator } from '../../src/domain/publishers/publisher.service.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET_HEX } from '../../src/domain/pages/key-hash.js';
import { createStatement } from '../../src/domain/panels/panel.service.js';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { Client } from '../client.js';
import { confirmClaims, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { statementBody } from './panels.fixtures.js';
import { openCheckpoint } from '../transparency/rfc9162.js';

let t: TestApp;
let pub: TestPublisher;
let ada: TestUser;
let bob: TestUser;
let question: string;
let panelId: string;
// A fresh simulated address per read: the tests read more than one address's budget.
const anon = { get: (path: string, opts?: Parameters<Client['get']>[1]) => new Client(t.baseUrl).get(path, opts) };
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();
const hashOf = (embedKey: string) => sha256(embedKey).toString('hex');
const prefixOf = (hash: string) => hash.slice(0, BUCKET_HEX);
type Entry = { hash: string; [k: string]: any };

/** RFC 9162 §2.1.3.2: the root an inclusion path leads to from a leaf, or null when the path does not fit the tree. */
function rootFromPath(index: number, size: number, leafHash: Buffer, path: Buffer[]): Buffer | null {
  if (index >= size) return null;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of path) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(Buffer.concat([Buffer.from([1]), p, r]));
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = sha256(Buffer.concat([Buffer.from([1]), r, p]));
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

async function bucketOf(path: string): Promise<{ hash: string; entry: Entry | undefined; body: any }> {
  const hash = hashOf(`${pub.domain}/${path}`);
  const res = await anon.get(`/v1/extension/buckets/${prefixOf(hash)}`);
  expect(res.status, res.text).toBe(200);
  return { hash, entry: res.body.records.find((r: Entry) => r.hash === hash), body: res.body };
}

beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  ada = await signup(t, { name: 'Ada Author' });
  bob = await signup(t, { name: 'Bob Byline' });
  for (const path of ['science/study', 'science/bare', 'science/gone']) {
    const authors = path.endsWith('study') ? [ada.username] : path.endsWith('gone') ? [bob.username] : [];
    const reg = await pub.api.post('/api/v1/pages', { url: `https://www.${pub.domain}/${path}/?x=1`, title: `The ${path}`, topic: 'science', authors });
    expect(reg.status, reg.text).toBe(201);
    if (path.endsWith('study')) {
      const n = await pub.api.post(`/api/v1/pages/${reg.body.data.id}/notices`, { type: 'retraction', date: '2026-01-02', reason: 'Data could not be reproduced.' });
      expect(n.status, n.text).toBe(201);
    }
  }
  await confirmClaims(ada, bob);
  const statement = statementBody({ sources: [`https://www.${pub.domain}/science/study?x=1`] });
  question = statement.question;
  panelId = (await createStatement(t.runtime.deps, statement as never)).id;
  await integrate(t.runtime.deps);
});
afterAll(async () => t?.close());

describe('extension reads', () => {
  it('lists the verified domains with an ETag, 304 when held', async () => {
    const res = await anon.get('/v1/extension/hosts');
    expect(res.status, res.text).toBe(200);
    expect(res.body.domains).toContain(pub.domain);
    expect(res.body.bucket_hex).toBe(BUCKET_HEX);
    const etag = res.headers.get('etag')!;
    expect(res.headers.get('cache-control')).toContain('max-age=3600');
    const again = await anon.get('/v1/extension/hosts', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('answers a bucket with everything the popup shows of each record in it, and nothing of a page without work', async () => {
    const { hash, entry, body } = await bucketOf('science/study');
    expect(body.prefix).toBe(prefixOf(hash));
    expect(body.records.every((r: Entry) => r.hash.startsWith(prefixOf(hash)))).toBe(true);
    expect(entry).toMatchObject({
      standing: 'retracted',
      contributions: 1,
      roles: { author: 1 },
      notices: ['retraction'],
      url: `https://www.${pub.domain}/science/study/?x=1`,
      title: 'The science/study',
      publisher: { slug: pub.slug, name: expect.any(String) },
      record_url: expect.stringMatching(/^https:\/\/credence\.test\/records\/\d+$/),
      work: [{ role: 'author', name: 'Ada Author', profile_url: `https://credence.test/contributors/${ada.username}`, date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/), log_index: expect.any(Number) }],
      notice_items: [{ type: 'retraction', date: '2026-01-02', reason: 'Data could not be reproduced.', url: null, log_index: expect.any(Number) }],
      panels: [{ title: question, url: `https://credence.test/panels/${panelId}` }],
    });
    const bare = await bucketOf('science/bare');
    expect(bare.entry).toBeUndefined();
    expect(bare.body.records.some((r: Entry) => r.hash === bare.hash)).toBe(false);
  });

  it('answers a bucket with an ETag and a five-minute Cache-Control, 304 when held', async () => {
    const hash = hashOf(`${pub.domain}/science/study`);
    const res = await anon.get(`/v1/extension/buckets/${prefixOf(hash)}`);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300, stale-if-error=86400');
    const again = await anon.get(`/v1/extension/buckets/${prefixOf(hash)}`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    // A change to a page of the bucket changes its answer, so its ETag.
    const id = Number(/\/records\/(\d+)$/.exec(res.body.records.find((r: Entry) => r.hash === hash).record_url)![1]);
    const n = await pub.api.post(`/api/v1/pages/${id}/notices`, { type: 'addendum', date: '2026-01-03', reason: 'An addendum.' });
    expect(n.status, n.text).toBe(201);
    const changed = await anon.get(`/v1/extension/buckets/${prefixOf(hash)}`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(changed.status).toBe(200);
    expect(changed.body.records.find((r: Entry) => r.hash === hash).notices).toEqual(['addendum', 'retraction']);
    await integrate(t.runtime.deps);
  });

  it('proves every entry a bucket cites against the witnessed checkpoint, each checked independently', async () => {
    const { hash, entry } = await bucketOf('science/study');
    const res = await anon.get(`/v1/extension/buckets/${prefixOf(hash)}/proofs`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60, stale-if-error=86400');
    // Sent compressed to a reader that takes it (fetch asks for it and decodes it), with its own ETag per coding.
    expect(res.headers.get('content-encoding')).toMatch(/^(gzip|br)$/);
    expect(res.headers.get('vary')).toContain('Accept-Encoding');
    expect(res.body.checkpoint).toBe((await anon.get('/v1/log/checkpoint')).text);
    const key = (await anon.get('/v1/log/key')).text.trim();
    const c = openCheckpoint(res.body.checkpoint, key);
    const cited = [...entry!.work, ...entry!.notice_items].map((x: { log_index: number }) => x.log_index);
    expect(cited.length).toBe(3);
    for (const index of cited) {
      const p = res.body.proofs.find((x: { index: number }) => x.index === index);
      expect(p, `entry ${index}`).toBeDefined();
      const bytes = Buffer.from(p.entry, 'base64');
      const leafHash = sha256(Buffer.concat([Buffer.from([0]), bytes]));
      const root = rootFromPath(index, c.size, leafHash, p.hashes.map((h: string) => Buffer.from(h, 'base64')));
      expect(root?.equals(c.root), `entry ${index}`).toBe(true);
      expect(JSON.parse(bytes.toString('utf8')).page.url).toBe(entry!.url);
    }
    // A forged entry does not lead to the signed root.
    const p = res.body.proofs[0];
    const forged = Buffer.from(Buffer.from(p.entry, 'base64').toString('utf8').replace('"kind"', '"kinD"'));
    expect(rootFromPath(p.index, c.size, sha256(Buffer.concat([Buffer.from([0]), forged])), p.hashes.map((h: string) => Buffer.from(h, 'base64')))?.equals(c.root)).toBe(false);
    // Held, it is a 304.
    const again = await anon.get(`/v1/extension/buckets/${prefixOf(hash)}/proofs`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('names a person who deleted their account as the record does, with no profile', async () => {
    const del = await bob.client.req('DELETE', '/api/v1/account', { body: { password: bob.password } });
    expect(del.status, del.text).toBe(200);
    const { entry } = await bucketOf('science/gone');
    expect(entry!.work).toEqual([expect.objectContaining({ role: 'author', name: 'A former contributor', profile_url: null })]);
    const hash = hashOf(`${pub.domain}/science/gone`);
    const all = await anon.get(`/v1/extension/buckets/${prefixOf(hash)}`);
    expect(all.text).not.toContain(bob.username);
    expect(all.text).not.toContain('Bob Byline');
  });

  it('asks nothing of the reader and tells nothing private: no cookie, no emails, no hashes of people', async () => {
    const hash = hashOf(`${pub.domain}/science/study`);
    for (const path of ['/v1/extension/hosts', `/v1/extension/buckets/${prefixOf(hash)}`, `/v1/extension/buckets/${prefixOf(hash)}/proofs`]) {
      const res = await anon.get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('set-cookie'), path).toBeNull();
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      for (const secret of [ada.email, bob.email, pub.owner.email, '@mail.test', 'password', 'token', 'email']) expect(res.text.toLowerCase(), path).not.toContain(secret.toLowerCase());
      // Entries name people only by commitment (their openings are not served here).
      expect(res.text).not.toContain('opening');
    }
  });

  it('has no route that names a page or a full hash', async () => {
    const hash = hashOf(`${pub.domain}/science/study`);
    expect((await anon.get(`/v1/extension/records/${hash}`)).status).toBe(404);
    expect((await anon.get(`/v1/extension/buckets/${hash}`)).status).toBe(400);
  });

  it('refuses a prefix that is not the bucket’s hex digits, in the /v1 envelope naming the field', async () => {
    for (const p of ['a'.repeat(BUCKET_HEX - 1), 'a'.repeat(BUCKET_HEX + 1), 'x'.repeat(BUCKET_HEX), 'A'.repeat(BUCKET_HEX)]) {
      for (const path of [`/v1/extension/buckets/${p}`, `/v1/extension/buckets/${p}/proofs`]) {
        const res = await anon.get(path);
        expect(res.status, path).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(res.body.error.message).toContain('prefix');
      }
    }
  });

  it('drops a page whose domain moved to another publication, as the embed does (the last test: it moves the domain)', async () => {
    expect((await bucketOf('science/study')).entry).toBeDefined();
    const other = await publisher(t);
    await verifyDomainByOperator(t.runtime.deps, other.slug, pub.domain);
    await t.runtime.deps.changes.committed();
    expect((await bucketOf('science/study')).entry).toBeUndefined();
    expect((await anon.get(`/api/v1/embed/by-url?url=${encodeURIComponent(`https://www.${pub.domain}/science/study`)}`)).body.html).toBe('');
  });
});
