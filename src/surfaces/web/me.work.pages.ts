// The contributor's work at /me: the marketplace with take and release, a submission form with errors next to its
// fields, one's own submissions by status with withdraw, and the public profile with declared interests.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import * as accounts from '../../domain/accounts/account.service.js';
import * as interests from '../../domain/interests/interest.service.js';
import { selectField } from './dashboard.kit.js';
import { interestLine } from './record.pages.js';
import type { Deps } from '../../domain/deps.js';
import type { TakeExpiryRow, TakenRow } from '../../domain/requests/request.store.js';
import * as requests from '../../domain/requests/request.service.js';
import type { SubmissionRow } from '../../domain/submissions/submission.store.js';
import * as submissions from '../../domain/submissions/submission.service.js';
import * as credentials from '../../domain/credentials/credential.service.js';
import { SUBMITTABLE_ROLES } from '../../domain/work-kinds.js';
import { DomainError, statusOf } from '../../http/errors.js';
import { itemValidator } from '../../http/validation.js';
import { ProfileBody } from '../integration-v1/account.routes.js';
import { SubmissionItem } from '../integration-v1/submissions.routes.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, type PageContext } from './layout.js';
import { confirmAction, type FieldErrors, field, notice, requireUser, rulesOf, str } from './kit.js';
import { cardHeading, loadMarket, marketFilters, marketplaceSection, requestCard } from './public.pages.js';
import { type WebUser } from './session.js';
import { VERDICT_LABELS, VERDICTS } from '../../domain/submissions/verdicts.js';
import { date, empty, pageNumber, pager, queryOf, recordLink, role, roleLabel } from './views.js';
import { SUBMISSION_STATUSES } from '../../domain/vocabulary.js';
import { errorNotice, formErrors, formUser as formUserOf, generalError, meFrame, page, withId } from './me.kit.js';

const validSubmission = itemValidator<Type.Static<typeof SubmissionItem>>(SubmissionItem);
/** The evidence's own schema: its rules are the submission form's attributes and hints. */
const EVIDENCE = SubmissionItem.properties.evidence;
const validProfile = itemValidator<{ name?: string; summary?: string; topics?: string[] }>(ProfileBody);

const STATUSES = SUBMISSION_STATUSES;
type Status = (typeof STATUSES)[number];
const STATUS_TONE: Record<string, string> = { pending: 'warn', accepted: 'ok', rejected: 'bad', withdrawn: '' };
const statusBadge = (s: string) => html`<span class="badge ${STATUS_TONE[s] ?? ''}">${s}</span>`;
/**
 * A take's deadline: it lasts REQUEST_TAKE_HOURS without submitted work. Work waiting for the publisher keeps the
 * take however old (expireStaleTakes), so then the page says the work was submitted, not a deadline.
 */
const heldUntil = (deps: Deps, r: TakenRow) => {
  if (r.work_submitted_at) return html`<p class="muted small">You submitted work on it ${date(r.work_submitted_at)}; it stays yours while the publisher decides.</p>`;
  return r.taken_at ? html`<p class="muted small">Submit work on it by ${date(requests.takeExpiresAt(deps, r.taken_at))}, or it opens to others again.</p>` : '';
};

export function takenList(deps: Deps, ctx: PageContext, taken: TakenRow[]): SafeHtml {
  if (taken.length === 0) return empty('You hold no requests.', html`<a href="/me/requests#market">Take one from the marketplace</a>.`);
  return html`<ul class="cards">${taken.map((r) =>
    requestCard(
      r,
      html`${heldUntil(deps, r)}<div class="actions"><a class="button small" href="/me/submit?request=${r.id}">Submit work<span class="sr-only"> on ${r.title || r.page_title}</span></a>
${confirmAction({ action: `/me/requests/${r.id}/release`, csrf: csrfField(ctx), label: html`Release<span class="sr-only"> ${r.title || r.page_title}</span>`, consequence: `The request opens to every specialist again and ${r.publisher_name} sees that you let it go; someone else may take it before you can take it back.`, confirm: 'Release the request', cls: 'small secondary' })}</div>`,
    ),
  )}</ul>`;
}

/** The specialist is told of takes that ran out: which, when, and that the request is open again. */
export function expiredTakes(deps: Deps, rows: TakeExpiryRow[]): SafeHtml {
  if (rows.length === 0) return html``;
  return html`<section class="card" aria-labelledby="expired-h"><h2 id="expired-h">Takes that ran out</h2>
<p class="muted">A request you hold without submitted work opens again after ${deps.config.requestTakeHours} hours.</p>
<ul class="plain list">${rows.map(
    (x) => html`<li>${x.title || html`“${x.page_title}”`} (${x.publisher_name}): taken ${date(x.taken_at)}, opened again ${date(x.expired_at)}.${
      x.status === 'open' ? html` <a href="/me/requests#market">Take it again</a> if you still mean to do it.` : ''
    }</li>`,
  )}</ul></section>`;
}

