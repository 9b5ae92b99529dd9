// The contributor panel at /me (part 4): the marketplace with take and release, a submission form with
// errors next to its fields, one's own submissions by status with withdraw, the public profile, and API keys.
// Every form posts to /me/..., checks CSRF first, and answers with a 303 back to its page and `?done=<key>`;
// invalid input re-renders the form with status 400. Input is checked with the API's own TypeBox schemas.
import fs from 'node:fs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import * as accounts from '../../domain/accounts/account.service.js';
import * as apiKeys from '../../domain/api-keys/api-key.service.js';
import * as consent from '../../domain/consent/consent.service.js';
import * as interests from '../../domain/interests/interest.service.js';
import { selectField } from './dashboard.kit.js';
import { interestLine } from './record.pages.js';
import * as publishers from '../../domain/publishers/publisher.service.js';
import type { Deps } from '../../domain/deps.js';
import type { RequestRow, TakeExpiryRow } from '../../domain/requests/request.store.js';
import * as requests from '../../domain/requests/request.service.js';
import type { SubmissionRow } from '../../domain/submissions/submission.store.js';
import * as submissions from '../../domain/submissions/submission.service.js';
import * as webhooks from '../../domain/webhooks/webhook.service.js';
import { SUBMITTABLE_ROLES } from '../../domain/work-kinds.js';
import { DomainError, type ErrorDetail, statusOf } from '../../http/errors.js';
import { IdParam } from '../../http/schemas.js';
import { itemValidator } from '../../http/validation.js';
import { ApiKeyBody, ProfileBody } from '../integration-v1/account.routes.js';
import { EMAIL_CHANGE_MESSAGE, EmailChangeBody, PasswordBody } from '../integration-v1/auth.routes.js';
import * as mail from '../../domain/mail/mail.service.js';
import { NOTICE_KINDS } from '../../domain/mail/mail.kinds.js';
import { NOTICE_LABELS } from './mail.pages.js';
import { SubmissionItem } from '../integration-v1/submissions.routes.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, type PageContext } from './layout.js';
import { eraseOwnAccount } from '../../domain/privacy/erasure.service.js';
import { exportAccount } from '../../domain/privacy/export.service.js';
import { confirmAction, type FieldErrors, field, notice, pageContext, readForm, Redirect, requireUser, sendPage, str } from './kit.js';
import { cardHeading, loadMarket, marketFilters, marketplaceSection, requestCard } from './public.pages.js';
import { setFlash, takeFlash } from './flash.js';
import { endWebSession, type WebUser } from './session.js';
import { VERDICT_LABELS, VERDICTS } from '../../domain/submissions/verdicts.js';
import { date, empty, pageNumber, pager, percent, queryOf, recordLink, role, roleLabel } from './views.js';
import { SUBMISSION_STATUSES } from '../../domain/vocabulary.js';

const ME_SCRIPT = fs.readFileSync(new URL('../../../public/me.js', import.meta.url), 'utf8');

const validSubmission = itemValidator<Type.Static<typeof SubmissionItem>>(SubmissionItem);
const validProfile = itemValidator<{ name?: string; summary?: string; topics?: string[] }>(ProfileBody);
const validPassword = itemValidator<{ current_password: string; new_password: string }>(PasswordBody);
const validKey = itemValidator<{ name: string; expires_in_days?: number; publisher?: string | null }>(ApiKeyBody);

const STATUSES = SUBMISSION_STATUSES;
type Status = (typeof STATUSES)[number];
const STATUS_TONE: Record<string, string> = { pending: 'warn', accepted: 'ok', rejected: 'bad', withdrawn: '' };
const statusBadge = (s: string) => html`<span class="badge ${STATUS_TONE[s] ?? ''}">${s}</span>`;

const TABS = [
  ['/me', 'Overview'],
  ['/me/requests', 'Requests'],
  ['/me/submit', 'Submit work'],
  ['/me/submissions', 'My submissions'],
  ['/me/names', 'Named as author'],
  ['/me/profile', 'Profile'],
  ['/me/keys', 'API keys'],
  ['/me/security', 'Password and sessions'],
  ['/me/mail', 'Email and notices'],
] as const;

