// The URL → embed key cases the service and the browser extension share (SPEC §3): every vector in
// embed-keys.json through the service's own parser and hash, then through the extension's own file
// (extension/lib/url-key.js, loaded as the browser loads it), so the two cannot drift apart. `key` and `hash` are null where the URL is no page (not http(s), too long).
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

interface ExtensionUrlKey {
  embedKey(url: string): string | null;
  sha256Hex(text: string): Promise<string>;
}
/** The extension's url-key.js, run as a classic script with `self` standing for the worker's global. */
function loadExtensionUrlKey(): ExtensionUrlKey {
  const source = readFileSync(new URL('../../extension/lib/url-key.js', import.meta.url), 'utf8');
  const self: { crypto: typeof globalThis.crypto; CredenceUrlKey?: ExtensionUrlKey } = { crypto: globalThis.crypto };
  new Function('self', source)(self);
  if (!self.CredenceUrlKey) throw new Error('extension/lib/url-key.js did not define CredenceUrlKey');
  return self.CredenceUrlKey;
}
const extension = loadExtensionUrlKey();

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

  it.each(vectors.map((v) => [v.url.length > 80 ? `${v.url.slice(0, 60)}… (${v.url.length} characters)` : JSON.stringify(v.url), v] as const))(
    'the extension: %s',
    async (_name, v) => {
      expect(extension.embedKey(v.url)).toBe(v.key);
      if (v.key !== null) expect(await extension.sha256Hex(v.key)).toBe(v.hash);
    },
  );
});
