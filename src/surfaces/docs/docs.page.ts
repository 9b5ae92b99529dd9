// GET /docs: both OpenAPI documents as one readable page, rendered on the server (no script, no CDN).
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../html.js';
import type { OpenApiCollector } from './openapi.js';

type Op = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required: boolean; description?: string; schema: Record<string, unknown> }[];
  requestBody?: { content: { 'application/json': { schema: unknown } } };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  security?: Record<string, unknown>[];
};

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

function renderDocument(doc: Record<string, unknown>, id: string): string {
  const info = doc.info as { title: string; description: string };
  const server = (doc.servers as { url: string }[])[0]?.url ?? '';
  const paths = doc.paths as Record<string, Record<string, Op>>;
  const rows = Object.entries(paths)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([path, ops]) =>
      Object.entries(ops)
        // A path item may also carry `servers` (routes outside the surface's prefix).
        .filter(([method]) => METHODS.has(method))
        .map(([method, op]) => {
        const auth = !op.security || op.security.some((s) => Object.keys(s).length === 0) ? 'none' : op.description?.includes('session') ? 'session' : 'key or session';
        const params = (op.parameters ?? [])
          .map((p) => `<li><code>${escapeHtml(p.name)}</code> (${p.in}${p.required ? ', required' : ''})${p.description ? ` — ${escapeHtml(p.description)}` : ''}</li>`)
          .join('');
        const body = op.requestBody
          ? `<details><summary>Request body</summary><pre>${escapeHtml(JSON.stringify(op.requestBody.content['application/json'].schema, null, 2))}</pre></details>`
          : '';
        const responses = Object.entries(op.responses)
          .filter(([status]) => status !== 'default')
          .map(
            ([status, r]) =>
              // Most answers are JSON; the transparency log's checkpoint and key are text/plain as well.
              Object.entries(r.content ?? { 'application/json': { schema: {} } })
                .map(([media, c]) => `<details><summary>${escapeHtml(status)} response (${escapeHtml(media)})</summary><pre>${escapeHtml(JSON.stringify(c.schema ?? {}, null, 2))}</pre></details>`)
                .join(''),
          )
          .join('');
        return `<section class="op"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${escapeHtml(op.summary ?? '')} <span class="auth">Auth: ${auth}</span></p>${params ? `<ul>${params}</ul>` : ''}${body}${responses}</section>`;
      }),
    )
    .join('\n');
  return `<h2 id="${id}">${escapeHtml(info.title)}</h2><p>${escapeHtml(info.description)}</p>
<p>Base URL <code>${escapeHtml(server)}</code> · machine-readable: <a href="${escapeHtml(new URL(server).pathname)}/openapi.json">openapi.json</a></p>${rows}`;
}

export function docsPage(app: FastifyInstance, siteUrl: string, collectors: OpenApiCollector[]) {
  // People type the address with a slash too; it is the same page, not a JSON 404.
  app.get('/docs/', { config: { hidden: true } }, async (_req, reply) => reply.redirect('/docs', 301));
  app.get('/docs', { config: { hidden: true } }, async (_req, reply) => {
    const body = collectors.map((c, i) => renderDocument(c.document(siteUrl), `doc-${i}`)).join('\n');
    return reply.type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Credence API reference</title>
<style>
:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.45}
body{max-width:60rem;margin:2rem auto;padding:0 1rem}
.op{border-top:1px solid #8884;padding:.5rem 0}.op h3{margin:.3rem 0;font-size:1rem}
.m{display:inline-block;min-width:4.5rem;font-weight:700}.get{color:#1a7f37}.post{color:#0969da}.patch{color:#9a6700}.delete{color:#cf222e}
.auth{color:#777;font-size:.85em;margin-left:.5rem}pre{overflow:auto;font-size:.8rem;background:#8881;padding:.5rem}
</style></head><body><h1>Credence API reference</h1>
<p>Two surfaces over one service: <a href="#doc-0">the public API under /v1</a> and <a href="#doc-1">the integration API under /api/v1</a>.</p>
${body}</body></html>`);
  });
}
