// The log as C2SP tlog-tiles, read by an independent tile reader written here from the spec (paths,
// partial widths, uint16-prefixed entry bundles) with the tests' own RFC 9162 code, nothing from src/: it rebuilds
// the tree from the entry bundles, checks every hash of every tile against it (level 0 = leaves; level 1 and up =
// the roots of full tiles below), and matches the signed root, at sizes around tile edges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { insertChanges } from '../../src/domain/changes/change.store.js';
import { startTestApp, type TestApp } from '../harness.js';
import * as rfc from './rfc9162.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
});
afterAll(async () => t?.close());

/** Appends entries with the change store's batch insert, so 65,536 of them take seconds. */
async function growTo(size: number) {
  const db = t.runtime.deps.db;
  const have = Number((await db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('m')).executeTakeFirst())?.m ?? 0);
  const now = new Date().toISOString();
  const rows = Array.from({ length: size - have }, (_, i) => {
    const seq = have + i + 1;
    return { seq, created_at: now, kind: 'test.entry' as never, page_id: null, account_id: null, publisher_id: null, panel_id: null, body: JSON.stringify({ kind: 'test.entry', n: seq, pad: 'x'.repeat(seq % 7) }) };
  });
  for (let i = 0; i < rows.length; i += 5000) await db.transaction().execute((trx) => insertChanges(trx, rows.slice(i, i + 5000)));
  await integrate(t.runtime.deps, { batch: 20_000 });
}

// --- the independent reader ---
const indexPath = (n: number) => {
  const parts: string[] = [];
  do {
    parts.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return parts.map((p, i) => (i < parts.length - 1 ? `x${p}` : p)).join('/');
};
const tileUrl = (level: number | 'entries', n: number, w: number) => `/v1/log/tile/${level}/${indexPath(n)}${w < 256 ? `.p/${w}` : ''}`;

async function fetchBytes(path: string): Promise<{ bytes: Buffer; cache: string | null; type: string | null }> {
  const res = await fetch(t.baseUrl + path);
  expect(res.status, `${path}: ${res.status}`).toBe(200);
  return { bytes: Buffer.from(await res.arrayBuffer()), cache: res.headers.get('cache-control'), type: res.headers.get('content-type') };
}

async function readTree(size: number): Promise<Buffer> {
  // Entries, from the bundles.
  const leaves: Buffer[] = [];
  for (let n = 0; n * 256 < size; n++) {
    const w = Math.min(256, size - n * 256);
    const { bytes, cache, type } = await fetchBytes(tileUrl('entries', n, w));
    expect(type).toBe('application/octet-stream');
    expect(cache).toContain(w === 256 ? 'immutable' : 'max-age=60');
    let at = 0;
    let count = 0;
    while (at < bytes.length) {
      const len = bytes.readUInt16BE(at);
      leaves.push(rfc.leaf(bytes.subarray(at + 2, at + 2 + len)));
      at += 2 + len;
      count++;
    }
    expect(count).toBe(w);
  }
  expect(leaves.length).toBe(size);
  // Every tile of every level: hash i of tile (L, n) is MTH of the leaves under it.
  for (let level = 0; 256 ** level <= size; level++) {
    const span = 256 ** level;
    const hashes = Math.floor(size / span);
    for (let n = 0; n * 256 < hashes; n++) {
      const w = Math.min(256, hashes - n * 256);
      const { bytes, cache } = await fetchBytes(tileUrl(level, n, w));
      expect(bytes.length).toBe(w * 32);
      expect(cache).toContain(w === 256 ? 'immutable' : 'max-age=60');
      for (let i = 0; i < w; i++) {
        const first = (n * 256 + i) * span;
        expect(bytes.subarray(i * 32, i * 32 + 32).equals(rfc.mth(leaves.slice(first, first + span))), `tile ${level}/${n} hash ${i}`).toBe(true);
      }
    }
  }
  return rfc.mth(leaves);
}

async function signedRoot() {
  const key = (await (await fetch(`${t.baseUrl}/v1/log/key`)).text()).trim();
  return rfc.openCheckpoint(await (await fetch(`${t.baseUrl}/v1/log/checkpoint`)).text(), key);
}

describe('the log as tiles', () => {
  for (const size of [255, 256, 257]) {
    it(`rebuilds the signed root of ${size} entries from tiles and bundles`, async () => {
      await growTo(size);
      const c = await signedRoot();
      expect(c.size).toBe(size);
      expect((await readTree(size)).equals(c.root)).toBe(true);
    });
  }

  it('rebuilds the signed root of 65,536 entries, where the level-2 tile is the root', async () => {
    await growTo(65_536);
    const c = await signedRoot();
    expect(c.size).toBe(65_536);
    expect((await readTree(65_536)).equals(c.root)).toBe(true);
    const top = await fetchBytes(tileUrl(2, 0, 1));
    expect(top.bytes.equals(c.root)).toBe(true);
  }, 120_000);

  it('answers 404 for tiles past the checkpoint and for paths that are not tiles', async () => {
    for (const p of ['/v1/log/tile/0/256', '/v1/log/tile/3/000', '/v1/log/tile/entries/x001/000', '/v1/log/tile/0/1', '/v1/log/tile/0/x000/001', '/v1/log/tile/0/000.p/0', '/v1/log/tile/0/000.p/256', '/v1/log/tile/64/000']) {
      const res = await fetch(t.baseUrl + p);
      expect(res.status, p).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
    // A partial tile narrower than what the tree holds is still a prefix of it.
    expect((await fetchBytes('/v1/log/tile/1/000.p/5')).bytes.length).toBe(160);
  });
});
