// Being named as an author at /me/names: claims to confirm or decline, public work to take one's name back from,
// and standing answers per publication. The page's webhook section is me.webhooks.pages.ts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import * as links from '../../domain/consent/author-links.js';
import * as consent from '../../domain/consent/consent.service.js';
import type { Deps } from '../../domain/deps.js';
import * as webhooks from '../../domain/webhooks/webhook.service.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, type PageContext } from './layout.js';
import { confirmAction, field, notice, requireUser } from './kit.js';
import { takeFlash } from './flash.js';
import { date, empty, recordLink, role } from './views.js';
import { formUser as formUserOf, meFrame, page, withId } from './me.kit.js';
import { authorLinksSection } from './me.links.pages.js';

/**
 * What taking one's name back does, said before it is done (docs/decisions/irreversible-actions-ask-twice.md). For an
 * authorship it also says what it does not undo: having been the author stays a conflict on that page
 * (docs/decisions/authors-do-not-check-their-own-pages.md), which someone taking their name back to check it expects
 * otherwise.
 */
function takeBackConsequence(role: string, title: string): string {
  const off = `Your name comes off “${title}”: its record, its embed, your profile and your scores stop counting this work, and you cannot put it back from here.`;
  return role === 'author'
    ? `${off} Having been its author stays a conflict of interest: you will not be able to review, fact-check, edit or correct this page, add a source to it, or have such work accepted on it afterwards.`
    : off;
}

/** The page, re-rendered by the webhook section's posts with their answer. */
export type NamesPage = (req: FastifyRequest, reply: FastifyReply, hook?: { secret?: string; url?: string; error?: string }, status?: number) => Promise<unknown>;

