// Finished embed responses (body and ETag), cached per page, style, language and format. The record cache's
// invalidation (every accepted decision) clears these too, so a block never lags behind accepted work.
import { createHash } from 'node:crypto';
import type { Deps } from '../../domain/deps.js';
import { asciiJson, scriptSafeJson } from '../../http/ascii-json.js';
import type { CachedAnswer } from '../../http/precompressed.js';
import * as pages from '../../domain/pages/page.service.js';
import { type PageRecord, hasRecord } from '../../domain/pages/record.js';
import { jsonLdScript, recordJsonLd } from '../linked-data/schema-org.js';
import { type Lang } from './i18n.js';
import { EMBED_CSS, type EmbedStyle, renderAttribution } from './renderer.js';

export interface EmbedOutput extends CachedAnswer {
  contentType: string;
  /** `format=jsonld` for a page with no public record: answered 404 in the surface's envelope, kept as such. */
  absent?: true;
}

export type EmbedFormat = 'json' | 'js' | 'jsonld';

export const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

const CSS_LITERAL = scriptSafeJson(EMBED_CSS);

/**
 * A script that puts the block right after the <script> element that loaded it, in a shadow root that adopts the
 * block's stylesheet, as embed.js does (the block's own <link> to it is then dropped unfetched).
 */
export function injectingScript(html: string): string {
  // Escaped so the HTML cannot end a script context or a JS string, whatever it contains.
  const literal = scriptSafeJson(html);
  return (
    '(function(){var s=document.currentScript;if(!s||!s.parentNode)return;var h=document.createElement("div");' +
    'h.setAttribute("data-credence-block","");s.parentNode.insertBefore(h,s.nextSibling);' +
    'var r=h.attachShadow?h.attachShadow({mode:"open"}):h;var t=document.createElement("template");' +
    `t.innerHTML=${literal};` +
    'if(r!==h&&"adoptedStyleSheets"in r&&typeof CSSStyleSheet==="function")try{var c=new CSSStyleSheet();' +
    `c.replaceSync(${CSS_LITERAL});r.adoptedStyleSheets=[c];` +
    'var l=t.content.querySelector(\'link[rel="stylesheet"]\');if(l)l.parentNode.removeChild(l)}catch(e){}' +
    'r.appendChild(t.content);})();\n'
  );
}

/**
 * `format=jsonld`: the record's schema.org JSON-LD as a ready <script type="application/ld+json"> element for the
 * publisher's own page (served as text/html, to paste or include server-side). Absent (a 404) where the block would
 * be empty: an unknown page, a page off a verified domain, or one without accepted work or notices; an empty 200
 * would read as a script element to paste.
 */
function jsonLdOutput(deps: Deps, record: PageRecord | null): EmbedOutput {
  if (!(record && record.verified && hasRecord(record))) return { body: '', etag: etagOf(''), contentType: 'text/html; charset=utf-8', absent: true };
  const body = `${jsonLdScript(recordJsonLd(deps.config.siteUrl, record))}\n`;
  return { body, etag: etagOf(body), contentType: 'text/html; charset=utf-8' };
}

function output(html: string, extra: Record<string, string>, format: EmbedFormat): EmbedOutput {
  // Every /api/v1 answer carries `success` (SPEC §6); the block itself is `html` as the seed shows it.
  const body = format === 'js' ? injectingScript(html) : asciiJson({ success: true, html, ...extra });
  return { body, etag: etagOf(body), contentType: format === 'js' ? 'application/javascript; charset=utf-8' : 'application/json; charset=utf-8' };
}

const render = (deps: Deps, record: PageRecord | null, style: EmbedStyle, lang: Lang) =>
  record ? renderAttribution({ siteUrl: deps.config.siteUrl, record, style, lang }) : '';

/** One embed asked for: the page (by id or URL), its style, language and format, and its cache key, made once. */
export type EmbedAsk = { style: EmbedStyle; lang: Lang; format: EmbedFormat; key: string } & ({ id: number } | { url: string });

/** The embed of a page (by id or URL) in a style, language and format, with its cache key. */
export function embedAsk(page: { id: number } | { url: string }, style: EmbedStyle, lang: Lang, format: EmbedFormat): EmbedAsk {
  const which = 'id' in page ? `id:${page.id}` : `url:${page.url}`;
  return { ...page, style, lang, format, key: `embed-out:${which}:${style}:${lang}:${format}` };
}

/** The embed, from the cache when it holds it (without a promise), else built from the page's record. */
export function embedFor(deps: Deps, ask: EmbedAsk): EmbedOutput | Promise<EmbedOutput> {
  return deps.recordCache.getNow(ask.key, async () => {
    const record = 'id' in ask ? await pages.recordById(deps, ask.id) : await pages.recordByEmbedUrl(deps, ask.url);
    if (ask.format === 'jsonld') return jsonLdOutput(deps, record);
    // By URL, the answer names the page's title too (the seed's shape); by id, the caller knows the page.
    const extra: Record<string, string> = 'id' in ask ? {} : { title: record?.page.title ?? '' };
    return output(render(deps, record, ask.style, ask.lang), extra, ask.format);
  });
}

/** The embed the cache can serve now, or undefined: nothing is loaded. */
export const cachedEmbed = (deps: Deps, ask: EmbedAsk): EmbedOutput | undefined => deps.recordCache.peek<EmbedOutput>(ask.key);