const tabs = (ctx: PageContext) =>
  html`<nav class="tabs" aria-label="Your work">${TABS.map(([href, label]) => html`<a href="${href}"${ctx.path === href ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>`;

const errorNotice = (message: string | undefined) => (message ? html`<p class="notice error" role="alert">${message}</p>` : html``);

/** A rule's words (http/validation.ts ruleWords), said the way a form says it: a sentence beside the field. */
function humane(message: string): string {
  if (message === 'must not be empty' || message === 'is required') return 'Required';
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/**
 * An API error's details as messages keyed by the form's field names (`evidence.sources.2` → `sources`, saying
 * which line). `rename` maps API field names the form calls something else.
 */
function formErrors(details: ErrorDetail[] | undefined, rename: Record<string, string> = {}): FieldErrors {
  const out: FieldErrors = {};
  for (const d of details ?? []) {
    const path = d.field.replace(/^evidence\./, '').split('.');
    const name = rename[path[0]!] ?? path[0]!;
    const index = path[1] !== undefined && /^\d+$/.test(path[1]) ? Number(path[1]) : null;
    const message = index !== null && (name === 'sources' || name === 'topics') ? `Line ${index + 1}: ${d.message}` : humane(d.message);
    if (!(name in out)) out[name] = message;
  }
  return out;
}

/** Errors on fields the form does not show (a request id, say) are said above the form. */
function generalError(errors: FieldErrors, shown: string[]): string | undefined {
  const rest = Object.entries(errors).filter(([k]) => !shown.includes(k));
  return rest.length ? rest.map(([k, m]) => `${k}: ${m}`).join('. ') : undefined;
}

/** A take's deadline: it lasts REQUEST_TAKE_HOURS without submitted work. */
const heldUntil = (deps: Deps, r: RequestRow) =>
  r.taken_at ? html`<p class="muted small">Yours until ${date(requests.takeExpiresAt(deps, r.taken_at))} unless you submit work on it; then it opens again.</p>` : '';

function takenList(deps: Deps, ctx: PageContext, taken: RequestRow[]): SafeHtml {
  if (taken.length === 0) return empty('You hold no requests.', html`<a href="/me/requests#market">Take one from the marketplace</a>.`);
  return html`<ul class="cards">${taken.map((r) =>
    requestCard(
      r,
      html`${heldUntil(deps, r)}<div class="actions"><a class="button small" href="/me/submit?request=${r.id}">Submit work<span class="sr-only"> on ${r.title || r.page_title}</span></a>
<form method="post" action="/me/requests/${r.id}/release" class="inline">${csrfField(ctx)}<button type="submit" class="small secondary">Release<span class="sr-only"> ${r.title || r.page_title}</span></button></form></div>`,
    ),
  )}</ul>`;
}

/** The specialist is told of takes that ran out: which, when, and that the request is open again. */
function expiredTakes(deps: Deps, rows: TakeExpiryRow[]): SafeHtml {
  if (rows.length === 0) return html``;
  return html`<section class="card" aria-labelledby="expired-h"><h2 id="expired-h">Takes that ran out</h2>
<p class="muted">A request you hold without submitted work opens again after ${deps.config.requestTakeHours} hours.</p>
<ul class="plain list">${rows.map(
    (x) => html`<li>Request ${x.request_id}, “${x.title || x.page_title}” (${x.publisher_name}): taken ${date(x.taken_at)}, opened again ${date(x.expired_at)}.${
      x.status === 'open' ? html` <a href="/me/requests#market">Take it again</a> if you still mean to do it.` : ''
    }</li>`,
  )}</ul></section>`;
}

function submissionCard(ctx: PageContext, s: SubmissionRow, level: 2 | 3 = 3): SafeHtml {
  return html`<li class="card">
<p class="who">${statusBadge(s.status)} ${role(s.kind)} <span class="muted">submitted ${date(s.created_at)}${s.decided_at ? html`, ${s.status} ${date(s.decided_at)}` : ''}</span></p>
${cardHeading(level, s.summary)}
<p class="meta">On ${recordLink({ id: s.page_id, title: s.page_title, url: s.page_url })} · ${s.publisher_name}${s.request_id !== null ? ` · request ${s.request_id}` : ''}</p>
${s.decision_note ? html`<p><strong>Note from the publisher:</strong> ${s.decision_note}</p>` : ''}
${
  s.status === 'pending'
    ? html`<form method="post" action="/me/submissions/${s.id}/withdraw" class="actions">${csrfField(ctx)}<button type="submit" class="small danger">Withdraw<span class="sr-only"> “${s.summary}”</span></button></form>`
    : ''
}</li>`;
}

export function mePages(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const page = { config: { html: true } };
  app.get('/assets/me.js', { config: { hidden: true, unlimited: true } }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(ME_SCRIPT),
  );
  const withId = { config: { html: true }, schema: { params: IdParam } };

  /** Form posts check CSRF before anything else; then they need someone signed in. */
  const formUser = (req: FastifyRequest): { form: Record<string, string | string[]>; user: WebUser } => {
    const form = readForm(deps, req);
    if (!req.webUser) throw new Redirect('/login?next=/me');
    return { form, user: req.webUser };
  };

  /** `tab`: the section to mark current when a form post re-renders a page under another path. */
  const frame = (req: FastifyRequest, reply: FastifyReply, title: string, body: (ctx: PageContext) => SafeHtml, status = 200, tab?: string) => {
    const ctx = pageContext(deps, req, reply);
    return sendPage(deps, req, reply, { title, noindex: true, body: html`${tabs({ ...ctx, path: tab ?? ctx.path })}${body(ctx)}` }, status);
  };

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
    ? html`<section class="card" aria-labelledby="claims-h"><h2 id="claims-h">Named as an author</h2><p>${claims.length === 1 ? 'A publication names' : `${claims.length} times, publications name`} you as an author. Nothing is shown in public until you confirm. <a href="/me/names">Answer on Your name</a>.</p></section>`
    : ''
}
<p class="muted">Your public profile: <a href="/contributors/${encodeURIComponent(account.username)}">/contributors/${account.username}</a></p>
<ul class="stats">
<li><strong>${account.level}</strong> level</li>
<li><strong>${percent(account.trust_score)}</strong> trust score</li>
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

  // ---- The marketplace: take and release ----

  const requestsPage = async (req: FastifyRequest, reply: FastifyReply, user: WebUser, error?: string, status = 200) => {
    const f = marketFilters(req);
    const n = pageNumber(req);
    const [taken, market, expired] = await Promise.all([requests.listTakenRequests(deps, user.accountId), loadMarket(deps, user.accountId, f, n), requests.myExpiredTakes(deps, user.accountId)]);
    return frame(
      req,
      reply,
      'Requests',
      (ctx) => html`${notice(req, { taken: 'You took the request. Submit your work when it is ready.', released: 'You released the request; it is open again.' })}${errorNotice(error)}
<h1>Requests</h1>
<h2>Yours</h2>
${takenList(deps, ctx, taken)}
${expiredTakes(deps, expired)}
<h2 id="market">Open in the marketplace</h2>
${marketplaceSection(ctx, '/me/requests', f, n, market)}`,
      status,
    );
  };

  app.get('/me/requests', page, async (req, reply) => requestsPage(req, reply, requireUser(req)));

  for (const [action, run, done] of [
    ['take', requests.takeRequest, 'taken'],
    ['release', requests.releaseRequest, 'released'],
  ] as const) {
    app.post(`/me/requests/:id/${action}`, withId, async (req, reply) => {
      const { user } = formUser(req);
      try {
        await run(deps, user.accountId, req.params.id);
      } catch (err) {
        // Someone else took it first, or work on it is pending: say so on the page, nothing changed.
        if (err instanceof DomainError && statusOf(err) < 500 && statusOf(err) !== 404) return requestsPage(req, reply, user, err.message, statusOf(err));
        throw err;
      }
      return reply.redirect(`/me/requests?done=${done}`, 303);
    });
  }

  // ---- Submitting work ----

  interface SubmitValues {
    request: string;
    url: string;
    role: string;
    summary: string;
    before: string;
    after: string;
    reason: string;
    sources: string;
    quote: string;
    claim_reviewed: string;
    verdict: string;
  }
  const blank: SubmitValues = { request: '', url: '', role: '', summary: '', before: '', after: '', reason: '', sources: '', quote: '', claim_reviewed: '', verdict: '' };

  const submitPage = async (req: FastifyRequest, reply: FastifyReply, user: WebUser, values: SubmitValues, errors: FieldErrors = {}, status = 200) => {
    const requestId = /^[1-9][0-9]{0,9}$/.test(values.request) ? Number(values.request) : null;
    const request = requestId !== null && requestId <= 2_147_483_647 ? await requests.getRequest(deps, requestId) : null;
    const mine = request !== null && request.status === 'taken' && request.taken_by === user.accountId;
    const extra = ['quote', 'claim_reviewed', 'verdict'];
    const shown = mine ? ['summary', 'before', 'after', 'reason', 'sources', ...extra] : ['url', 'role', 'summary', 'before', 'after', 'reason', 'sources', ...extra];
    return frame(
      req,
      reply,
      'Submit work',
      (ctx) => {
        const target = mine
          ? html`<input type="hidden" name="request_id" value="${request.id}"><ul class="cards">${requestCard(request, html``, 2)}</ul>`
          : html`${field({ name: 'url', label: 'Page URL', type: 'url', value: values.url, error: errors.url, required: true, hint: 'A page a publisher has registered' })}
<div><label for="f-role">Kind of work</label>
<select id="f-role" name="role" required${errors.role ? html` aria-invalid="true" aria-describedby="f-role-error"` : ''}><option value="">Choose…</option>${SUBMITTABLE_ROLES.map(
              (k) => html`<option value="${k}"${values.role === k ? html` selected` : ''}>${roleLabel(k)}</option>`,
            )}</select>${errors.role ? html`<p class="field-error" id="f-role-error">${errors.role}</p>` : ''}</div>`;
        const unavailable =
          request && !mine
            ? request.status === 'open'
              ? html`<div class="notice warn">Take request ${request.id} before you submit work on it.
<form method="post" action="/me/requests/${request.id}/take" class="inline">${csrfField(ctx)}<button type="submit" class="small">Take it</button></form></div>`
              : html`<p class="notice warn">Request ${request.id} is ${request.status === 'taken' ? 'taken by someone else' : request.status}; you can still submit unasked work on the page below.</p>`
            : '';
        return html`<h1>Submit work</h1>
<p class="lede">Propose a change to a page with the evidence for it. The publisher decides; accepted work joins the page's public record with this evidence.</p>
${unavailable}${errorNotice(generalError(errors, shown))}
${Object.keys(errors).length ? html`<p class="notice error" role="alert">Please correct the ${Object.keys(errors).length === 1 ? 'field' : 'fields'} marked below.</p>` : ''}
<form method="post" action="/me/submissions" class="stack wide" novalidate>${csrfField(ctx)}
${target}
${field({ name: 'summary', label: 'Summary', value: values.summary, error: errors.summary, required: true, hint: 'One line: what your work changes (at most 300 characters)' })}
${field({ name: 'before', label: 'Before', textarea: true, value: values.before, error: errors.before, hint: 'The text as it is now (needed for a correction)' })}
${field({ name: 'after', label: 'After', textarea: true, value: values.after, error: errors.after, hint: 'The text as it should read' })}
${field({ name: 'reason', label: 'Reason', textarea: true, value: values.reason, error: errors.reason, required: true, hint: 'Why the change is right' })}
${field({ name: 'sources', label: 'Sources', textarea: true, value: values.sources, error: errors.sources, hint: 'One http(s) link per line, at most 20' })}
${field({ name: 'quote', label: 'Quote from the page (optional)', textarea: true, value: values.quote, error: errors.quote, hint: 'The passage your work is about, word for word; annotation tools highlight it' })}
<fieldset><legend>Fact checks (optional)</legend>
${field({ name: 'claim_reviewed', label: 'Claim checked', value: values.claim_reviewed, error: errors.claim_reviewed, hint: 'The claim as the page makes it; give a verdict with it' })}
<div><label for="f-verdict">Verdict</label>
<select id="f-verdict" name="verdict"${errors.verdict ? html` aria-invalid="true" aria-describedby="f-verdict-error"` : ''}><option value="">None</option>${VERDICTS.map(
          (v) => html`<option value="${v}"${values.verdict === v ? html` selected` : ''}>${VERDICT_LABELS[v]}</option>`,
        )}</select>${errors.verdict ? html`<p class="field-error" id="f-verdict-error">${errors.verdict}</p>` : ''}</div></fieldset>
<div><button type="submit">Submit for review</button></div></form>`;
      },
      status,
      '/me/submit',
    );
  };

  app.get('/me/submit', page, async (req, reply) => {
    const user = requireUser(req);
    return submitPage(req, reply, user, { ...blank, request: queryOf(req).request ?? '' });
  });

  app.post('/me/submissions', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const values: SubmitValues = {
      request: str(form.request_id),
      url: str(form.url),
      role: str(form.role),
      summary: str(form.summary),
      // Evidence keeps its inner line breaks; only the ends are trimmed.
      before: str(form.before),
      after: str(form.after),
      reason: str(form.reason),
      sources: str(form.sources),
      quote: str(form.quote),
      claim_reviewed: str(form.claim_reviewed),
      verdict: str(form.verdict),
    };
    const sources = values.sources
      .split(/\r?\n/)
      .map((s) => s.trim())
      .filter(Boolean);
    const evidence: Record<string, unknown> = { reason: values.reason, sources };
    if (values.before) evidence.before = values.before;
    if (values.after) evidence.after = values.after;
    const item: Record<string, unknown> = { summary: values.summary, evidence };
    if (values.quote) item.quote = { exact: values.quote };
    if (values.claim_reviewed) item.claim_reviewed = values.claim_reviewed;
    if (values.verdict) item.verdict = values.verdict;
    if (values.request) item.request_id = /^[0-9]{1,10}$/.test(values.request) ? Number(values.request) : values.request;
    else {
      if (values.url) item.url = values.url;
      if (values.role) item.role = values.role;
    }
    // Without a request the page and the kind are needed; say so with the schema's findings, all at once.
    const missing: FieldErrors = values.request ? {} : { ...(values.url ? {} : { url: 'Required' }), ...(values.role ? {} : { role: 'Required' }) };
    const checked = validSubmission(item);
    if (!checked.ok || Object.keys(missing).length > 0) {
      const errors = { ...missing, ...(checked.ok ? {} : formErrors(checked.error.details, { request_id: 'request' })) };
      return submitPage(req, reply, user, values, errors, 400);
    }
    const [result] = await submissions.submitWork(deps, user.accountId, [{ index: 0, ok: true, value: checked.value }]);
    const error = result?.error;
    if (error) {
      if (statusOf(error) >= 500) throw error;
      // A page nobody registered is the URL's problem; other refusals (a request someone else holds) are general.
      const errors =
        statusOf(error) === 404 && !values.request ? { url: 'No registered page has this address; only pages a publisher registered take work' } : formErrors(error.details, { request_id: 'request' });
      if (Object.keys(errors).length === 0) errors.request = error.message;
      return submitPage(req, reply, user, values, errors, statusOf(error));
    }
    return reply.redirect('/me/submissions?done=submitted', 303);
  });

  // ---- My submissions ----

  const submissionsPage = async (req: FastifyRequest, reply: FastifyReply, user: WebUser, error?: string, status = 200) => {
    const wanted = queryOf(req).status;
    const filter = (STATUSES as readonly string[]).includes(wanted ?? '') ? (wanted as Status) : undefined;
    const n = pageNumber(req);
    const { rows, total } = await submissions.listOwnSubmissions(deps, user.accountId, filter, n, 20);
    return frame(
      req,
      reply,
      'My submissions',
      (ctx) => html`${notice(req, { submitted: 'Your work is submitted. The publisher will decide; you can withdraw it while it is pending.', withdrawn: 'You withdrew the submission.' })}${errorNotice(error)}
<h1>My submissions</h1>
<nav class="filters" aria-label="By status">${[undefined, ...STATUSES].map(
        (s) => html`<a href="/me/submissions${s ? `?status=${s}` : ''}"${s === filter ? html` aria-current="page"` : ''}>${s ? s.charAt(0).toUpperCase() + s.slice(1) : 'All'}</a>`,
      )}</nav>
<p class="muted" role="status">${[String(total), filter, total === 1 ? 'submission' : 'submissions'].filter(Boolean).join(' ')}.</p>
${rows.length === 0 ? empty('Nothing here.', html`<a href="/me/submit">Submit work</a>.`) : html`<ul class="cards">${rows.map((s) => submissionCard(ctx, s, 2))}</ul>`}
${pager('/me/submissions', { status: filter }, n, 20, total)}`,
      status,
    );
  };

  app.get('/me/submissions', page, async (req, reply) => submissionsPage(req, reply, requireUser(req)));

  app.post('/me/submissions/:id/withdraw', withId, async (req, reply) => {
    const { user } = formUser(req);
    try {
      // Owned: another contributor's submission is a 404, as on the API.
      await submissions.withdrawSubmission(deps, user.accountId, req.params.id);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 409) return submissionsPage(req, reply, user, err.message, 409);
      throw err;
    }
    return reply.redirect('/me/submissions?done=withdrawn', 303);
  });

  // ---- Profile ----

  const profilePage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    user: WebUser,
    values?: Record<string, string>,
    errors: FieldErrors = {},
    status = 200,
    interest: { values: Record<string, string>; errors: FieldErrors } = { values: {}, errors: {} },
  ) => {
    const { account } = await accounts.getOwnAccount(deps, user.accountId);
    const declared = await interests.listOwnInterests(deps, user.accountId);
    const iv = interest.values;
    const ie = interest.errors;
    const v = values ?? { name: account.name, summary: account.summary, topics: (JSON.parse(account.topics) as string[]).join(', ') };
    return frame(
      req,
      reply,
      'Profile',
      (ctx) => html`${notice(req, { saved: 'Your profile is saved.' })}
<h1>Profile</h1>
<p class="lede">What everyone sees on <a href="/contributors/${encodeURIComponent(account.username)}">your public profile</a>. Your email (${account.email}) is never shown to anyone.</p>
<form method="post" action="/me/profile" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'name', label: 'Name', value: v.name, error: errors.name, required: true, autocomplete: 'name' })}
${field({ name: 'summary', label: 'Summary', textarea: true, value: v.summary, error: errors.summary, hint: 'A line or two about your expertise (at most 500 characters)' })}
${field({ name: 'topics', label: 'Topics', value: v.topics, error: errors.topics, hint: 'Separated by commas, e.g. health, climate (at most 20)' })}
<div><button type="submit">Save profile</button></div></form>
<h2 id="interests">Declared interests</h2>
<p class="lede">Anything that might sway your work: who employs or funds you, what you own, a personal tie. They are public on your profile and on the proofs of related work, and publishers see them before deciding. While you declare an interest in a publication you cannot take its requests or submit work on its pages.</p>
${notice(req, { declared: 'Your interest is declared.', ended: 'The declaration is ended; it stays on the proofs of work accepted while it held.' })}
${
  declared.length === 0
    ? empty('You have declared no interests.')
    : html`<ul class="work">${declared.map(
        (i) => html`<li class="card"><p>${interestLine(i)}</p><form method="post" action="/me/interests/${String(i.id)}/end">${csrfField(ctx)}<button type="submit" class="secondary">End this declaration<span class="sr-only"> (${i.name})</span></button></form></li>`,
      )}</ul>`
}
<form method="post" action="/me/interests" class="stack" novalidate>${csrfField(ctx)}
${selectField({ name: 'subject', label: 'In', value: iv.subject, error: ie.subject, options: [{ value: 'organisation', label: 'An organisation' }, { value: 'publication', label: 'A publication on Credence (its slug)' }, { value: 'topic', label: 'A topic' }] })}
${field({ name: 'name', label: 'Name', value: iv.name ?? '', error: ie.name, hint: 'The organisation’s name, the publication’s slug, or the topic' })}
${selectField({ name: 'kind', label: 'Kind', value: iv.kind, error: ie.kind, options: interests.INTEREST_KINDS.map((k) => ({ value: k, label: k.charAt(0).toUpperCase() + k.slice(1) })) })}
${field({ name: 'note', label: 'Note', value: iv.note ?? '', error: ie.note, hint: 'Optional: a role, a period, an amount (at most 500 characters)' })}
<div><button type="submit">Declare interest</button></div></form>`,
      status,
    );
  };

  app.post('/me/interests', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const values = { subject: str(form.subject), name: str(form.name), kind: str(form.kind), note: str(form.note) };
    try {
      await interests.declareInterest(deps, user.accountId, { ...values, note: values.note || undefined });
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) < 500) {
        return profilePage(req, reply, user, undefined, {}, statusOf(err), { values, errors: err.details?.length ? formErrors(err.details) : { name: err.message } });
      }
      throw err;
    }
    return reply.redirect('/me/profile?done=declared#interests', 303);
  });

  app.post('/me/interests/:id/end', withId, async (req, reply) => {
    const { user } = formUser(req);
    await interests.endInterest(deps, user.accountId, (req.params as { id: number }).id);
    return reply.redirect('/me/profile?done=ended#interests', 303);
  });

  app.get('/me/profile', page, async (req, reply) => profilePage(req, reply, requireUser(req)));

  app.post('/me/profile', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const values = { name: str(form.name), summary: str(form.summary), topics: str(form.topics) };
    const topics = values.topics
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const checked = validProfile({ name: values.name, summary: values.summary, topics });
    if (!checked.ok) return profilePage(req, reply, user, values, formErrors(checked.error.details), 400);
    try {
      await accounts.updateOwnProfile(deps, user.accountId, checked.value);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 400) return profilePage(req, reply, user, values, formErrors(err.details), 400);
      throw err;
    }
    return reply.redirect('/me/profile?done=saved', 303);
  });

  // ---- Your name: claims to answer, public work to take one's name back from, standing answers ----

  /** `hook`: a webhook of one's own just made (its secret, shown this once), or the form's value and error. */
  const namesPage = async (req: FastifyRequest, reply: FastifyReply, hook: { secret?: string; url?: string; error?: string } = {}, status = 200) => {
    const user = requireUser(req);
    const [claims, work, preferences, memberships, hooks] = await Promise.all([
      consent.listMyClaims(deps, user.accountId, 'pending'),
      consent.listMyContributions(deps, user.accountId),
      consent.listMyPreferences(deps, user.accountId),
      consent.listMyPublications(deps, user.accountId),
      webhooks.listWebhooks(deps, user.accountId, 1, 100),
    ]);
    const own = hooks.items.filter((w) => w.row.format === 'contributor');
    const answered = new Map(preferences.map((p) => [p.slug, p.preference]));
    const form = (ctx: PageContext, action: string, label: SafeHtml | string, cls = 'small') =>
      html`<form method="post" action="${action}" class="inline">${csrfField(ctx)}<button type="submit" class="${cls}">${label}</button></form>`;
    return frame(req, reply, 'Your name', (ctx) => html`${notice(req, {
      confirmed: 'Confirmed: the page now names you as its author.',
      declined: 'Declined: nothing was shown, and that publication cannot name you on that page again.',
      withdrawn: 'Your name is off that work: the record, the embed, your profile and your scores no longer count it.',
      saved: 'Saved.',
      'hook-deleted': 'The webhook is deleted.',
    })}
