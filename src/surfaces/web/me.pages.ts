// The contributor panel at /me (part 4): the marketplace with take and release, a submission form with
// errors next to its fields, one's own submissions by status with withdraw, the public profile, and API keys.
// Every form posts to /me/..., checks CSRF first, and answers with a 303 back to its page and `?done=<key>`;
// invalid input re-renders the form with status 400. Input is checked with the API's own TypeBox schemas.
import fs from 'node:fs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as accounts from '../../domain/accounts/account.service.js';
import * as consent from '../../domain/consent/consent.service.js';
import * as publishers from '../../domain/publishers/publisher.service.js';
import type { Deps } from '../../domain/deps.js';
import * as requests from '../../domain/requests/request.service.js';
import * as submissions from '../../domain/submissions/submission.service.js';
import { html } from './html.js';
import { csrfField } from './layout.js';
import { notice, requireUser } from './kit.js';
import { empty, trustStat } from './views.js';
import { meLinkPages } from './me.links.pages.js';
import { meMailPages } from './me.mail.pages.js';
import { meNamesPages } from './me.names.pages.js';
import { meSecurityPages } from './me.security.pages.js';
import { meWebhookPages } from './me.webhooks.pages.js';
import { expiredTakes, meWorkPages, submissionCard, takenList } from './me.work.pages.js';
import { formUser as formUserOf, meFrame, page, withId } from './me.kit.js';

const ME_SCRIPT = fs.readFileSync(new URL('../../../public/me.js', import.meta.url), 'utf8');

export function mePages(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/assets/me.js', { config: { hidden: true, unlimited: true } }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(ME_SCRIPT),
  );
  const frame = meFrame(deps);
  const formUser = (req: FastifyRequest) => formUserOf(deps, req);

  // ---- Overview ----

  app.get('/me', page, async (req, reply) => {
    const user = requireUser(req);
    const [{ account }, taken, pending, invitations, expired, claims] = await Promise.all([
      accounts.getOwnAccount(deps, user.accountId),
      requests.listTakenRequests(deps, user.accountId),
      submissions.listOwnSubmissions(deps, user.accountId, 'pending', 1, 5),
      publishers.myInvitations(deps, user.accountId),
      requests.myExpiredTakes(deps, user.accountId),
      consent.listMyClaims(deps, user.accountId, 'pending'),
    ]);
    return frame(req, reply, 'My work', (ctx) => html`${notice(req, {
      welcome: `Welcome to Credence, ${account.name}. Take a request below, or submit work on any registered page.`,
      joined: 'You are now a member of the publication: it is on your dashboard.',
      declined: 'The invitation is declined.',
    })}
<h1>Hello, ${account.name}</h1>
${account.email_confirmed_at ? '' : html`<p class="notice warn" role="status">Confirm your email address: follow the link we mailed you. Until then you cannot be named, submit work or make API keys. <a href="/me/mail">Send a new link</a>.</p>`}
${
  invitations.length > 0
    ? html`<section class="card" aria-labelledby="invitations-h"><h2 id="invitations-h">Invitations</h2><ul class="plain list">${invitations.map(
        (i) => html`<li>${i.invited_by} invites you to <strong>${i.name}</strong> as ${i.role === 'owner' ? 'an owner' : 'an editor'}. Keys you make for it act for the publication.
<form method="post" action="/me/invitations/${i.id}/accept" class="inline">${csrfField(ctx)}<button type="submit" class="small">Accept<span class="sr-only"> the invitation to ${i.name}</span></button></form>
<form method="post" action="/me/invitations/${i.id}/decline" class="inline">${csrfField(ctx)}<button type="submit" class="small secondary">Decline<span class="sr-only"> the invitation to ${i.name}</span></button></form></li>`,
      )}</ul></section>`
    : ''
}
${
  claims.length > 0
    ? html`<section class="card" aria-labelledby="claims-h"><h2 id="claims-h">Named as an author</h2><p>${claims.length === 1 ? 'A publication names' : `${claims.length} times, publications name`} you as an author. Nothing is shown in public until you confirm. <a href="/me/names">Confirm or decline each one</a>.</p></section>`
    : ''
}
<p class="muted">Your public profile: <a href="/contributors/${encodeURIComponent(account.username)}">/contributors/${account.username}</a></p>
<ul class="stats">
<li><strong>${account.level}</strong> level</li>
${trustStat(account)}
<li><strong>${account.contribution_score}</strong> contribution score</li>
<li><strong>${account.accepted_count}</strong> accepted</li>
</ul>
<h2>Requests you hold</h2>
${takenList(deps, ctx, taken)}
${expiredTakes(deps, expired)}
<h2>Waiting for a decision</h2>
${
  pending.rows.length === 0
    ? empty('Nothing pending.', html`<a href="/me/submit">Submit work</a>.`)
    : html`<ul class="cards">${pending.rows.map((s) => submissionCard(ctx, s))}</ul>${pending.total > pending.rows.length ? html`<p><a href="/me/submissions?status=pending">All ${pending.total} pending</a></p>` : ''}`
}`);
  });

  // ---- Invitations to publications: membership needs the person's consent ----

  app.post('/me/invitations/:id/accept', withId, async (req, reply) => {
    const { user } = formUser(req);
    await publishers.acceptInvitation(deps, user.accountId, req.params.id);
    return reply.redirect('/me?done=joined', 303);
  });

  app.post('/me/invitations/:id/decline', withId, async (req, reply) => {
    const { user } = formUser(req);
    await publishers.declineInvitation(deps, user.accountId, req.params.id);
    return reply.redirect('/me?done=declined', 303);
  });

  meWorkPages(fastify, deps);
  const namesPage = meNamesPages(fastify, deps);
  meWebhookPages(fastify, deps, namesPage);
  meSecurityPages(fastify, deps);
  meMailPages(fastify, deps);
  meLinkPages(fastify, deps);
}
