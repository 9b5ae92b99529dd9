// Search over the public record: pages (title, URL), people (name, username), publications (name, slug) and panel
// statements (question, topic), ranked together by the index (search.store.ts). Only what is public is indexed and
// shown: a person unconfirmed or erased is in neither the index nor the answer.
import type { Deps } from '../deps.js';
import { KINDS, type SearchKind, countByKind, match, pagesByIds, panelsByIds, peopleByIds, publishersByIds } from './search.store.js';
import { searchTerms } from './terms.js';

export { KINDS as SEARCH_KINDS, type SearchKind };

/** Deep pages cost a sort of every match: past this page, narrow the query instead. */
export const MAX_SEARCH_PAGE = 50;

export type SearchItem =
  | { kind: 'page'; id: number; title: string; url: string; topic: string; publisher: { slug: string; name: string } }
  | { kind: 'contributor'; id: number; username: string; name: string; level: string; trust_score: number }
  | { kind: 'publisher'; id: number; slug: string; name: string }
  | { kind: 'panel'; id: number; slug: string; question: string; topic: string; version: number };

export interface SearchResult {
  /** The words the query was read as (empty: nothing to search for). */
  terms: string[];
  items: SearchItem[];
  /** Matches of the kinds asked for. */
  total: number;
  /** Matches of each kind, whatever was asked for (the web page's filters). */
  counts: Record<SearchKind, number>;
}

export async function search(
  deps: Deps,
  q: string,
  opts: { kinds?: readonly SearchKind[] | undefined; page: number; perPage: number },
): Promise<SearchResult> {
  const terms = searchTerms(q);
  const kinds = opts.kinds && opts.kinds.length > 0 ? opts.kinds : KINDS;
  if (terms.length === 0) return { terms, items: [], total: 0, counts: { page: 0, contributor: 0, publisher: 0, panel: 0 } };
  const page = Math.min(opts.page, MAX_SEARCH_PAGE);
  const [hits, counts] = await Promise.all([match(deps.db, terms, kinds, opts.perPage, (page - 1) * opts.perPage), countByKind(deps.db, terms)]);
  const ids = (kind: SearchKind) => hits.filter((h) => h.kind === kind).map((h) => h.ref);
  const [pages, people, publishers, panels] = await Promise.all([
    pagesByIds(deps.db, ids('page')),
    peopleByIds(deps.db, ids('contributor')),
    publishersByIds(deps.db, ids('publisher')),
    panelsByIds(deps.db, ids('panel')),
  ]);
  const found = new Map<string, SearchItem>();
  for (const p of pages) {
    found.set(`page:${p.id}`, { kind: 'page', id: p.id, title: p.title, url: p.url, topic: p.topic, publisher: { slug: p.publisher_slug, name: p.publisher_name } });
  }
  for (const a of people) found.set(`contributor:${a.id}`, { kind: 'contributor', id: a.id, username: a.username, name: a.name, level: a.level, trust_score: a.trust_score });
  for (const p of publishers) found.set(`publisher:${p.id}`, { kind: 'publisher', id: p.id, slug: p.slug, name: p.name });
  for (const s of panels) found.set(`panel:${s.id}`, { kind: 'panel', id: s.id, slug: s.slug, question: s.question, topic: s.topic, version: s.version });
  // In the index's order; a row gone since the match (deleted between the two reads) is left out.
  const items = hits.map((h) => found.get(`${h.kind}:${h.ref}`)).filter((i): i is SearchItem => i !== undefined);
  return { terms, items, total: kinds.reduce((n, k) => n + counts[k], 0), counts };
}