<h1>Your name</h1>
<p class="lede">Nothing is said about you in public until you agree, and you can take your name back from any work at any time.</p>
<h2>Waiting for your answer</h2>
${
  claims.length === 0
    ? empty('No publication is waiting for you.')
    : html`<ul class="cards">${claims.map(
        (c) => html`<li class="card"><p class="who"><strong>${c.publisher_name}</strong> names you as the author of</p>
<p>${recordLink({ id: c.page_id, title: c.page_title, url: c.page_url })} <span class="muted">${date(c.created_at)}</span></p>
<p class="actions">${form(ctx, `/me/claims/${c.id}/confirm`, html`Confirm<span class="sr-only"> authorship of “${c.page_title}”</span>`)}
${form(ctx, `/me/claims/${c.id}/decline`, html`Decline<span class="sr-only"> authorship of “${c.page_title}”</span>`, 'small secondary')}
${answered.get(c.publisher_slug) === 'refuse' ? '' : confirmAction({ action: `/me/claim-preferences/${encodeURIComponent(c.publisher_slug)}/refuse`, csrf: csrfField(ctx), label: html`Refuse all from ${c.publisher_name}`, consequence: `Every pending and future naming by ${c.publisher_name} is refused: your name appears on none of its pages until you change this under standing answers.`, confirm: `Refuse all from ${c.publisher_name}` })}</p></li>`,
      )}</ul>`
}
<h2>Your public work</h2>
${
  work.length === 0
    ? empty('Nothing public names you yet.')
    : html`<ul class="cards">${work.map(
        (w) => html`<li class="card"><p class="who">${role(w.role)} <span class="muted">${w.publisher_name}, ${date(w.accepted_at)}</span></p>
<p>${recordLink({ id: w.page_id, title: w.page_title, url: w.page_url })}</p>
${form(ctx, `/me/contributions/${w.id}/withdraw`, html`Take my name off<span class="sr-only"> “${w.page_title}”</span>`, 'small danger')}</li>`,
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
${form(ctx, `/me/webhooks/${w.row.id}/delete`, html`Delete<span class="sr-only"> the webhook ${w.row.url}</span>`, 'small danger')}</li>`,
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

  app.post('/me/webhooks', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const url = str(form.url);
    if (url === '') return namesPage(req, reply, { url, error: humane('is required') }, 400);
    try {
      const { secret } = await webhooks.registerWebhook(deps, user.accountId, { url, format: 'contributor' });
      // The secret goes into this page only: never a URL, a cookie or a log.
      setFlash(req, reply, user.token, { path: '/me/names', name: url, secret });
      return reply.redirect('/me/names#new-hook-h', 303);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) < 500) return namesPage(req, reply, { url, error: humane(err.details?.[0]?.message ?? err.message) }, statusOf(err));
      throw err;
    }
  });

  app.post('/me/webhooks/:id/delete', withId, async (req, reply) => {
    const { user } = formUser(req);
    await webhooks.deleteWebhook(deps, user.accountId, req.params.id);
    return reply.redirect('/me/names?done=hook-deleted#webhooks', 303);
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

  // ---- Password and sessions ----

  const securityPage = (req: FastifyRequest, reply: FastifyReply, errors: FieldErrors = {}, status = 200) =>
    frame(
      req,
      reply,
      'Password and sessions',
      (ctx) => html`${notice(req, {
        changed: 'Your password is changed. Every other session has ended.',
        'changed-keys': 'Your password is changed. Every other session has ended, and every API key of your account is revoked.',
      })}
<h1>Password and sessions</h1>
<h2>Change your password</h2>
<p>Every other place you are logged in is logged out; this one stays.</p>
<form method="post" action="/me/security/password" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'current_password', label: 'Current password', type: 'password', error: errors.current_password, required: true, autocomplete: 'current-password' })}
${field({ name: 'new_password', label: 'New password', type: 'password', error: errors.new_password, required: true, autocomplete: 'new-password', hint: 'At least 10 characters' })}
${revokeKeysBox('pw')}
<div><button type="submit">Change password</button></div></form>
<h2>Log out everywhere</h2>
<p>Ends every session of your account, on every device, this one included. API keys keep working unless you tick the box.</p>
<form method="post" action="/me/security/logout-everywhere" class="stack">${csrfField(ctx)}${revokeKeysBox('all')}<div><button type="submit" class="danger">Log out everywhere</button></div></form>
<h2>Your data</h2>
<p>One JSON file with everything Credence holds about your account: profile, e-mail, memberships, submissions with their notes and decisions, claims, keys and webhooks (never their secrets), and your sign-in history.</p>
<p><a class="button" href="/me/export" download>Download my data</a></p>
<h2 id="delete">Delete your account</h2>
<p>This cannot be undone. Your e-mail, name, username, summary and topics are erased, with your sessions, API keys and webhooks; pending submissions are withdrawn and requests you took go back to the market. Work that was accepted stays in the pages' history, naming “a former contributor”. Your username is never given to anyone else. If you are the only owner of a publication, make someone else an owner first.</p>
<form method="post" action="/me/security/delete" class="stack">${csrfField(ctx)}
${field({ name: 'confirm_username', label: 'Type your username to confirm', error: errors.confirm_username, required: true, autocomplete: 'off', hint: `Your username is ${ctx.user?.username ?? ''}` })}
${field({ name: 'password', label: 'Your password', type: 'password', error: errors.password, required: true, autocomplete: 'current-password' })}
<div><button type="submit" class="danger">Delete my account for good</button></div></form>`,
      status,
    );

  // Unticked by default: a CMS's key should not stop because its owner changed a password.
  const revokeKeysBox = (id: string) =>
    html`<div><label class="check"><input type="checkbox" name="revoke_api_keys" value="true" aria-describedby="${id}-keys-hint"> Also revoke every API key of my account</label>
<p class="hint" id="${id}-keys-hint">For an account someone else may have used: their keys stop at once. Integrations using your keys stop too; make new keys for them.</p></div>`;

  app.get('/me/security', page, async (req, reply) => securityPage(req, reply));

  app.post('/me/security/password', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const checked = validPassword({ current_password: str(form.current_password), new_password: str(form.new_password) });
    if (!checked.ok) return securityPage(req, reply, formErrors(checked.error.details), 400);
    const revokeKeys = str(form.revoke_api_keys) === 'true';
    try {
      await accounts.changePassword(deps, user.accountId, user.sessionId, { ...checked.value, revoke_api_keys: revokeKeys });
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 400) return securityPage(req, reply, formErrors(err.details), 400);
      throw err;
    }
    return reply.redirect(`/me/security?done=${revokeKeys ? 'changed-keys' : 'changed'}`, 303);
  });

  app.post('/me/security/logout-everywhere', page, async (req, reply) => {
    const { form, user } = formUser(req);
    await accounts.logoutEverywhere(deps, user.accountId, { revokeApiKeys: str(form.revoke_api_keys) === 'true' });
    endWebSession(req, reply);
    return reply.redirect('/?done=logged-out', 303);
  });

  // ---- Leaving ----

  app.get('/me/export', page, async (req, reply) => {
    const user = requireUser(req);
    const data = await exportAccount(deps, user.accountId);
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="credence-${data.account.username}.json"`)
      .send(JSON.stringify(data, null, 2));
  });

  app.post('/me/security/delete', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const password = str(form.password);
    // As GitHub asks: the account's name typed out, so a deletion is never a slip of the wrong tab.
    if (str(form.confirm_username) !== user.username) {
      return securityPage(req, reply, { confirm_username: `Type your username, ${user.username}, exactly`, ...(password ? {} : { password: 'Enter your password to confirm' }) }, 400);
    }
    if (!password) return securityPage(req, reply, { password: 'Enter your password to confirm' }, 400);
    try {
      await eraseOwnAccount(deps, user.accountId, password, req.ip);
    } catch (err) {
      if (err instanceof DomainError && (statusOf(err) === 400 || statusOf(err) === 409 || statusOf(err) === 429)) {
        return securityPage(req, reply, { password: humane(err.message) }, statusOf(err));
      }
      throw err;
    }
    endWebSession(req, reply);
    return reply.redirect('/?done=erased', 303);
  });

  // ---- Email and notices ----

  const validEmailChange = itemValidator<{ new_email: string; current_password: string }>(EmailChangeBody);

  const mailPage = async (req: FastifyRequest, reply: FastifyReply, user: WebUser, errors: FieldErrors = {}, status = 200) => {
    const [{ account }, settings] = await Promise.all([accounts.getOwnAccount(deps, user.accountId), mail.noticeSettings(deps, user.accountId)]);
    return frame(
      req,
      reply,
      'Email and notices',
      (ctx) => html`${notice(req, {
        sent: 'A new link is on its way to your address.',
        moving: EMAIL_CHANGE_MESSAGE,
        saved: 'Your notice settings are saved.',
      })}
<h1>Email and notices</h1>
<p>Your address: <strong>${account.email}</strong> (never shown to anyone). ${account.email_confirmed_at ? 'It is confirmed.' : 'It is not confirmed yet.'}</p>
${
  account.email_confirmed_at
    ? ''
    : html`<form method="post" action="/me/mail/confirmation" class="inline">${csrfField(ctx)}<button type="submit">Send a new confirmation link</button></form>`
}
<h2>Change your address</h2>
<p>We mail a link to the new address; your address changes when it is used, and the old one is told.</p>
<form method="post" action="/me/mail/address" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'new_email', label: 'New address', type: 'email', error: errors.new_email, required: true, autocomplete: 'email' })}
${field({ name: 'current_password', label: 'Current password', type: 'password', error: errors.current_password, required: true, autocomplete: 'current-password' })}
<div><button type="submit">Change address</button></div></form>
<h2 id="notices">Notices by mail</h2>
<p>Mail about your account itself (confirming an address, resetting a password) always goes.</p>
<form method="post" action="/me/mail/notices" class="stack">${csrfField(ctx)}
<fieldset><legend>Mail me when</legend>${settings.map(
        (s) => html`<div><label class="check"><input type="checkbox" name="on" value="${s.kind}"${s.enabled ? html` checked` : ''}> ${NOTICE_LABELS[s.kind] ?? s.kind}</label></div>`,
      )}</fieldset>
