// The publisher dashboard: the way in (create a publication, or pick one), the overview with members,
// and domains with their verification. The other sections live in dashboard.*.pages.ts and are registered here, so
// the web root registers the dashboard with one line. Every page reads and writes through the same services as
// the APIs; membership is the services' check (404 for anyone else).
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import * as pages from '../../domain/pages/page.service.js';
import * as publishers from '../../domain/publishers/publisher.service.js';
import * as requests from '../../domain/requests/request.service.js';
import { DomainError, statusOf } from '../../http/errors.js';
import { itemValidator } from '../../http/validation.js';
import { MemberBody, PublisherBody } from '../integration-v1/account.routes.js';
import { integrationPages } from './dashboard.integrations.pages.js';
import { inboxPages } from './dashboard.inbox.pages.js';
import { copyable, day, errorsFor, type Publication, publicationOf, selectField, sendDashboard, stackable, statusBadge } from './dashboard.kit.js';
import { workPages } from './dashboard.work.pages.js';
import { html, type SafeHtml } from './html.js';
import { confirmAction, type FieldErrors, field, fieldErrorsOf, notice, pageContext, readForm, Redirect, requireUser, rulesOf, sendPage, str } from './kit.js';
import { csrfField } from './layout.js';

const SCRIPT = fs.readFileSync(new URL('../../../public/dashboard.js', import.meta.url), 'utf8');

const validPublication = itemValidator<{ name: string; slug: string }>(PublisherBody);
const validMember = itemValidator<{ username: string; role: 'owner' | 'editor' }>(MemberBody);

const page = { config: { html: true } };

