// Fetching a publisher's own page to learn its text, for publishers that opt in with `fetch: true`.
// Through the safe fetcher: public addresses only, checked at connect time, no redirects, a size cap and a timeout.
// Only pages on the publisher's verified domains get here (registration refuses the rest first).
import { fetchSmall } from '../../net/safe-fetch.js';
import { textOfHtml } from './page-text.js';

export interface FetchedText {
  text: string | null;
  /** Why no text came (status, timeout, refused address). */
  error?: string;
}

export interface PageFetcher {
  fetchText(url: string): Promise<FetchedText>;
}

export const MAX_PAGE_BYTES = 2 * 1024 * 1024;

export function systemPageFetcher(opts: { allowPrivate: boolean; rewrite?: (url: string) => string }): PageFetcher {
  return {
    async fetchText(url) {
      const r = await fetchSmall(opts.rewrite ? opts.rewrite(url) : url, {
        allowPrivate: opts.allowPrivate,
        timeoutMs: 10_000,
        maxBytes: MAX_PAGE_BYTES,
        headers: { accept: 'text/html, text/plain;q=0.9' },
      });
      if (r.error) return { text: null, error: r.error };
      if (r.status === null || r.status < 200 || r.status > 299) return { text: null, error: `the page answered ${r.status ?? 'nothing'}` };
      return { text: textOfHtml(r.body) };
    },
  };
}
