// A page's trust record as schema.org JSON-LD: what search engines read. The page is a NewsArticle
// with its authors, editors and other contributors as Persons (url = the public profile); accepted corrections are
// CorrectionComments; reviews are Reviews; a fact check with a claim and a verdict is a ClaimReview, without them
// a Review. Built from the record field by field, so only public fields can appear (typed with schema-dts).
import type { ClaimReview, Comment, CorrectionComment, NewsArticle, Organization, Person, Review, WithContext } from 'schema-dts';
import type { Notice, Standing } from '../../domain/pages/notices.js';
import type { PageRecord } from '../../domain/pages/record.js';
import { scriptSafeJson } from '../../http/ascii-json.js';
import { typeHeader, type Wire } from '../../http/wire.js';
import { verdictOf } from '../../domain/submissions/verdicts.js';
import { profileUrl, proofUrl, recordUrl } from '../urls.js';

type Work = PageRecord['contributions'][number];

const person = (siteUrl: string, c: { username: string; name: string }): Person => ({
  '@type': 'Person',
  name: c.name || c.username,
  alternateName: c.username,
  url: profileUrl(siteUrl, c.username),
});

const publisherOf = (siteUrl: string, page: PageRecord['page']): Organization => ({
  '@type': 'Organization',
  name: page.publisher_name,
  url: `${siteUrl}/publishers/${encodeURIComponent(page.publisher_slug)}`,
});

/** One Person per contributor, in the order of their first work. */
function people(siteUrl: string, work: Work[]): Person[] {
  const seen = new Map<string, Person>();
  for (const c of work) if (!seen.has(c.username)) seen.set(c.username, person(siteUrl, c));
  return [...seen.values()];
}

function correction(siteUrl: string, c: Work): CorrectionComment {
  const change = c.change_from !== null && c.change_to !== null ? `Changed “${c.change_from}” to “${c.change_to}”.` : '';
  return {
    '@type': 'CorrectionComment',
    url: proofUrl(siteUrl, c.id),
    text: [c.summary, change].filter(Boolean).join(' '),
    datePublished: c.accepted_at,
    author: person(siteUrl, c),
  };
}

function review(siteUrl: string, c: Work, pageUrl: string): Review | ClaimReview {
  const base = {
    url: proofUrl(siteUrl, c.id),
    datePublished: c.accepted_at,
    author: person(siteUrl, c),
    ...(c.summary ? { reviewBody: c.summary } : {}),
  };
  const verdict = c.role === 'fact_check' ? verdictOf(c.verdict) : null;
  if (!verdict || c.claim === null) return { '@type': 'Review', ...base };
  return {
    '@type': 'ClaimReview',
    ...base,
    claimReviewed: c.claim,
    itemReviewed: { '@type': 'Claim', appearance: { '@type': 'CreativeWork', url: pageUrl } },
    reviewRating: { '@type': 'Rating', ratingValue: verdict.value, bestRating: 5, worstRating: 1, alternateName: verdict.label },
  };
}

/** `creativeWorkStatus` of a page with notices: its standing in words. */
const STATUS_WORDS: Record<Standing, string> = {
  current: 'Published',
  retracted: 'Retracted',
  partially_retracted: 'Partially retracted',
  expression_of_concern: 'Expression of concern',
  withdrawn: 'Withdrawn',
  removed: 'Removed',
};

const NOTICE_WORDS: Record<Notice['type'], string> = {
  retraction: 'Retraction',
  partial_retraction: 'Partial retraction',
  expression_of_concern: 'Expression of concern',
  withdrawal: 'Withdrawal',
  removal: 'Removal',
  clarification: 'Clarification',
  addendum: 'Addendum',
  reinstatement: 'Reinstatement',
};

