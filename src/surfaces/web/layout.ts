// The page frame every server-rendered page shares: head (title, lang, canonical, JSON-LD), navigation that knows
// who is signed in, and the main content. Readable without JavaScript.
import { html, jsonLd, type SafeHtml } from './html.js';
import type { WebUser } from './session.js';

export interface PageContext {
  siteUrl: string;
  user: WebUser | null;
  /** The CSRF token for forms on this page (the log-out button needs one). */
  csrf: string;
  /** The path of this page, for the canonical link and the active navigation item. */
  path: string;
}

export interface PageOptions {
  title: string;
  body: SafeHtml;
  lang?: string;
  /** schema.org JSON-LD, where a standard type fits. */
  structured?: unknown;
  description?: string;
  /** Leave out of search engines (private pages). */
  noindex?: boolean;
  /** Never stored by any cache, whoever asks (a page that names an address). */
  noStore?: boolean;
}

export const csrfField = (ctx: PageContext) => html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;

function nav(ctx: PageContext): SafeHtml {
  const link = (href: string, label: string) =>
    html`<a href="${href}"${ctx.path === href || (href !== '/' && ctx.path.startsWith(`${href}/`)) ? html` aria-current="page"` : ''}>${label}</a>`;
  const account = ctx.user
    ? html`${link('/dashboard', ctx.user.publishers.length > 0 ? 'Dashboard' : 'For publishers')}${link('/me', 'My work')}${ctx.user.isAdmin ? link('/admin', 'Admin') : ''}
<form method="post" action="/logout" class="inline">${csrfField(ctx)}<button type="submit" class="link">Sign out</button></form>`
    : html`${link('/login', 'Sign in')}<a class="button small" href="/signup">Sign up</a>`;
  return html`<header class="site"><nav aria-label="Main">
<a class="brand" href="/"><span aria-hidden="true">✓</span> Credence</a>
<span class="links">${link('/requests', 'Requests')}${link('/docs', 'API')}</span>
<span class="account">${account}</span></nav></header>`;
}

export function layout(ctx: PageContext, page: PageOptions): string {
  const canonical = `${ctx.siteUrl}${ctx.path}`;
  return html`<!doctype html>
<html lang="${page.lang ?? 'en'}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · Credence</title>
<link rel="canonical" href="${canonical}">
${page.description ? html`<meta name="description" content="${page.description}">` : ''}
${page.noindex ? html`<meta name="robots" content="noindex">` : ''}
<link rel="stylesheet" href="/assets/app.css">
${page.structured ? jsonLd(page.structured) : ''}
</head><body>
<a class="skip" href="#main">Skip to content</a>
${nav(ctx)}
<main id="main">${page.body}</main>
<footer class="site"><p>Credence shows who wrote, reviewed, fact-checked and corrected a page, with the evidence. <a href="/docs">API reference</a> · <a href="/embed/demo">Embed</a></p></footer>
</body></html>`.value;
}