/**
 * The accepted work's credential as a file, with the holder named as the person chooses: by their profile, or by
 * nothing but a salted hash of their e-mail (docs/credentials.md).
 */
function credentialLinks(s: SubmissionRow, contributionId: number | undefined): SafeHtml {
  if (s.status !== 'accepted' || contributionId === undefined) return html``;
  const href = (holder: string) => `/me/contributions/${contributionId}/credential?holder=${holder}`;
  return html`<p class="meta">Download credential<span class="sr-only"> for “${s.summary}”</span> (Open Badges 3.0, for a wallet or portfolio): <a href="${href('profile')}" download>naming you by your profile</a> · <a href="${href('email_hash')}" download>naming you only by a hash of your email</a></p>`;
}

export function submissionCard(ctx: PageContext, s: SubmissionRow, level: 2 | 3 = 3, contributionId?: number): SafeHtml {
  return html`<li class="card">
<p class="who">${statusBadge(s.status)} ${role(s.kind)} <span class="muted">submitted ${date(s.created_at)}${s.decided_at ? html`, ${s.status} ${date(s.decided_at)}` : ''}</span></p>
${cardHeading(level, s.summary)}
<p class="meta">On ${recordLink({ id: s.page_id, title: s.page_title, url: s.page_url })} · ${s.publisher_name}${s.request_id !== null ? ` · request ${s.request_id}` : ''}</p>
${s.decision_note ? html`<p><strong>Note from the publisher:</strong> ${s.decision_note}</p>` : ''}
${credentialLinks(s, contributionId)}
${
  s.status === 'pending'
    ? html`<div class="actions">${confirmAction({ action: `/me/submissions/${s.id}/withdraw`, csrf: csrfField(ctx), label: html`Withdraw<span class="sr-only"> “${s.summary}”</span>`, consequence: `${s.publisher_name} can no longer decide this work${s.request_id !== null ? `, and request ${s.request_id} opens again for others to take` : ''}. A withdrawn submission cannot be sent again: you would submit it anew.`, confirm: 'Withdraw for good' })}</div>`
    : ''
}</li>`;
}