<div><button type="submit">Save</button></div></form>`,
      status,
    );
  };

  app.get('/me/mail', page, async (req, reply) => mailPage(req, reply, requireUser(req)));

  app.post('/me/mail/confirmation', page, async (req, reply) => {
    const { user } = formUser(req);
    await accounts.resendConfirmation(deps, user.accountId);
    return reply.redirect('/me/mail?done=sent', 303);
  });

  app.post('/me/mail/address', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const checked = validEmailChange({ new_email: str(form.new_email), current_password: str(form.current_password) });
    if (!checked.ok) return mailPage(req, reply, user, formErrors(checked.error.details), 400);
    try {
      await accounts.requestEmailChange(deps, user.accountId, checked.value);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 400) return mailPage(req, reply, user, formErrors(err.details), 400);
      throw err;
    }
    return reply.redirect('/me/mail?done=moving', 303);
  });

  app.post('/me/mail/notices', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const on = new Set(([] as string[]).concat(form.on ?? []));
    await mail.setNoticeSettings(deps, user.accountId, Object.fromEntries(NOTICE_KINDS.map((k) => [k, on.has(k)])));
    return reply.redirect('/me/mail?done=saved', 303);
  });

  // ---- API keys ----

  const keysPage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    user: WebUser,
    opts: { values?: Record<string, string>; errors?: FieldErrors; created?: { name: string; secret: string }; status?: number } = {},
  ) => {
    const keys = await apiKeys.listApiKeys(deps, user.accountId);
    const now = deps.clock.now();
    const v = opts.values ?? { name: '', expires: '', publisher: '' };
    const errors = opts.errors ?? {};
    return frame(
      req,
      reply,
      'API keys',
      (ctx) => html`${notice(req, { revoked: 'The key is revoked. Calls with it now fail.' })}