/** A notice as a Comment on the article, by its publisher: schema.org has no type of its own for one. */
function notice(siteUrl: string, n: Notice, page: PageRecord['page']): Comment {
  return {
    '@type': 'Comment',
    name: NOTICE_WORDS[n.type],
    text: n.reason,
    dateCreated: n.notice_date,
    ...(n.notice_url ? { url: n.notice_url } : {}),
    author: publisherOf(siteUrl, page),
  };
}

export function recordJsonLd(siteUrl: string, record: PageRecord): WithContext<NewsArticle> {
  const { page, contributions } = record;
  const of = (...roles: string[]) => contributions.filter((c) => roles.includes(c.role));
  const authors = people(siteUrl, of('author'));
  const editors = people(siteUrl, of('edit'));
  const others = people(siteUrl, of('review', 'fact_check', 'correction', 'source'));
  const corrections = of('correction').map((c) => correction(siteUrl, c));
  const reviews = of('review', 'fact_check').map((c) => review(siteUrl, c, page.url));
  const title = page.title || page.url;
  return {
    '@context': 'https://schema.org',
    '@type': 'NewsArticle',
    '@id': page.url,
    url: page.url,
    headline: title,
    name: title,
    ...(page.topic ? { keywords: page.topic } : {}),
    publisher: publisherOf(siteUrl, page),
    ...(authors.length > 0 ? { author: authors } : {}),
    ...(editors.length > 0 ? { editor: editors } : {}),
    ...(others.length > 0 ? { contributor: others } : {}),
    ...(corrections.length > 0 ? { correction: corrections } : {}),
    ...(reviews.length > 0 ? { review: reviews } : {}),
    ...(page.content_changed_at ? { dateModified: page.content_changed_at } : {}),
    ...(record.notices.length > 0 ? { creativeWorkStatus: STATUS_WORDS[record.standing], comment: record.notices.map((n) => notice(siteUrl, n, page)) } : {}),
    subjectOf: { '@type': 'WebPage', url: recordUrl(siteUrl, page.id), name: `Trust record: ${title}` },
  };
}

/**
 * JSON-LD as text safe inside a <script> element: nothing in a value can end the element or the script. ASCII, so a
 * cached answer is a one-byte string (http/ascii-json.ts).
 */
export const jsonLdText = (data: unknown): Wire => scriptSafeJson(data);

/** The ready snippet a CMS pastes into its page's head. */
export const jsonLdScript = (data: unknown) => `<script type="application/ld+json">${jsonLdText(data)}</script>`;

export const JSON_LD_TYPE = 'application/ld+json';
/** The type header of a cached JSON-LD answer (http/wire.ts). */
export const JSON_LD_ANSWER = typeHeader(`${JSON_LD_TYPE}; charset=utf-8`);

/** The caller asks for JSON-LD: `format=jsonld`, or an Accept that prefers application/ld+json to JSON and HTML. */
export function wantsJsonLd(accept: string | undefined, format: string | undefined): boolean {
  return format === 'jsonld' || preferredType(accept) === JSON_LD_TYPE;
}

/**
 * Callers send a handful of distinct Accept values; each is ranked once, not on every read. Bounded in
 * entries and in the length of what is kept, whatever callers send.
 */
const ranked = new Map<string, string | undefined>();

/** Of the types this service speaks, the one an Accept header ranks first (by q, then by order). */
export function preferredType(accept: string | undefined): string | undefined {
  if (!accept) return undefined;
  if (ranked.has(accept)) return ranked.get(accept);
  const type = rank(accept);
  if (accept.length > 256) return type;
  if (ranked.size >= 1000) ranked.clear();
  ranked.set(accept, type);
  return type;
}

function rank(accept: string): string | undefined {
  return accept
    .split(',')
    .map((part, i) => {
      const [type = '', ...params] = part.trim().split(';');
      const q = params.map((x) => x.trim()).find((x) => x.startsWith('q='));
      return { type: type.trim().toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1, i };
    })
    .filter((m) => m.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .find((m) => [JSON_LD_TYPE, 'application/json', 'text/html', '*/*'].includes(m.type))?.type;
}