export function meWorkPages(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const frame = meFrame(deps);
  const formUser = (req: FastifyRequest) => formUserOf(deps, req);

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
    // Work on a request shows only the fields its kind uses: a source request asks for no Before/After and no
    // verdict. Unasked work may be of any kind, so it shows them all.
    const kind = mine ? request.kind : null;
    const changes = kind === null || kind === 'correction' || kind === 'edit';
    const checks = kind === null || kind === 'fact_check';
    const shown = [...(mine ? [] : ['url', 'role']), 'summary', ...(changes ? ['before', 'after'] : []), 'reason', 'sources', 'quote', ...(checks ? ['claim_reviewed', 'verdict'] : [])];
    return frame(
      req,
      reply,
      'Submit work',
      (ctx) => {
        const target = mine
          ? html`<input type="hidden" name="request_id" value="${request.id}"><ul class="cards">${requestCard(request, html``, 2)}</ul>`
          : html`${field({ name: 'url', label: 'Page URL', type: 'url', value: values.url, error: errors.url, required: true, autocomplete: 'url', rules: rulesOf(SubmissionItem, 'url'), hint: 'A page a publisher has registered' })}
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
${field({ name: 'summary', label: 'Summary', value: values.summary, error: errors.summary, rules: rulesOf(SubmissionItem, 'summary'), hint: 'One line: what your work changes' })}
${changes ? html`${field({ name: 'before', label: 'Before', textarea: true, value: values.before, error: errors.before, rules: rulesOf(EVIDENCE, 'before'), hint: 'The text as it is now (needed for a correction)' })}
${field({ name: 'after', label: 'After', textarea: true, value: values.after, error: errors.after, rules: rulesOf(EVIDENCE, 'after'), hint: 'The text as it should read' })}` : ''}
${field({ name: 'reason', label: 'Reason', textarea: true, value: values.reason, error: errors.reason, rules: rulesOf(EVIDENCE, 'reason'), hint: 'Why the change is right' })}
${field({ name: 'sources', label: 'Sources', textarea: true, value: values.sources, error: errors.sources, hint: 'One http(s) link per line, at most 20' })}
${field({ name: 'quote', label: 'Quote from the page (optional)', textarea: true, value: values.quote, error: errors.quote, rules: rulesOf(SubmissionItem.properties.quote, 'exact'), hint: 'The passage your work is about, word for word; annotation tools highlight it' })}
${checks ? html`<fieldset><legend>Fact checks (optional)</legend>
${field({ name: 'claim_reviewed', label: 'Claim checked', value: values.claim_reviewed, error: errors.claim_reviewed, rules: rulesOf(SubmissionItem, 'claim_reviewed'), hint: 'The claim as the page makes it; give a verdict with it' })}
<div><label for="f-verdict">Verdict</label>
<select id="f-verdict" name="verdict"${errors.verdict ? html` aria-invalid="true" aria-describedby="f-verdict-error"` : ''}><option value="">None</option>${VERDICTS.map(
          (v) => html`<option value="${v}"${values.verdict === v ? html` selected` : ''}>${VERDICT_LABELS[v]}</option>`,
        )}</select>${errors.verdict ? html`<p class="field-error" id="f-verdict-error">${errors.verdict}</p>` : ''}</div></fieldset>` : ''}
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
    const contributionOf = await credentials.contributionsOfSubmissions(deps, user.accountId, rows.filter((s) => s.status === 'accepted').map((s) => s.id));
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
${rows.length === 0 ? empty('Nothing here.', html`<a href="/me/submit">Submit work</a>.`) : html`<ul class="cards">${rows.map((s) => submissionCard(ctx, s, 2, contributionOf.get(s.id)))}</ul>`}
${pager('/me/submissions', { status: filter }, n, 20, total)}`,
      status,
    );
  };

  app.get('/me/submissions', page, async (req, reply) => submissionsPage(req, reply, requireUser(req)));

  // The credential as a file of its own, as a wallet takes it (the API answers it inside its envelope).
  app.get(
    '/me/contributions/:id/credential',
    {
      ...withId,
      schema: {
        ...withId.schema,
        querystring: Type.Object({ holder: Type.Optional(Type.Union(credentials.HOLDER_KINDS.map((h) => Type.Literal(h)))), format: Type.Optional(Type.Union([Type.Literal('ldp'), Type.Literal('jwt')])) }),
      },
    },
    async (req, reply) => {
      const user = requireUser(req);
      const format = req.query.format ?? 'ldp';
      const c = await credentials.credentialOf(deps, user.accountId, req.params.id, req.query.holder ?? 'profile', format);
      return reply
        .header('cache-control', 'private, no-store')
        .header('content-disposition', `attachment; filename="credence-contribution-${req.params.id}.${format === 'jwt' ? 'jwt' : 'json'}"`)
        .type(format === 'jwt' ? 'application/vc+jwt' : 'application/vc')
        .send(typeof c === 'string' ? c : JSON.stringify(c, null, 2));
    },
  );

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
${field({ name: 'name', label: 'Name', value: v.name, error: errors.name, required: true, autocomplete: 'name', rules: rulesOf(ProfileBody, 'name') })}
${field({ name: 'summary', label: 'Summary', textarea: true, value: v.summary, error: errors.summary, rules: rulesOf(ProfileBody, 'summary'), hint: 'A line or two about your expertise' })}
${field({ name: 'topics', label: 'Topics', value: v.topics, error: errors.topics, hint: 'Separated by commas, e.g. health, climate (at most 20)' })}
<div><button type="submit">Save profile</button></div></form>
<h2 id="interests">Declared interests</h2>
<p class="lede">Anything that might sway your work: who employs or funds you, what you own, a personal tie. They are public on your profile and on the proofs of related work, and publishers see them before deciding. While you declare an interest in a publication you cannot take its requests or submit work on its pages.</p>
${notice(req, { declared: 'Your interest is declared.', ended: 'The declaration is ended; it stays on the proofs of work accepted while it held.' })}
${
  declared.length === 0
    ? empty('You have declared no interests.')
    : html`<ul class="work">${declared.map(
        (i) => html`<li class="card"><p>${interestLine(i)}</p>${confirmAction({ action: `/me/interests/${String(i.id)}/end`, csrf: csrfField(ctx), label: html`End this declaration<span class="sr-only"> (${i.name})</span>`, consequence: `The declaration ends today. It stays on the proofs of work accepted while it held; an ended declaration cannot be resumed, only declared anew.`, confirm: 'End the declaration', cls: 'secondary' })}</li>`,
      )}</ul>`
}
<form method="post" action="/me/interests" class="stack" novalidate>${csrfField(ctx)}
${selectField({ name: 'subject', label: 'In', value: iv.subject, error: ie.subject, options: [{ value: 'organisation', label: 'An organisation' }, { value: 'publication', label: 'A publication on Credence' }, { value: 'topic', label: 'A topic' }] })}
${field({ name: 'name', label: 'Name', value: iv.name ?? '', error: ie.name, hint: 'The organisation’s name, the topic, or the publication’s short name as in its address (/publishers/short-name)' })}
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
}
