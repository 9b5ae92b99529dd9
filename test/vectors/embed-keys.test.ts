// The URL → embed key cases the service and the browser extension share (SPEC §3): every vector in
// embed-keys.json through the service's own parser and hash. The extension's tests run the same file through its
// code, so the two cannot drift apart. `key` and `hash` are null where the URL is no page (not http(s), too long).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bucketOf, embedKeyHash } from '../../src/domain/pages/key-hash.js';
import { parsePageUrl } from '../../src/domain/pages/url-keys.js';

interface Vector {
  url: string;
  key: string | null;
  hash: string | null;
}
const vectors = JSON.parse(readFileSync(new URL('./embed-keys.json', import.meta.url), 'utf8')) as Vector[];

describe('shared URL → embed key vectors', () => {
  it('holds the cases SPEC §3 names, and URLs that are no page', () => {
    expect(vectors.length).toBeGreaterThan(40);
    expect(vectors.filter((v) => v.key === null).length).toBeGreaterThan(3);
    for (const v of vectors) expect(v.key === null).toBe(v.hash === null);
  });

  it.each(vectors.map((v) => [v.url.length > 80 ? `${v.url.slice(0, 60)}… (${v.url.length} characters)` : JSON.stringify(v.url), v] as const))(
    '%s',
    (_name, v) => {
      const parsed = parsePageUrl(v.url);
      expect(parsed?.embedKey ?? null).toBe(v.key);
      if (v.key === null) return;
      // The hash is SHA-256 of the key's UTF-8 bytes, lowercase hex, as the service stores and buckets it.
      expect(embedKeyHash(v.key)).toBe(v.hash);
      expect(createHash('sha256').update(Buffer.from(v.key, 'utf8')).digest('hex')).toBe(v.hash);
      expect(v.hash!.startsWith(bucketOf(v.hash!))).toBe(true);
    },
  );
});
