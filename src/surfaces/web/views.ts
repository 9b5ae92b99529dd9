// Small pieces the public pages and the contributor panel share: dates, role and level labels, links to people,
// publishers and records, pagination, and schema.org shapes. Everything goes through the escaping `html` template.
import type { FastifyRequest } from 'fastify';
import { formatDay, parseDay } from '../../domain/dates.js';
import { wordsFor } from '../embed/i18n.js';
import { profileUrl } from '../urls.js';
import { html, type SafeHtml } from './html.js';

/** `21 Nov 2026` (domain/dates.ts, the one format) in a <time> element that carries the exact moment. Accepts a timestamp or a `YYYY-MM-DD` date. */
export function date(iso: string | null | undefined, lang = 'en'): SafeHtml {
  if (!iso) return html`<span class="muted">never</span>`;
  return parseDay(iso) ? html`<time datetime="${iso}">${formatDay(iso, lang)}</time>` : html`${iso}`;
}

const ROLES = wordsFor('en').roles;
export const roleLabel = (role: string): string => ROLES[role] ?? role;
export const role = (r: string): SafeHtml => html`<span class="badge role-${r}">${roleLabel(r)}</span>`;

const LEVEL_TONE: Record<string, string> = { expert: 'ok', trusted: 'ok', contributor: '', newcomer: 'warn' };
export const levelBadge = (level: string): SafeHtml => html`<span class="badge ${LEVEL_TONE[level] ?? ''}">${level}</span>`;

/** A panel's certainty in words ("low-to-moderate certainty"), never the stored token with its hyphen dropped. */
const CERTAINTY_WORDS: Record<string, string> = { high: 'high', moderate: 'moderate', 'low-moderate': 'low-to-moderate', low: 'low', 'very-low': 'very low' };
export const certaintyLabel = (c: string): string => `${CERTAINTY_WORDS[c] ?? c.replace(/-/g, ' ')} certainty`;

/** Scores in [0, 1] as a percentage people read at a glance (trust 0.87 → 87%). */
export const percent = (x: number): string => `${Math.round(x * 100)}%`;

/**
 * The trust figure, or words while there is nothing to go on: a new account's 0% reads as untrustworthy when it
 * means only that nothing was decided yet. The person's own page knows the rejections ("no decided work yet"); a
 * public profile does not show them, and with nothing accepted its 0% says no more than "no accepted work yet".
 */
export function trustStat(a: { trust_score: number; accepted_count: number; rejected_count?: number }): SafeHtml {
  if (a.accepted_count === 0 && (a.rejected_count ?? 0) === 0) {
    return html`<li><strong>${a.rejected_count === undefined ? 'No accepted work yet' : 'No decided work yet'}</strong> for a trust score</li>`;
  }
  return html`<li><strong>${percent(a.trust_score)}</strong> trust score</li>`;
}

export const personLink = (p: { username: string; name: string }): SafeHtml =>
  html`<a href="/contributors/${encodeURIComponent(p.username)}">${p.name || p.username}</a>`;
export const publisherLink = (p: { slug: string; name: string }): SafeHtml => html`<a href="/publishers/${encodeURIComponent(p.slug)}">${p.name}</a>`;
export const recordLink = (p: { id: number; title: string; url: string }): SafeHtml => html`<a href="/records/${p.id}">${p.title || p.url}</a>`;

/** A link to a page on someone else's site, or a source: never given our referrer's weight. */
export const externalLink = (url: string, text?: string): SafeHtml =>
  /^https?:\/\//i.test(url) ? html`<a href="${url}" rel="nofollow ugc noopener noreferrer">${text ?? url}</a>` : html`${text ?? url}`;

/** Query parameters of this request, as strings (repeated ones: the first). */
export function queryOf(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
    const one = Array.isArray(v) ? v[0] : v;
    if (typeof one === 'string') out[k] = one;
    else if (typeof one === 'number') out[k] = String(one);
  }
  return out;
}

/** `?page=` from 1 to a sane maximum; anything else is page 1. */
export function pageNumber(req: FastifyRequest): number {
  const n = Number(queryOf(req).page);
  return Number.isInteger(n) && n >= 1 && n <= 10_000 ? n : 1;
}

/** Previous/next links that keep the other query parameters. */
export function pager(path: string, params: Record<string, string | undefined>, page: number, perPage: number, total: number): SafeHtml {
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (pages <= 1) return html``;
  const href = (p: number) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
    if (p > 1) q.set('page', String(p));
    const s = q.toString();
    return s ? `${path}?${s}` : path;
  };
  return html`<nav class="pager" aria-label="Pages">
${page > 1 ? html`<a href="${href(page - 1)}" rel="prev">← Previous</a>` : ''}
<span class="muted">Page ${page} of ${pages}</span>
${page < pages ? html`<a href="${href(page + 1)}" rel="next">Next →</a>` : ''}</nav>`;
}

export const empty = (text: string, action?: SafeHtml): SafeHtml => html`<p class="empty">${text}${action ? html` ${action}` : ''}</p>`;

/** schema.org Person for a contributor (public fields only). */
export const personLd = (siteUrl: string, p: { username: string; name: string }) => ({
  '@type': 'Person',
  name: p.name || p.username,
  alternateName: p.username,
  url: profileUrl(siteUrl, p.username),
});

export const organizationLd = (siteUrl: string, p: { slug: string; name: string }, domains: string[] = []) => ({
  '@type': 'Organization',
  name: p.name,
  url: `${siteUrl}/publishers/${encodeURIComponent(p.slug)}`,
  ...(domains.length > 0 ? { sameAs: domains.map((d) => `https://${d}`) } : {}),
});