export function dashboardPages(app: FastifyInstance, deps: Deps) {
  // The copy buttons: a progressive enhancement, so pages work the same without it.
  app.get('/assets/dashboard.js', { config: { hidden: true, unlimited: true } }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(SCRIPT),
  );

  // ---------------------------------------------------------------------------------------------------------------
  // The way in: a member of one publication lands on it; anyone else picks one or creates their first.

  const startPage = (req: FastifyRequest, reply: FastifyReply, values: Record<string, string> = {}, errors: FieldErrors = {}, status = 200) => {
    const user = requireUser(req);
    const ctx = pageContext(deps, req, reply);
    const list = user.publishers;
    const body = html`${notice(req, { 'logged-in': 'Welcome back.' })}
<h1>${list.length === 0 ? 'Create your publication' : 'Your publications'}</h1>
${
  list.length === 0
    ? html`<p class="lede">A publication registers its pages, asks specialists for reviews, fact-checks and corrections, decides on the work, and shows the record on its own site. Start by naming it; you become its owner.</p>`
    : html`<ul class="grid plain">${list.map(
        (p) => html`<li class="card"><h2 class="card-title"><a href="/dashboard/${p.slug}">${p.name}</a></h2><p class="muted">${p.slug} · ${p.role}</p></li>`,
      )}</ul><h2>Create another publication</h2>`
}
<form method="post" action="/dashboard" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'name', label: 'Name', value: values.name, error: errors.name, rules: rulesOf(PublisherBody, 'name'), autocomplete: 'organization', hint: 'As readers know it, e.g. The Daily Ledger' })}
${field({ name: 'slug', label: 'Short name', value: values.slug, error: errors.slug, rules: rulesOf(PublisherBody, 'slug'), autocomplete: 'off', hint: 'Used in addresses' })}
<div><button type="submit">Create publication</button></div></form>`;
    return sendPage(deps, req, reply, { title: list.length === 0 ? 'Create your publication' : 'Your publications', body, noindex: true }, status);
  };

  app.get('/dashboard', page, async (req, reply) => {
    const user = requireUser(req);
    const all = (req.query as Record<string, unknown>).all !== undefined;
    if (user.publishers.length === 1 && !all) throw new Redirect(`/dashboard/${user.publishers[0]!.slug}`);
    return startPage(req, reply);
  });

  app.post('/dashboard', page, async (req, reply) => {
    const user = requireUser(req);
    const form = readForm(deps, req);
    const values = { name: str(form.name), slug: str(form.slug).toLowerCase() };
    const checked = validPublication(values);
    if (!checked.ok) return startPage(req, reply, values, fieldErrorsOf(checked.error.details), 400);
    let created;
    try {
      created = await publishers.createPublisher(deps, user.accountId, checked.value);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 409) return startPage(req, reply, values, { slug: err.message }, 409);
      throw err;
    }
    throw new Redirect(`/dashboard/${created.slug}?done=created`);
  });

  // ---------------------------------------------------------------------------------------------------------------
  // Overview: where things stand, what to do next, and the members.

  const overview = async (req: FastifyRequest, reply: FastifyReply, pub: Publication, values: Record<string, string> = {}, errors: FieldErrors = {}, status = 200) => {
    const ctx = pageContext(deps, req, reply);
    const [domains, pageList, requestList, members, invitations] = await Promise.all([
      publishers.listDomains(deps, pub.user.accountId, pub.slug),
      pages.listPages(deps, pub.id, 1, 5),
      requests.listPublisherRequests(deps, [pub.id], 1, 5),
      publishers.listMembers(deps, pub.user.accountId, pub.slug),
      publishers.listInvitations(deps, pub.user.accountId, pub.slug),
    ]);
    const owner = pub.role === 'owner';
    // Owners remove anyone; every member can leave, except the only owner: a publication always has one, so they are
    // told how to hand it on instead of being offered a button that cannot work.
    const onlyOwner = owner && members.filter((m) => m.role === 'owner').length === 1;
    const memberAction = (m: { username: string; name: string }) =>
      m.username === pub.user.username
        ? onlyOwner
          ? html`<span class="hint">You are the only owner. To leave, <a href="#f-username">invite someone as an owner</a> first; once they accept, you can leave.</span>`
          : confirmAction({ action: `${pub.base}/members/${m.username}/remove`, csrf: csrfField(ctx), label: html`Leave<span class="sr-only"> ${pub.name}</span>`, consequence: `You lose access to ${pub.name} at once, and the keys you made for it are revoked. Only an owner can invite you back.`, confirm: `Leave ${pub.name}`, cls: 'small secondary' })
        : owner
          ? confirmAction({ action: `${pub.base}/members/${m.username}/remove`, csrf: csrfField(ctx), label: html`Remove<span class="sr-only"> ${m.name}</span>`, consequence: `${m.name} loses access to ${pub.name} at once, and the keys they made for it are revoked. To have them back, invite them again.`, confirm: `Remove ${m.name}`, cls: 'small secondary' })
          : '';
    const verified = domains.filter((d) => d.status === 'verified').length;
    const steps: { done: boolean; text: SafeHtml }[] = [
      { done: verified > 0, text: html`<a href="${pub.base}/domains">Claim and verify your domain</a>, so your pages can be registered and show their record.` },
      { done: pageList.total > 0, text: html`<a href="${pub.base}/pages">Register your pages</a>, one at a time or as a pasted list.` },
      { done: requestList.total > 0, text: html`<a href="${pub.base}/requests">Ask for a review, a fact-check or a correction</a>.` },
      { done: false, text: html`<a href="${pub.base}/embed">Put the record on your articles</a> with one script tag.` },
    ];
    const body = html`${notice(req, {
      created: 'Your publication is ready. Next: claim your domain.',
      'member-added': 'The member’s role is changed.',
      invited: 'The invitation is sent: they become a member when they accept it on their page.',
      'member-removed': 'The member is removed: their keys for the publication are revoked, and their webhooks are yours now.',
      withdrawn: 'The invitation is withdrawn.',
    })}
${errors.members ? html`<p class="notice error" role="alert">${errors.members}</p>` : ''}
<ul class="stats">
<li><strong>${verified}</strong> verified ${verified === 1 ? 'domain' : 'domains'}</li>
<li><strong>${pageList.total}</strong> ${pageList.total === 1 ? 'page' : 'pages'} on record</li>
<li><strong>${requestList.total}</strong> ${requestList.total === 1 ? 'request' : 'requests'}</li>
<li><strong>${members.length}</strong> ${members.length === 1 ? 'member' : 'members'}</li>
</ul>
${
  steps.some((s) => !s.done)
    ? html`<section class="card" aria-labelledby="next-steps"><h2 id="next-steps" class="card-title">Getting started</h2><ol class="steps">${steps.map(
        (s) => html`<li${s.done ? html` class="done"` : ''}>${s.done ? html`<span class="badge ok">done</span> ` : ''}${s.text}</li>`,
      )}</ol></section>`
    : ''
}
<div class="split">
<section aria-labelledby="recent-pages"><h2 id="recent-pages">Recent pages</h2>
${
  pageList.records.length === 0
    ? html`<p class="muted">No pages yet.</p>`
    : html`<ul class="plain list">${pageList.records.map(
        (r) => html`<li><a href="${pub.base}/pages/${r.page.id}">${r.page.title || r.page.url}</a> ${statusBadge(r.verified ? 'verified' : 'unverified')}<br><span class="muted small">${r.contributions.length} accepted</span></li>`,
      )}</ul>`
}</section>
<section aria-labelledby="recent-requests"><h2 id="recent-requests">Recent requests</h2>
${
  requestList.rows.length === 0
    ? html`<p class="muted">No requests yet.</p>`
    : html`<ul class="plain list">${requestList.rows.map(
        (r) => html`<li>${r.title || r.page_title || r.page_url} ${statusBadge(r.status)}<br><span class="muted small">${r.taken_by_username ? `taken by ${r.taken_by_username}` : html`opened ${day(r.created_at)}`}</span></li>`,
      )}</ul><p><a href="${pub.base}/requests">All requests</a></p>`
}</section>
</div>
<section aria-labelledby="members"><h2 id="members">Members</h2>
${stackable(html`<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Username</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Action</span></th></tr></thead><tbody>
${members.map((m) => html`<tr><td><a href="/contributors/${m.username}">${m.name}</a></td><td>${m.username}</td><td>${m.role}</td><td>${day(m.created_at)}</td><td>${memberAction(m)}</td></tr>`)}
</tbody></table></div>`)}
${
  invitations.length > 0
    ? html`<h3>Invited</h3><ul class="plain list">${invitations.map(
        (i) => html`<li>${i.account_name} (${i.username}) as ${i.role}, invited by ${i.invited_by} on ${day(i.created_at)}${
          owner
            ? html` ${confirmAction({ action: `${pub.base}/invitations/${i.username}/withdraw`, csrf: csrfField(ctx), label: html`Withdraw<span class="sr-only"> the invitation of ${i.account_name}</span>`, consequence: `${i.account_name} can no longer accept; to ask again, send a new invitation.`, confirm: 'Withdraw the invitation', cls: 'small secondary' })}`
            : ''
        }</li>`,
      )}</ul>`
    : ''
}
${
  owner
    ? html`<h3>Add a member</h3><form method="post" action="${pub.base}/members" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'username', label: 'Username', value: values.username, error: errors.username, rules: rulesOf(MemberBody, 'username'), autocomplete: 'off', hint: 'They need an account first, and accept the invitation on their page' })}
