// GET /embed/demo: every style in every language, live, on the demo record with the most accepted work. The host
// page's own CSS is deliberately hostile, to show that it cannot reach the block.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { busiestRecord } from '../../domain/pages/page.service.js';
import { escapeHtml as e } from '../html.js';
import { LANGS } from './i18n.js';
import { STYLES } from './renderer.js';

export function embedDemoPage(app: FastifyInstance, deps: Deps) {
  app.get('/embed/demo', { config: { hidden: true, unlimited: true } }, async (_req, reply) => {
    const record = await busiestRecord(deps);
    const page = record?.page.url ?? '';
    const blocks = STYLES.flatMap((style) =>
      LANGS.map(
        (lang) =>
          `<figure><figcaption><code>data-style="${style}" data-lang="${lang}"</code></figcaption>
<script async src="/embed.js" data-page="${e(page)}" data-style="${style}" data-lang="${lang}"></script></figure>`,
      ),
    ).join('\n');
    const snippet = `<script async src="${deps.config.siteUrl}/embed.js" data-page="auto" data-style="full"></script>`;
    return reply.type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Credence embed demo</title>
<style>
body{max-width:48rem;margin:2rem auto;padding:0 1rem;font-family:Georgia,serif}
/* Hostile host styles: none of these may change the block. */
a{color:magenta!important;font-size:30px!important} li{list-style:square!important;color:orange} section,p{border:4px dashed red}
figure{margin:1.5rem 0} figcaption{font:13px monospace;color:#555;margin-bottom:.3rem}
</style></head><body>
<h1>The Credence embed</h1>
<p>Paste this where the block should appear on an article of a verified site:</p>
<pre>${e(snippet)}</pre>
${record ? `<p>Showing the record of <a href="${e(page)}">${e(record.page.title || page)}</a>.</p>${blocks}` : '<p>No page has accepted work yet: run <code>credence seed --demo</code>.</p>'}
</body></html>`);
  });
}