export function meNamesPages(fastify: FastifyInstance, deps: Deps): NamesPage {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const frame = meFrame(deps);
  const formUser = (req: FastifyRequest) => formUserOf(deps, req);

  // ---- Your name: claims to answer, public work to take one's name back from, standing answers ----

  /** `hook`: a webhook of one's own just made (its secret, shown this once), or the form's value and error. */
  const namesPage = async (req: FastifyRequest, reply: FastifyReply, hook: { secret?: string; url?: string; error?: string } = {}, status = 200) => {
    const user = requireUser(req);
    const [claims, work, preferences, memberships, hooks, mine] = await Promise.all([
      consent.listMyClaims(deps, user.accountId, 'pending'),
      consent.listMyContributions(deps, user.accountId),
      consent.listMyPreferences(deps, user.accountId),
      consent.listMyPublications(deps, user.accountId),
      webhooks.listWebhooks(deps, user.accountId, 1, 100),
      links.listMyLinks(deps, user.accountId),
    ]);
    const own = hooks.items.filter((w) => w.row.format === 'contributor');
    const answered = new Map(preferences.map((p) => [p.slug, p.preference]));
    const form = (ctx: PageContext, action: string, label: SafeHtml | string, cls = 'small') =>
      html`<form method="post" action="${action}" class="inline">${csrfField(ctx)}<button type="submit" class="${cls}">${label}</button></form>`;
    return frame(req, reply, 'Named as author', (ctx) => html`${notice(req, {
      confirmed: 'Confirmed: the page now names you as its author.',
      declined: 'Declined: nothing was shown, and that publication cannot name you on that page again.',
      withdrawn: 'Your name is off that work: the record, the embed, your profile and your scores no longer count it.',
      saved: 'Saved.',
      'hook-deleted': 'The webhook is deleted.',
      'link-confirmed': 'Linked: that site may name you as its user’s author; each page still asks you.',
      'link-declined': 'Declined: that site cannot name you for that user, nor ask you again.',
      'link-ended': 'Unlinked: that site stops naming you as that user’s author.',
    })}
<h1>Named as author</h1>
<p class="lede">Nothing is said about you in public until you agree, and you can take your name back from any work at any time.</p>
<h2>Waiting for your answer</h2>
${
  claims.length === 0
    ? empty('No publication is waiting for you.')
    : html`<ul class="cards">${claims.map(
        (c) => html`<li class="card"><p class="who"><strong>${c.publisher_name}</strong> names you as the author of</p>
<p>${recordLink({ id: c.page_id, title: c.page_title, url: c.page_url })} <span class="muted">${date(c.created_at)}</span></p>
<p class="actions">${form(ctx, `/me/claims/${c.id}/confirm`, html`Confirm<span class="sr-only"> authorship of “${c.page_title}”</span>`)}
${confirmAction({ action: `/me/claims/${c.id}/decline`, csrf: csrfField(ctx), label: html`Decline<span class="sr-only"> authorship of “${c.page_title}”</span>`, consequence: `Nothing names you on “${c.page_title}”, and ${c.publisher_name} cannot name you on that page again.`, confirm: 'Decline for good', cls: 'small secondary' })}
${answered.get(c.publisher_slug) === 'refuse' ? '' : confirmAction({ action: `/me/claim-preferences/${encodeURIComponent(c.publisher_slug)}/refuse`, csrf: csrfField(ctx), label: html`Refuse all from ${c.publisher_name}`, consequence: `Every pending and future naming by ${c.publisher_name} is refused: your name appears on none of its pages until you change this under standing answers.`, confirm: `Refuse all from ${c.publisher_name}` })}</p></li>`,
      )}</ul>`
}
${authorLinksSection(ctx, mine)}
<h2>Your public work</h2>
${
  work.length === 0
    ? empty('Nothing public names you yet.')
    : html`<ul class="cards">${work.map(
        (w) => html`<li class="card"><p class="who">${role(w.role)} <span class="muted">${w.publisher_name}, ${date(w.accepted_at)}</span></p>
<p>${recordLink({ id: w.page_id, title: w.page_title, url: w.page_url })}</p>
${confirmAction({ action: `/me/contributions/${w.id}/withdraw`, csrf: csrfField(ctx), label: html`Take my name off<span class="sr-only"> “${w.page_title}”</span>`, consequence: takeBackConsequence(w.role, w.page_title), confirm: 'Take my name off' })}</li>`,
      )}</ul>`
}
<h2>Standing answers</h2>
<p>A publication you belong to can publish what it names you in at once, if you let it. You can refuse all claims from any publication.</p>
<ul class="plain list">${memberships.map((m) =>
      answered.get(m.slug) === 'permit'
        ? html`<li><strong>${m.name}</strong> publishes what it names you in at once. ${form(ctx, `/me/claim-preferences/${encodeURIComponent(m.slug)}/clear`, 'Ask me each time', 'small secondary')}</li>`
        : html`<li><strong>${m.name}</strong> asks you each time. ${form(ctx, `/me/claim-preferences/${encodeURIComponent(m.slug)}/permit`, html`Let ${m.name} publish at once`, 'small secondary')}</li>`,
    )}${preferences
      .filter((p) => p.preference === 'refuse')
      .map((p) => html`<li>You refuse every claim from <strong>${p.name}</strong>. ${form(ctx, `/me/claim-preferences/${encodeURIComponent(p.slug)}/clear`, 'Ask me each time', 'small secondary')}</li>`)}</ul>
<h2 id="webhooks">Hear of it by webhook</h2>
<p>Your own systems can hear, signed, when a publication names you, when the public record names you or stops, and when a page that names you gets a notice: a webhook of your own (<a href="/docs">API documentation</a>, the <code>contributor</code> format).</p>
${
  hook.secret
    ? html`<section class="card created" aria-labelledby="new-hook-h"><h3 id="new-hook-h">Your webhook’s signing secret</h3>
<p><strong>Copy it now: it will not be shown again.</strong> Check every delivery’s <code>X-Service-Signature</code> with it: an HMAC-SHA256 of “timestamp.body”.</p>
<div class="copy-row"><label class="sr-only" for="new-secret">The signing secret</label><input id="new-secret" class="secret" readonly value="${hook.secret}">
<button type="button" class="secondary" data-copy="new-secret" hidden>Copy</button></div>
<p class="hint" id="copy-status" role="status"></p></section>
<script src="/assets/me.js" defer></script>`
    : ''
}
${
  own.length === 0
    ? empty('No webhook of your own yet.')
    : html`<ul class="cards">${own.map(
        (w) => html`<li class="card"><p class="wrap"><code>${w.row.url}</code></p>
<p class="muted small">${w.row.enabled === 1 ? 'enabled' : 'paused'} · ${w.health.pending} waiting · ${w.row.last_success_at ? html`last delivered ${date(w.row.last_success_at)}` : 'nothing delivered yet'}</p>
${confirmAction({ action: `/me/webhooks/${w.row.id}/delete`, csrf: csrfField(ctx), label: html`Delete<span class="sr-only"> the webhook ${w.row.url}</span>`, consequence: `${w.row.url} stops hearing what names you at once; its waiting deliveries and recorded attempts are deleted with it. A deleted webhook cannot be brought back: to hear again, register it anew with a new secret.`, confirm: 'Delete the webhook for good' })}</li>`,
      )}</ul>`
}
<form method="post" action="/me/webhooks" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'url', label: 'Endpoint URL', type: 'url', value: hook.url, error: hook.error, required: true, hint: 'https, on a public address' })}
<div><button type="submit">Add webhook</button></div></form>`, status);
  };

  // A secret is shown by the GET the post redirects to, once (flash.ts): a reload shows nothing and makes nothing.
  app.get('/me/names', page, async (req, reply) => {
    const secret = takeFlash(req, reply, requireUser(req).token)?.secret;
    return namesPage(req, reply, secret ? { secret } : {});
  });

  for (const [action, run, done] of [
    ['confirm', consent.confirmClaim, 'confirmed'],
    ['decline', consent.declineClaim, 'declined'],
  ] as const) {
    app.post(`/me/claims/:id/${action}`, withId, async (req, reply) => {
      const { user } = formUser(req);
      await run(deps, user.accountId, req.params.id);
      return reply.redirect(`/me/names?done=${done}`, 303);
    });
  }

  app.post('/me/contributions/:id/withdraw', withId, async (req, reply) => {
    const { user } = formUser(req);
    await consent.withdrawContribution(deps, user.accountId, req.params.id);
    return reply.redirect('/me/names?done=withdrawn', 303);
  });

  app.post(
    '/me/claim-preferences/:slug/:answer',
    { config: { html: true }, schema: { params: Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }), answer: Type.Union([Type.Literal('permit'), Type.Literal('refuse'), Type.Literal('clear')]) }) } },
    async (req, reply) => {
      const { user } = formUser(req);
      const { slug, answer } = req.params;
      await consent.setClaimPreference(deps, user.accountId, slug, answer === 'clear' ? null : answer);
      return reply.redirect('/me/names?done=saved', 303);
    },
  );
  return namesPage;
}
