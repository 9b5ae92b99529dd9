// GET /embed/demo: every style in every language, live, on the demo record with the most accepted work, in the site's
// frame. The blocks sit inside a part of the page whose CSS is deliberately hostile (loud links, borders on every
// paragraph), scoped to that part and explained in words on the page, to show that a host's styles cannot reach the
// block: embed.js draws it in a shadow root with its own stylesheet.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { busiestRecord } from '../../domain/pages/page.service.js';
import { html, raw } from '../web/html.js';
import { sendPage } from '../web/kit.js';
import { LANGS } from './i18n.js';
import { STYLES } from './renderer.js';

// The host's styles, each !important where a careless theme would use it. Scoped to .hostile-host so the site's own
// header and text stay readable (and accessible: the colours keep their contrast, the point is the reach, not the
// colour).
const HOSTILE_CSS = `.hostile-host { font-family: Georgia, serif; }
.hostile-host a { color: #8b008b !important; font-size: 30px !important; text-decoration: wavy underline !important; }
.hostile-host li { list-style: square !important; color: #8a3b00; }
.hostile-host section, .hostile-host p { border: 4px dashed #c00000; padding: .3rem; }
.hostile-host figure { margin: 1.5rem 0; min-width: 0; }
.hostile-host figcaption { font: 13px ui-monospace, monospace; color: #555; margin-bottom: .3rem; overflow-wrap: anywhere; }`;

export function embedDemoPage(app: FastifyInstance, deps: Deps) {
  app.get('/embed/demo', { config: { hidden: true, unlimited: true, html: true } }, async (req, reply) => {
    const record = await busiestRecord(deps);
    const page = record?.page.url ?? '';
    const blocks = STYLES.flatMap((style) =>
      LANGS.map(
        (lang) =>
          html`<figure><figcaption><code>data-style="${style}" data-lang="${lang}"</code></figcaption>
<script async src="/embed.js" data-page="${page}" data-style="${style}" data-lang="${lang}"></script></figure>`,
      ),
    );
    const snippet = `<script async src="${deps.config.siteUrl}/embed.js" data-page="auto" data-style="full"></script>`;
    return sendPage(deps, req, reply, {
      title: 'The embed',
      description: 'The Credence attribution block in every style and language, on a page styled to break it.',
      body: html`<h1>The Credence embed</h1>
<p class="lede">One line on an article of a verified site shows who wrote, reviewed, fact-checked and corrected it, with links to the evidence. It updates by itself.</p>
<pre class="snippet"><code>${snippet}</code></pre>
<p>Attributes: <code>data-style</code> (<code>full</code>, <code>compact</code> or <code>badge</code>), <code>data-lang</code> (${LANGS.join(', ')}), <code>data-page</code> (the article’s URL, or <code>auto</code> for the page it is on).</p>
<h2>On a hostile page</h2>
<p>Publishers’ themes style everything they can reach. To show that no theme can reach the block, the part of this page below is styled to break it: its links are purple, 30 pixels tall and wavy-underlined, its list items have square orange markers, and every paragraph and section gets a red dashed border, all marked <code>!important</code>. The host’s own sentence just below shows those styles.</p>
<p>The blocks do not change: embed.js draws each one in its own shadow root with its own stylesheet, so the host’s CSS cannot select anything inside it, and the block’s CSS cannot leak into the host.</p>
<style>${raw(HOSTILE_CSS)}</style>
<div class="hostile-host" id="hostile">
<p>The host’s own paragraph, with <a href="#hostile">a host link</a>, styled by the hostile rules.</p>
${
  record
    ? html`<p>Showing the record of <a href="${page}">${record.page.title || page}</a>.</p>${blocks}`
    : html`<p>No page has accepted work yet: run <code>credence seed --demo</code>.</p>`
}
</div>`,
    });
  });
}
