// The private lookup of the browser extension (docs/extension.md): a page is found by the SHA-256 of its embed key
// (SPEC §3), and asked for by the first BUCKET_HEX hex digits of that hash only. The extension computes the same key
// and hash (extension/lib/url-key.js runs the same test vectors, test/vectors/embed-keys.json).
import { createHash } from 'node:crypto';

/**
 * Hex digits of a bucket: 3 (4,096 buckets). About 24 registered pages share a bucket at 100,000 pages and 244 at
 * 1,000,000 (docs/extension.md has the figures and why not 4 or 5).
 */
export const BUCKET_HEX = 3;

/** The lowercase hex SHA-256 of an embed key, as stored in `pages.embed_key_hash`. */
export const embedKeyHash = (embedKey: string): string => createHash('sha256').update(embedKey, 'utf8').digest('hex');

/** The bucket an embed key hash falls in. */
export const bucketOf = (hash: string): string => hash.slice(0, BUCKET_HEX);

/** The smallest hex string above every hash starting with `prefix` (`0af` → `0b0`; `fff` → `g`, above any hex). */
export function prefixEnd(prefix: string): string {
  const digits = prefix.split('');
  for (let i = digits.length - 1; i >= 0; i--) {
    const d = parseInt(digits[i]!, 16);
    if (d < 15) return digits.slice(0, i).join('') + (d + 1).toString(16);
  }
  return 'g';
}
