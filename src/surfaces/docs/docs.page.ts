// GET /docs: both OpenAPI documents as one reference people use, rendered on the server (no CDN): the site's frame,
// a contents list by surface and tag, each operation with an anchor, and a filter (/assets/docs.js, a file: the
// pages' CSP allows no inline script) that narrows the operations as one types. The documents do not change while the
// process runs, so the page is built once, on its first request, and sent compressed (br or gzip, each coding made
// once: http/precompressed.ts) with a strong ETag to everyone signed out. A signed-in reader's header names them:
// their page is rendered and compressed for them (gzip, the fast level).
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type CachedAnswer, compressible, negotiateCoding, representationOf } from '../../http/precompressed.js';
import { asWire, sendWire } from '../../http/wire.js';
import type { Deps } from '../../domain/deps.js';
import { escapeHtml } from '../html.js';
import { layout, type PageContext } from '../web/layout.js';
import { csrfToken } from '../web/csrf.js';
import { raw } from '../web/html.js';
import { parseCookies, resolveWebUser, SESSION_COOKIE } from '../web/session.js';
import type { OpenApiCollector } from './openapi.js';

const DOCS_SCRIPT = fs.readFileSync(new URL('../../../public/docs.js', import.meta.url), 'utf8');
const gzip = promisify(zlib.gzip);

type Op = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required: boolean; description?: string; schema: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  security?: Record<string, unknown>[];
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const schemaBlock = (summary: string, schema: unknown) =>
  `<details><summary>${summary}</summary><pre>${escapeHtml(JSON.stringify(schema ?? {}, null, 2))}</pre></details>`;

interface Group {
  id: string;
  tag: string;
  ops: string[];
}

function operation(docId: string, prefix: string, path: string, method: string, op: Op): string {
  const full = `${prefix}${path}`;
  // Public routes take a credential if one is sent (and answer 401 to a bad one): "optional", not "none", so a 401
  // listed under them is not a contradiction. "none" is for the routes that read no credential at all.
  const open = !op.security || op.security.every((s) => Object.keys(s).length === 0);
  const optional = !open && op.security!.some((s) => Object.keys(s).length === 0);
  const auth = open ? 'none' : optional ? 'optional (key or session)' : op.description?.includes('session') ? 'session' : 'key or session';
  const params = (op.parameters ?? [])
    .map((p) => `<li><code>${escapeHtml(p.name)}</code> (${p.in}${p.required ? ', required' : ''})${p.description ? ` — ${escapeHtml(p.description)}` : ''}</li>`)
    .join('');
  const body = op.requestBody
    ? Object.entries(op.requestBody.content)
        .map(([media, c]) => schemaBlock(`Request body (${escapeHtml(media)})`, c.schema))
        .join('')
    : '';
  const responses = Object.entries(op.responses)
    .filter(([status]) => status !== 'default')
    .map(([status, r]) =>
      // Most answers are JSON; the transparency log's checkpoint and key are text/plain as well.
      Object.entries(r.content ?? { 'application/json': { schema: {} } })
        .map(([media, c]) => schemaBlock(`${escapeHtml(status)} response (${escapeHtml(media)})`, c.schema))
        .join(''),
    )
    .join('');
  // What the filter matches: the method, the path, the summary and the tag (never the schemas: too much noise).
  const words = `${method} ${full} ${op.summary ?? ''} ${(op.tags ?? []).join(' ')}`.toLowerCase();
  const id = `${docId}-${method}-${slug(path)}`;
  return `<section class="op" id="${id}" data-docs-op="${escapeHtml(words)}"><h4><a class="anchor" href="#${id}"><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(full)}</code></a></h4>
<p>${escapeHtml(op.summary ?? '')} <span class="auth">Auth: ${auth}</span></p>${op.description ? `<p class="hint">${escapeHtml(op.description)}</p>` : ''}${params ? `<ul>${params}</ul>` : ''}${body}${responses}</section>`;
}