<h1>API keys</h1>
<p class="lede">A contributor key takes requests, submits and withdraws your work through the <a href="/docs">API</a>. Keys are shown once, when you create them.</p>
${
  opts.created
    ? html`<section class="card created" aria-labelledby="new-key-h"><h2 id="new-key-h">Your new key “${opts.created.name}”</h2>
<p><strong>Copy it now: it will not be shown again.</strong> Anyone with it can act as you.</p>
<div class="copy-row"><label class="sr-only" for="new-key">The new key</label><input id="new-key" class="secret" readonly value="${opts.created.secret}">
<button type="button" class="secondary" data-copy="new-key" hidden>Copy</button></div>
<p class="hint" id="copy-status" role="status"></p></section>
<script src="/assets/me.js" defer></script>`
    : ''
}
<h2>Create a key</h2>
<form method="post" action="/me/keys" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'name', label: 'Name', value: v.name, error: errors.name, required: true, hint: 'Where you will use it, e.g. “my scripts”' })}
<div><label for="f-expires">Expires</label><select id="f-expires" name="expires">${[
        ['', 'Never'],
        ['30', 'In 30 days'],
        ['90', 'In 90 days'],
        ['365', 'In a year'],
      ].map(([value, label]) => html`<option value="${value}"${v.expires === value ? html` selected` : ''}>${label}</option>`)}</select>
