// A page's version is the sha256 of its normalised text (docs/decisions/page-versions-and-drift.md). The text itself is
// never stored: registration hashes it, checks the page's accepted corrections against it, and forgets it.
import { createHash } from 'node:crypto';

/** Unicode NFC, every run of white space (including no-break spaces) as one space, trimmed. Case is kept. */
export function normaliseText(text: string): string {
  return text.normalize('NFC').replace(/[\s\u00a0\u2000-\u200b\u2028\u2029\u3000]+/gu, ' ').trim();
}

/** The version of a text: lower-case hex sha256 of the UTF-8 of its normal form. */
export const contentHashOf = (text: string) => createHash('sha256').update(normaliseText(text), 'utf8').digest('hex');

export const CONTENT_HASH_PATTERN = '^[0-9a-f]{64}$';

/** Whether a correction's new text still appears in the page's text (both normalised). */
export function textStillAppears(pageText: string, correctedText: string): boolean {
  const wanted = normaliseText(correctedText);
  return wanted === '' || normaliseText(pageText).includes(wanted);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * The readable text of an HTML page, for pages the service fetches itself: scripts, styles, templates and
 * comments dropped, tags turned into spaces, character references decoded. Not a browser: good enough to tell
 * whether the words changed, which is all a version is for.
 */
export function textOfHtml(html: string): string {
  const body = /<body[\s>][\s\S]*$/i.exec(html)?.[0] ?? html;
  return body
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|template|noscript)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, ref: string) => {
      if (ref[0] === '#') {
        const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
      }
      return ENTITIES[ref.toLowerCase()] ?? m;
    });
}