${selectField({ name: 'role', label: 'Role', value: values.role ?? 'editor', error: errors.role, options: [{ value: 'editor', label: 'Editor: registers pages, opens requests, decides work' }, { value: 'owner', label: 'Owner: also manages members' }] })}
<div><button type="submit">Invite</button></div></form>`
    : html`<p class="muted">Owners add members.</p>`
}</section>`;
    return sendDashboard(deps, req, reply, pub, 'overview', { title: 'Overview', body }, status);
  };

  app.get('/dashboard/:slug', page, async (req, reply) => overview(req, reply, await publicationOf(deps, req)));

  app.post('/dashboard/:slug/members', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const form = readForm(deps, req);
    const values = { username: str(form.username).toLowerCase(), role: str(form.role) };
    const checked = validMember(values);
    if (!checked.ok) return overview(req, reply, pub, values, fieldErrorsOf(checked.error.details), 400);
    let added: Awaited<ReturnType<typeof publishers.addMember>>;
    try {
      added = await publishers.addMember(deps, pub.user.accountId, pub.slug, checked.value);
    } catch (err) {
      // An editor asking for an owner's action gets the 403 page; a bad username goes beside its field.
      // The last owner demoting themselves (409) is told why, beside the field too.
      if (err instanceof DomainError && [400, 409].includes(statusOf(err))) return overview(req, reply, pub, values, errorsFor(err, 'username'), statusOf(err));
      throw err;
    }
    throw new Redirect(`${pub.base}?done=${added.status === 'invited' ? 'invited' : 'member-added'}`);
  });

  // Remove a member (owners), or leave (anyone, on their own row). Leaving ends at the dashboard's start.
  app.post('/dashboard/:slug/members/:username/remove', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    readForm(deps, req);
    const username = (req.params as { username: string }).username;
    try {
      await publishers.removeMember(deps, pub.user.accountId, pub.slug, username);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 409) return overview(req, reply, pub, {}, { members: err.message }, 409);
      throw err;
    }
    throw new Redirect(username.toLowerCase() === pub.user.username ? '/dashboard?all=1' : `${pub.base}?done=member-removed`);
  });

  app.post('/dashboard/:slug/invitations/:username/withdraw', page, async (req) => {
    const pub = await publicationOf(deps, req);
    readForm(deps, req);
    await publishers.cancelInvitation(deps, pub.user.accountId, pub.slug, (req.params as { username: string }).username);
    throw new Redirect(`${pub.base}?done=withdrawn`);
  });

  // ---------------------------------------------------------------------------------------------------------------
  // Domains: claim, the two ways to prove control, and a Verify button that runs the real check.

  const domainsPage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    pub: Publication,
    opts: { values?: Record<string, string>; errors?: FieldErrors; failed?: { domain: string; error: DomainError } } = {},
    status = 200,
  ) => {
    const ctx = pageContext(deps, req, reply);
    const domains = await publishers.listDomains(deps, pub.user.accountId, pub.slug);
    // A local or demo service cannot reach a real site or DNS for a made-up domain: say how its operator verifies.
    const local = /^http:\/\/(localhost|127\.|\[::1\])/.test(deps.config.siteUrl);
    const card = (d: (typeof domains)[number], i: number) => {
      const how = publishers.verificationInstructions(d.domain, d.token);
      const failure = opts.failed?.domain === d.domain ? opts.failed.error : undefined;
      if (d.status === 'verified') {
        return html`<li class="card"><h3 class="card-title">${d.domain} ${statusBadge('verified')}</h3>
<p class="muted">Verified ${day(d.verified_at)} by ${d.verified_by === 'dns' ? 'DNS record' : d.verified_by === 'file' ? 'well-known file' : 'an operator'}. Pages on ${d.domain} and its subdomains can be registered.</p></li>`;
      }
      return html`<li class="card"><h3 class="card-title">${d.domain} ${statusBadge('pending', 'not verified yet')}</h3>
${
  failure
    ? html`<div class="notice error" role="alert"><p><strong>Not verified yet.</strong> Here is what we found:</p><ul>${(failure.details ?? [{ field: '', message: failure.message }]).map(
        (f) => html`<li>${f.field === 'dns' ? 'DNS: ' : f.field === 'file' ? 'File: ' : ''}${f.message}</li>`,
      )}</ul><p>What next: publish one of the two below and press Verify again. A new DNS record can take up to an hour to be seen; the file must answer over HTTPS at the address shown. A name with no public address (a test or internal domain) cannot be checked from here: ${
        local ? html`on this local service, verify it by hand with` : html`the service’s operator can verify it by hand with`
      } <code class="wrap">npx credence domains:verify ${d.domain} --publisher ${pub.slug}</code>.</p></div>`
    : local
      ? html`<p class="notice" role="note">This service runs on your own machine, where nothing on the internet can be checked: verify by hand with <code class="wrap">npx credence domains:verify ${d.domain} --publisher ${pub.slug}</code>, then reload this page.</p>`
      : ''
}
<p>Prove that you control ${d.domain} in one of two ways, then press Verify.</p>
<div class="split">
<div><h4>A DNS TXT record</h4>
<dl class="facts"><dt>Type</dt><dd>${how.dns.type}</dd><dt>Name</dt><dd><code>${how.dns.name}</code></dd><dt>Value</dt><dd>${copyable(`txt-${i}`, how.dns.value, { label: `the TXT value for ${d.domain}` })}</dd></dl></div>
<div><h4>Or a file on the site</h4>
<p>At <code class="wrap">${how.file.url}</code>, holding:</p>${copyable(`file-${i}`, how.file.content, { label: `the file content for ${d.domain}` })}</div>
</div>
<form method="post" action="${pub.base}/domains/${d.domain}/verify" class="inline">${csrfField(ctx)}<button type="submit">Verify ${d.domain}</button></form></li>`;
    };
    const body = html`${notice(req, { claimed: 'Domain claimed. Publish the record or the file, then press Verify.', verified: 'Verified. Pages on this domain now show their record.' })}
<h2>Domains</h2>
<p class="lede">Your pages can be registered, and their record shown, only on domains you have proved you control. A verified domain covers its subdomains.</p>
${domains.length === 0 ? html`<p class="muted">No domains claimed yet.</p>` : html`<ul class="plain">${domains.map(card)}</ul>`}
<h3>Claim a domain</h3>
<form method="post" action="${pub.base}/domains" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'domain', label: 'Domain', value: opts.values?.domain, error: opts.errors?.domain, required: true, hint: 'e.g. example.com' })}
<div><button type="submit">Claim domain</button></div></form>`;
    return sendDashboard(deps, req, reply, pub, 'domains', { title: 'Domains', body }, status);
  };

  app.get('/dashboard/:slug/domains', page, async (req, reply) => domainsPage(req, reply, await publicationOf(deps, req)));

  app.post('/dashboard/:slug/domains', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const form = readForm(deps, req);
    const values = { domain: str(form.domain) };
    if (values.domain === '') return domainsPage(req, reply, pub, { values, errors: { domain: 'is required' } }, 400);
    try {
      await publishers.claimDomain(deps, pub.user.accountId, pub.slug, values.domain.slice(0, 253));
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) < 500) return domainsPage(req, reply, pub, { values, errors: errorsFor(err, 'domain') }, statusOf(err));
      throw err;
    }
    throw new Redirect(`${pub.base}/domains?done=claimed`);
  });

  app.post('/dashboard/:slug/domains/:domain/verify', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    readForm(deps, req);
    const domain = (req.params as { domain: string }).domain;
    try {
      await publishers.verifyDomain(deps, pub.user.accountId, pub.slug, domain);
    } catch (err) {
      // Not verified yet: the page again, with what the check found beside that domain.
      if (err instanceof DomainError && statusOf(err) === 400) return domainsPage(req, reply, pub, { failed: { domain, error: err } }, 400);
      throw err;
    }
    throw new Redirect(`${pub.base}/domains?done=verified`);
  });

  workPages(app, deps);
  inboxPages(app, deps);
  integrationPages(app, deps);
}