${errors.expires ? html`<p class="field-error">${errors.expires}</p>` : ''}</div>
${
  user.publishers.length > 0
    ? html`<div><label for="f-publisher">Acts for</label><select id="f-publisher" name="publisher"${errors.publisher ? html` aria-invalid="true" aria-describedby="f-publisher-error"` : ''}>
<option value="">Me, as a contributor</option>${user.publishers.map((p) => html`<option value="${p.slug}"${v.publisher === p.slug ? html` selected` : ''}>${p.name} (publisher key)</option>`)}</select>
${errors.publisher ? html`<p class="field-error" id="f-publisher-error">${errors.publisher}</p>` : ''}</div>`
    : ''
}
<div><button type="submit">Create key</button></div></form>
<h2>Your keys</h2>
${
  keys.length === 0
    ? empty('No keys yet.')
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Acts for</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${keys.map((k) => {
  const status = apiKeys.keyStatus(k, now);
  return html`<tr><td>${k.name}</td><td><code>${k.prefix}…${k.last4}</code></td><td>${k.publisher_name ?? 'Me (contributor)'}</td><td>${date(k.last_used_at)}</td><td>${k.expires_at ? date(k.expires_at) : 'never'}</td>
<td><span class="badge ${status === 'active' ? 'ok' : status === 'revoked' ? 'bad' : 'warn'}">${status}</span></td>
<td>${status === 'active' ? confirmAction({ action: `/me/keys/${k.id}/revoke`, csrf: csrfField(ctx), label: html`Revoke<span class="sr-only"> ${k.name}</span>`, consequence: `Calls with “${k.name}” fail at once. A revoked key cannot be brought back.`, confirm: `Revoke “${k.name}” for good` }) : ''}</td></tr>`;
})}</tbody></table></div>`
}`,
      opts.status ?? 200,
    );
  };

  app.get('/me/keys', page, async (req, reply) => {
    const user = requireUser(req);
    const flash = takeFlash(req, reply, user.token);
    return keysPage(req, reply, user, flash ? { created: { name: flash.name, secret: flash.secret } } : {});
  });

  app.post('/me/keys', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const values = { name: str(form.name), expires: str(form.expires), publisher: str(form.publisher) };
    const body: Record<string, unknown> = { name: values.name, publisher: values.publisher || null };
    if (values.expires) body.expires_in_days = /^[0-9]{1,4}$/.test(values.expires) ? Number(values.expires) : values.expires;
    const checked = validKey(body);
    const rename = { expires_in_days: 'expires' };
    if (!checked.ok) return keysPage(req, reply, user, { values, errors: formErrors(checked.error.details, rename), status: 400 });
    try {
      const { key, secret } = await apiKeys.createApiKey(deps, user.accountId, checked.value);
      // The secret goes to the page this redirects to, sealed for this session (flash.ts): never a URL or a log.
      setFlash(req, reply, user.token, { path: '/me/keys', name: key.name, secret });
      return reply.redirect('/me/keys#new-key-h', 303);
    } catch (err) {
      // A publication the account is not a member of: 404 from the service, said next to the field.
      if (err instanceof DomainError && statusOf(err) === 404) return keysPage(req, reply, user, { values, errors: { publisher: 'You are not a member of this publication' }, status: 400 });
      // The cap on active keys (API_KEYS_PER_ACCOUNT): said next to the name, with what to do.
      if (err instanceof DomainError && statusOf(err) === 409) return keysPage(req, reply, user, { values, errors: { name: err.message }, status: 409 });
      throw err;
    }
  });

  app.post('/me/keys/:id/revoke', withId, async (req, reply) => {
    const { user } = formUser(req);
    await apiKeys.revokeApiKey(deps, user.accountId, req.params.id);
    return reply.redirect('/me/keys?done=revoked', 303);
  });
}