function renderDocument(doc: Record<string, unknown>, docId: string): { html: string; toc: string; title: string } {
  const info = doc.info as { title: string; description: string };
  const server = (doc.servers as { url: string }[])[0]?.url ?? '';
  const prefix = new URL(server).pathname.replace(/\/$/, '');
  const paths = doc.paths as Record<string, Record<string, Op>>;
  const groups = new Map<string, Group>();
  for (const [path, item] of Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))) {
    // A path item may also carry `servers` (routes outside the surface's prefix).
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      const group = groups.get(tag) ?? { id: `${docId}-${slug(tag)}`, tag, ops: [] };
      group.ops.push(operation(docId, prefix, path, method, op));
      groups.set(tag, group);
    }
  }
  const ordered = [...groups.values()].sort((a, b) => a.tag.localeCompare(b.tag));
  const sections = ordered
    .map((g) => `<section class="tag-group" aria-labelledby="${g.id}" data-docs-group><h3 id="${g.id}">${escapeHtml(g.tag)}</h3>\n${g.ops.join('\n')}</section>`)
    .join('\n');
  const toc = `<li><a href="#${docId}">${escapeHtml(info.title)}</a><ul>${ordered
    .map((g) => `<li><a href="#${g.id}">${escapeHtml(g.tag)}</a> <span class="muted">${g.ops.length}</span></li>`)
    .join('')}</ul></li>`;
  const html = `<section class="api-doc" aria-labelledby="${docId}"><h2 id="${docId}">${escapeHtml(info.title)}</h2><p>${escapeHtml(info.description)}</p>
<p>Base URL <code class="wrap">${escapeHtml(server)}</code> · machine-readable: <a href="${escapeHtml(prefix)}/openapi.json">openapi.json</a></p>
${sections}</section>`;
  return { html, toc, title: info.title };
}

function body(siteUrl: string, collectors: OpenApiCollector[]): string {
  const docs = collectors.map((c, i) => renderDocument(c.document(siteUrl), `doc-${i}`));
  return `<h1>API reference</h1>
<p class="lede">Two surfaces over one service: ${docs.map((d, i) => `<a href="#doc-${i}">${escapeHtml(d.title)}</a>`).join(' and ')}. Every operation below, with its parameters and the shape of its answers.</p>
<div class="docs">
<nav class="toc" aria-labelledby="toc-h"><h2 id="toc-h">Contents</h2><ul>${docs.map((d) => d.toc).join('')}</ul></nav>
<div class="reference">
<form class="docs-filter" role="search" data-docs-filter-form hidden><label for="docs-filter">Filter the operations</label>
<input type="search" id="docs-filter" data-docs-filter placeholder="lookup, webhooks, POST /api/v1/pages…" autocomplete="off">
<p class="hint" role="status" aria-live="polite" data-docs-count></p></form>
${docs.map((d) => d.html).join('\n')}
</div></div>
<script src="/assets/docs.js" defer></script>`;
}

function page(siteUrl: string, user: PageContext['user'], csrf: string, content: string): string {
  return layout(
    { siteUrl, user, csrf, path: '/docs' },
    { title: 'API reference', description: 'Every operation of Credence’s public API (/v1) and integration API (/api/v1).', body: raw(content) },
  );
}

const HEADERS_SHARED = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', vary: 'Accept-Encoding' };

export function docsPage(app: FastifyInstance, deps: Deps, collectors: OpenApiCollector[]) {
  const siteUrl = deps.config.siteUrl;
  let content: string | null = null;
  let shared: CachedAnswer | null = null;
  const contentOf = () => (content ??= body(siteUrl, collectors));

  app.get('/assets/docs.js', { config: { hidden: true, unlimited: true } }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(DOCS_SCRIPT),
  );
  // People type the address with a slash too; it is the same page, not a JSON 404.
  app.get('/docs/', { config: { hidden: true } }, async (_req, reply) => reply.redirect('/docs', 301));
  app.get('/docs', { config: { hidden: true } }, async (req: FastifyRequest, reply: FastifyReply) => {
    if (parseCookies(req.headers.cookie)[SESSION_COOKIE]) {
      await resolveWebUser(deps, req);
      if (req.webUser) return signedIn(req, reply);
    }
    if (!shared) {
      const html = page(siteUrl, null, '', contentOf());
      shared = { body: html, etag: `"docs-${createHash('sha256').update(html).digest('base64url').slice(0, 16)}"` };
    }
    const answer = shared;
    const rep = representationOf(answer, negotiateCoding(req.headers['accept-encoding'], answer));
    const inm = req.headers['if-none-match'];
    if (typeof inm === 'string' && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === rep.etag)) {
      return reply.headers(HEADERS_SHARED).header('etag', rep.etag).status(304).send();
    }
    sendWire(reply, { ...HEADERS_SHARED, etag: rep.etag, ...(rep.coding ? { 'content-encoding': rep.coding } : {}) }, rep.wire);
    return reply;
  });

  async function signedIn(req: FastifyRequest, reply: FastifyReply) {
    const html = page(siteUrl, req.webUser, csrfToken(req, reply), contentOf());
    const headers = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'private, no-store', vary: 'Accept-Encoding' };
    if (compressible({ body: html }) && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      sendWire(reply, { ...headers, 'content-encoding': 'gzip' }, asWire(await gzip(html, { level: 1 })));
    } else sendWire(reply, headers, asWire(html));
    return reply;
  }
}
