// A publisher's share of an extension bucket (docs/decisions/extension-bucket-share.md): a publisher that grinds its
// paths into one bucket and gives each page a long notice can no longer make every reader of that bucket download it
// all. Its records are listed up to its share (entries and proofs together), flagged ones first; the rest are counted
// under `withheld` with the domains they are on, so the extension says a page there may have a record instead of
// "no record". Another publisher's records in the same bucket are listed whole, each with every proof it cites.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET_SHARE_BYTES, shareCost } from '../../src/domain/pages/bucket-share.js';
import { BUCKET_HEX } from '../../src/domain/pages/key-hash.js';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { Client } from '../client.js';
import { publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let stuffer: TestPublisher;
let neighbour: TestPublisher;
let prefix: string;
const STUFFED = 120;
const hashOf = (embedKey: string) => createHash('sha256').update(embedKey).digest('hex');
const anon = { get: (path: string) => new Client(t.baseUrl).get(path) };
type Entry = { hash: string; url: string; publisher: { slug: string }; standing: string; work: { log_index: number | null }[]; notice_items: { log_index: number | null }[] };

/** Paths under `domain` whose embed key hashes into `prefix`, found as an attacker finds them: by trying. */
function ground(domain: string, want: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < want; i++) if (hashOf(`${domain}/p/${i}`).startsWith(prefix)) out.push(`p/${i}`);
  return out;
}

async function register(pub: TestPublisher, paths: string[]): Promise<number[]> {
  const res = await pub.api.post('/api/v1/pages', paths.map((p) => ({ url: `https://${pub.domain}/${p}`, title: `Page ${p}`, topic: 'news' })));
  expect(res.status, res.text).toBe(200);
  return res.body.data.results.map((r: { id: number }) => r.id);
}

async function notice(pub: TestPublisher, id: number, type: string, reason: string) {
  const res = await pub.api.post(`/api/v1/pages/${id}/notices`, { type, date: '2026-01-02', reason });
  expect(res.status, res.text).toBe(201);
}

beforeAll(async () => {
  // 120 notices in a few seconds: the stuffing itself is not what is tested.
  t = await startTestApp({ rateLimitAllowlist: ['10.0.0.0/8'] });
  stuffer = await publisher(t);
  neighbour = await publisher(t);
  // The neighbour's page sets the bucket; the stuffer grinds its paths into it.
  const [own] = await register(neighbour, ['science/study']);
  await notice(neighbour, own!, 'expression_of_concern', 'The data are being checked again.');
  prefix = hashOf(`${neighbour.domain}/science/study`).slice(0, BUCKET_HEX);
  const ids = await register(stuffer, ground(stuffer.domain, STUFFED));
  // The oldest notice is a retraction: listed first whatever the order of the rest.
  await notice(stuffer, ids[0]!, 'retraction', 'Retracted: '.padEnd(1000, 'x'));
  for (let i = 1; i < ids.length; i += 10) await Promise.all(ids.slice(i, i + 10).map((id) => notice(stuffer, id, 'addendum', `Addendum ${id}: `.padEnd(1000, 'y'))));
  await integrate(t.runtime.deps);
}, 120_000);
afterAll(async () => t?.close());

describe('a publisher stuffing one bucket', () => {
  it('is listed up to its share, entries and proofs together; the rest are counted as withheld, with their domains', async () => {
    const bucket = await anon.get(`/v1/extension/buckets/${prefix}`);
    const proofs = await anon.get(`/v1/extension/buckets/${prefix}/proofs`);
    expect(bucket.status, bucket.text).toBe(200);
    expect(proofs.status, proofs.text).toBe(200);
    const mine = (bucket.body.records as Entry[]).filter((r) => r.publisher.slug === stuffer.slug);
    const cited = new Set(mine.flatMap((r) => [...r.work, ...r.notice_items].map((x) => x.log_index)));
    const mineProofs = (proofs.body.proofs as { index: number }[]).filter((p) => cited.has(p.index));
    const bytes = mine.reduce((n, r) => n + JSON.stringify(r).length, 0) + mineProofs.reduce((n, p) => n + JSON.stringify(p).length, 0);
    if (process.env.SHOW_FIGURES) console.log(`listed ${mine.length} of ${STUFFED}; bucket ${bucket.text.length} B, proofs ${proofs.text.length} B; the stuffer's entries and proofs ${bytes} B`);
    // Held whole, these 120 pages were ~150 KB of entries and ~300 KB of proofs.
    expect(bytes).toBeLessThanOrEqual(BUCKET_SHARE_BYTES);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(STUFFED);
    expect(bucket.body.withheld).toEqual([{ publisher: { slug: stuffer.slug, name: expect.any(String) }, domains: [stuffer.domain], records: STUFFED - mine.length }]);
    // Flagged first: the oldest notice, a retraction, is listed.
    expect(mine.filter((r) => r.standing === 'retracted')).toHaveLength(1);
  });

  it('leaves another publisher’s record whole, with every proof it cites: nothing listed goes unproved', async () => {
    const bucket = await anon.get(`/v1/extension/buckets/${prefix}`);
    const proofs = await anon.get(`/v1/extension/buckets/${prefix}/proofs`);
    const theirs = (bucket.body.records as Entry[]).find((r) => r.publisher.slug === neighbour.slug);
    expect(theirs).toMatchObject({ standing: 'expression_of_concern', url: `https://${neighbour.domain}/science/study` });
    const proved = new Set((proofs.body.proofs as { index: number }[]).map((p) => p.index));
    for (const r of bucket.body.records as Entry[]) for (const x of [...r.work, ...r.notice_items]) expect(proved.has(x.log_index!), r.url).toBe(true);
  });

  it('counts a record’s proofs in its cost, so the proofs answer has the same ceiling', () => {
    // One page with a 1,000-character notice: its entry is about 1.3 KB and its proof about 2 KB.
    expect(shareCost({ entryBytes: 1300, urlBytes: 40, cited: 1 })).toBeGreaterThan(1300 + 2000);
  });
});
