// Author links at /me: a publication asks to name the person as the author of a user of its site (a WordPress
// author). The list on /me/names leads to a page of its own for each ask, the second step: it says which
// publication, which site and which display name, and asks "is this you?" before anything is linked. A confirmed
// link can be ended from the list (asked twice).
import type { FastifyInstance } from 'fastify';
import * as links from '../../domain/consent/author-links.js';
import type { Deps } from '../../domain/deps.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, type PageContext } from './layout.js';
import { confirmAction, requireUser } from './kit.js';
import { date, empty } from './views.js';
import { formUser, meFrame, withId } from './me.kit.js';

type Row = links.AuthorLinkRow;

const who = (l: Row) => html`<strong>${l.publisher_name}</strong> asks to name you as the author of the posts of “${l.display_name}” on <code>${l.site}</code>`;

/** The section of /me/names: asks waiting for an answer, and links in force. */
export function authorLinksSection(ctx: PageContext, mine: Row[]): SafeHtml {
  const pending = mine.filter((l) => l.state === 'pending');
  const confirmed = mine.filter((l) => l.state === 'confirmed');
  return html`<h2 id="author-links">Sites that ask to name you</h2>
<p>A publication’s site (WordPress, say) can name you as the author of one of its users’ posts only once you confirm that user is you.</p>
${
  pending.length === 0
    ? empty('No site is waiting for your answer.')
    : html`<ul class="cards">${pending.map(
        (l) => html`<li class="card"><p class="who">${who(l)} <span class="muted">${date(l.created_at)}</span></p>
<p class="actions"><a class="button small" href="/me/author-links/${l.id}">Review<span class="sr-only"> the ask of ${l.publisher_name}</span></a></p></li>`,
      )}</ul>`
}
${
  confirmed.length === 0
    ? ''
    : html`<h3>Linked</h3><ul class="cards">${confirmed.map(
        (l) => html`<li class="card"><p class="who"><strong>${l.publisher_name}</strong> names you as the author of the posts of “${l.display_name}” on <code>${l.site}</code> <span class="muted">since ${date(l.decided_at)}</span></p>
<p class="actions">${confirmAction({
          action: `/me/author-links/${l.id}/unlink`,
          csrf: csrfField(ctx),
          label: html`Unlink<span class="sr-only"> “${l.display_name}” on ${l.site}</span>`,
          consequence: `${l.publisher_name}’s site stops naming you as the author of “${l.display_name}”’s posts as soon as it next checks, and cannot ask you again for that user. Pages already published keep what you confirmed: take your name off them one by one below.`,
          confirm: 'Unlink',
        })}</p></li>`,
      )}</ul>`
}`;
}

export function meLinkPages(app: FastifyInstance, deps: Deps) {
  const frame = meFrame(deps);

  // The second step: everything the person needs to decide, then the answer.
  app.get<{ Params: { id: number } }>('/me/author-links/:id', withId, async (req, reply) => {
    const user = requireUser(req);
    const l = await links.myLink(deps, user.accountId, req.params.id);
    return frame(
      req,
      reply,
      'Is this you?',
      (ctx) => html`<h1>Is this you?</h1>
<dl class="facts">
<dt>Publication</dt><dd><a href="/publishers/${encodeURIComponent(l.publisher_slug)}">${l.publisher_name}</a></dd>
<dt>Site</dt><dd><code>${l.site}</code></dd>
<dt>The site’s user</dt><dd>“${l.display_name}” <span class="muted">(user ${l.user_id} on that site)</span></dd>
<dt>Asked</dt><dd>${date(l.created_at)}</dd>
<dt>Your answer</dt><dd>${l.state === 'pending' ? 'none yet' : l.state}</dd>
</dl>
<p>If you confirm, posts this user publishes on that site name you as their author. Each page still comes to you as a claim to confirm (unless you let ${l.publisher_name} publish at once), and you can unlink at any time on <a href="/me/names#author-links">Named as author</a>.</p>
<p><strong>Confirm only if that account on that site is yours.</strong> If it is not, decline: ${l.publisher_name} cannot ask you again for that user, and nothing names you.</p>
${
  l.state === 'confirmed'
    ? html`<p class="notice" role="status">You confirmed this link.</p>`
    : html`<p class="actions"><form method="post" action="/me/author-links/${l.id}/confirm" class="inline">${csrfField(ctx)}<button type="submit">Yes, that user is me</button></form>
${l.state === 'pending' ? html`<form method="post" action="/me/author-links/${l.id}/decline" class="inline">${csrfField(ctx)}<button type="submit" class="secondary">No, decline</button></form>` : ''}</p>`
}`,
      200,
      '/me/names',
    );
  });

  for (const [answer, done] of [
    ['confirm', 'link-confirmed'],
    ['decline', 'link-declined'],
    ['unlink', 'link-ended'],
  ] as const) {
    app.post<{ Params: { id: number } }>(`/me/author-links/:id/${answer}`, withId, async (req, reply) => {
      const { user } = formUser(deps, req);
      await links.answerLink(deps, user.accountId, req.params.id, answer);
      return reply.redirect(`/me/names?done=${done}#author-links`, 303);
    });
  }
}
