// What a search query means: its words, split as the index splits what it holds (anything but letters and digits
// separates words), lower-cased, each matched as the start of a word, all of them required.
/** At most this many words of a query count (a long URL pasted whole still finds its page). */
export const MAX_TERMS = 12;
/** A word longer than this is cut: no indexed word is that long in practice. */
export const MAX_TERM_LENGTH = 64;

/** The query's words, in order, each once: letters and digits only, so they are safe in either index's syntax. */
export function searchTerms(q: string): string[] {
  const words = q
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.slice(0, MAX_TERM_LENGTH));
  return [...new Set(words)].slice(0, MAX_TERMS);
}

/** FTS5's query: each word as a prefix ("meas"* finds measles), all required. */
export const fts5Query = (terms: string[]) => terms.map((t) => `"${t}"*`).join(' ');

/** PostgreSQL's tsquery text: each word as a prefix, all required. */
export const tsQuery = (terms: string[]) => terms.map((t) => `${t}:*`).join(' & ');
