// Dashboard sections about the publication's pages: registering them (one, or a pasted list through the batch
// service), each page's record, the requests for work on them, and the embed snippet with a live preview.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ItemResult, splitBatch, summarise } from '../../domain/batch.js';
import { isoNow } from '../../domain/clock.js';
import { formatDay } from '../../domain/dates.js';
import type { Deps } from '../../domain/deps.js';
import * as consent from '../../domain/consent/consent.service.js';
import * as notices from '../../domain/pages/notice.service.js';
import { NOTICE_TYPES } from '../../domain/pages/notices.js';
import { wordsFor } from '../embed/i18n.js';
import * as pages from '../../domain/pages/page.service.js';
import type { PageRecord } from '../../domain/pages/record.js';
import * as requests from '../../domain/requests/request.service.js';
import { API_REQUEST_TYPES, type ApiRequestType, kindFromApiRequestType } from '../../domain/work-kinds.js';
import { AppError, DomainError, statusOf } from '../../http/errors.js';
import { MAX_BATCH, itemValidator } from '../../http/validation.js';
import { LANGS, type Lang } from '../embed/i18n.js';
import { EMBED_CSS_PATH, type EmbedStyle, renderAttribution, STYLES } from '../embed/renderer.js';
import { PageItem } from '../integration-v1/pages.routes.js';
import { RequestItem } from '../integration-v1/requests.routes.js';
import {
  copyable,
  day,
  errorsFor,
  given,
  idParam,
  KIND_LABELS,
  pageNumber,
  pager,
  type Publication,
  publicationOf,
  query,
  selectField,
  sendDashboard,
  stackable,
  statusBadge,
} from './dashboard.kit.js';
import { html, raw, type SafeHtml } from './html.js';
import { confirmAction, type FieldErrors, field, fieldErrorsOf, notice, pageContext, readForm, Redirect, rulesOf, str } from './kit.js';
import { humane } from './me.kit.js';
import { csrfField, type PageContext } from './layout.js';
import { driftOf } from '../linked-data/drift.presenter.js';

// The dashboard speaks English: the notices' words are the embed's English ones.
const NOTICE_WORDS = wordsFor('en');

type PageInput = { url: string; title?: string; topic?: string; authors?: string[]; fetch?: boolean };
const validPage = itemValidator<PageInput>(PageItem);
type RequestInput = { url?: string; article_ref_id?: number; request_type: ApiRequestType; title?: string; brief?: string; topic?: string };
const validRequest = itemValidator<RequestInput>(RequestItem);

const PER_PAGE = 25;
const page = { config: { html: true } };

const REQUEST_TYPE_LABELS: Record<ApiRequestType, string> = {
  reviewer: 'Review',
  fact_checker: 'Fact check',
  editor: 'Edit',
  correction: 'Correction',
  source: 'Sources',
};

const LANG_LABELS: Record<Lang, string> = { en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español' };

/** One line of a pasted list: `url`, or `url | title | topic`. */
function parseLine(line: string): PageInput {
  const [url = '', title = '', topic = ''] = line.split('|').map((s) => s.trim());
  return { url, ...given({ title, topic }) };
}

type Work = PageRecord['contributions'][number];

/** Accepted reviews, fact checks and corrections done on an older version of the page. */
const outdated = (r: PageRecord) => r.contributions.filter((c) => driftOf(c).page_changed_since !== null).length;

function driftCell(c: Work): SafeHtml {
  const d = driftOf(c);
  return html`${d.page_changed_since ? html`<br><span class="badge warn">Page changed ${day(d.page_changed_since)}</span>` : ''}${
    d.correction_missing ? html` <span class="badge bad">Corrected text missing</span>` : ''
  }`;
}

const RE_REVIEW: Record<string, ApiRequestType> = { review: 'reviewer', fact_check: 'fact_checker', correction: 'correction' };

/** One click: a request for the same kind of work on the page as it is now (through the request form's own route). */
function rereview(ctx: PageContext, pub: Publication, p: PageRecord['page'], c: Work): SafeHtml {
  const type = RE_REVIEW[c.role];
  const since = driftOf(c).page_changed_since;
  if (!type || since === null) return html``;
  const kind = KIND_LABELS[c.role] ?? c.role;
  return html`<form method="post" action="${pub.base}/requests" class="inline">${csrfField(ctx)}<input type="hidden" name="article_ref_id" value="${p.id}"><input type="hidden" name="request_type" value="${type}">
<input type="hidden" name="title" value="${`Fresh look after the page changed: ${kind} by ${c.name}`}">
<input type="hidden" name="brief" value="${`The page's text changed on ${formatDay(since)}, after this work (${c.summary}). Check it against the page as it is now.`}">
<button type="submit" class="secondary small">Request a re-review<span class="sr-only"> of the ${kind} by ${c.name}</span></button></form>`;
}

export function workPages(app: FastifyInstance, deps: Deps) {

  // ---------------------------------------------------------------------------------------------------------------
  // Pages: register one, paste a list, see each record.

  interface PagesView {
    values?: Record<string, string>;
    errors?: FieldErrors;
    /** The answer to a pasted list: each line's outcome. */
    batch?: { lines: number[]; inputs: PageInput[]; results: ItemResult[] };
    list?: string;
  }

  const pagesPage = async (req: FastifyRequest, reply: FastifyReply, pub: Publication, view: PagesView = {}, status = 200) => {
    const ctx = pageContext(deps, req, reply);
    const n = pageNumber(req);
    const [{ total, records }, waiting] = await Promise.all([pages.listPages(deps, pub.id, n, PER_PAGE), consent.listPublisherClaims(deps, pub.id, { state: 'pending' })]);
    const v = view.values ?? {};
    const e = view.errors ?? {};
    const results = view.batch
      ? html`<section class="card" aria-labelledby="batch-results" tabindex="-1" id="batch"><h2 id="batch-results" class="card-title">Your list: ${Object.entries(summarise(view.batch.results))
          .filter(([, count]) => count > 0)
          .map(([s, count]) => `${count} ${s}`)
          .join(', ')}</h2>
${stackable(html`<div class="table-wrap"><table><thead><tr><th scope="col">Line</th><th scope="col">URL</th><th scope="col">Result</th></tr></thead><tbody>
${view.batch.results.map((r) => {
  const input = view.batch!.inputs[r.index];
  return html`<tr><td>${view.batch!.lines[r.index]}</td><td class="wrap">${input?.url ?? ''}</td><td>${statusBadge(r.status)}${
    // The field's own sentence ("Must be an http or https URL …"), not the API's "url must be …".
    r.error ? html` ${r.error.details?.[0] ? humane(r.error.details[0].message) : r.error.message}` : r.id ? html` <a href="${pub.base}/pages/${r.id}">see the page</a>` : ''
  }</td></tr>`;
})}
</tbody></table></div>`)}</section>`
      : '';
    const body = html`${notice(req, { created: 'The page is registered.', updated: 'The page is updated.', skipped: 'That page was already registered as given; nothing changed.' })}
${results}
<h2>Pages</h2>
<p class="lede">Register the pages whose record you want to keep. Each must be on one of your <a href="${pub.base}/domains">verified domains</a>; registering a known page again updates its title and topic.</p>
<div class="split">
<section aria-labelledby="register-one"><h3 id="register-one">Register a page</h3>
<form method="post" action="${pub.base}/pages" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'url', label: 'URL', type: 'url', value: v.url, error: e.url, rules: rulesOf(PageItem, 'url'), autocomplete: 'url', hint: 'https://…' })}
${field({ name: 'title', label: 'Title', value: v.title, error: e.title, rules: rulesOf(PageItem, 'title') })}
${field({ name: 'topic', label: 'Topic', value: v.topic, error: e.topic, rules: rulesOf(PageItem, 'topic'), hint: 'e.g. health; specialists find requests by topic' })}
${field({ name: 'authors', label: 'Authors', value: v.authors, error: e.authors, hint: 'Usernames, separated by commas (optional). Each is asked to confirm before the page names them in public' })}
<div><label class="check"><input type="checkbox" name="fetch" value="true"${v.fetch === 'true' ? html` checked` : ''} aria-describedby="f-fetch-hint"> Record the page’s current version</label>
<p class="hint" id="f-fetch-hint">Credence fetches the page once and keeps a fingerprint of its text, so reviews can say when the page changed after them.</p>${e.fetch ? html`<p class="field-error" role="alert">${e.fetch}</p>` : ''}</div>
<div><button type="submit">Register page</button></div></form></section>
<section aria-labelledby="paste-list"><h3 id="paste-list">Paste a list</h3>
<form method="post" action="${pub.base}/pages/batch" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'lines', label: 'Pages, one per line', textarea: true, value: view.list, error: e.lines, required: true, hint: `URL, or URL | title | topic; at most ${MAX_BATCH} lines` })}
<div><button type="submit">Register the list</button></div></form></section>
</div>
${
  waiting.length > 0
    ? html`<section class="card" aria-labelledby="claims-h"><h3 id="claims-h">Authors asked to confirm (${waiting.length})</h3><p class="hint">A person you name is shown as the author only once they confirm it.</p><ul class="plain list">${waiting
        .slice(0, 50)
        .map((c) => html`<li><strong>${c.username}</strong> on <a href="${pub.base}/pages/${c.page_id}">${c.page_title || c.page_url}</a> <span class="badge warn">pending</span></li>`)}</ul></section>`
    : ''
}
<h3>On record (${total})</h3>
${
  records.length === 0
    ? html`<p class="muted">No pages yet.</p>`
    : html`${stackable(html`<div class="table-wrap"><table><thead><tr><th scope="col">Page</th><th scope="col">Topic</th><th scope="col">Status</th><th scope="col">Accepted work</th><th scope="col">Registered</th></tr></thead><tbody>
${records.map(
  (r) => html`<tr><td><a href="${pub.base}/pages/${r.page.id}">${r.page.title || 'Untitled'}</a><br><span class="muted small wrap">${r.page.url}</span></td><td>${r.page.topic || '—'}</td><td>${statusBadge(r.verified ? 'verified' : 'unverified')}</td><td>${r.contributions.length}${outdated(r) > 0 ? html` <span class="badge warn">${outdated(r)} on an older version</span>` : ''}</td><td>${day(r.page.created_at)}</td></tr>`,
)}
</tbody></table></div>`)}${pager(`${pub.base}/pages`, n, PER_PAGE, total)}`
}`;
    return sendDashboard(deps, req, reply, pub, 'pages', { title: 'Pages', body }, status);
  };

  app.get('/dashboard/:slug/pages', page, async (req, reply) => pagesPage(req, reply, await publicationOf(deps, req)));

  app.post('/dashboard/:slug/pages', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const form = readForm(deps, req);
    const values = { url: str(form.url), title: str(form.title), topic: str(form.topic), authors: str(form.authors), fetch: str(form.fetch) };
    const authors = values.authors
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((u) => u.replace(/^@/, '').toLowerCase());
    const checked = validPage({
      ...given({ url: values.url, title: values.title, topic: values.topic }),
      ...(authors.length ? { authors } : {}),
      ...(values.fetch === 'true' ? { fetch: true } : {}),
    });
    if (!checked.ok) return pagesPage(req, reply, pub, { values, errors: fieldErrorsOf(checked.error.details) }, 400);
    const [result] = await pages.registerPages(deps, pub.id, [{ index: 0, ok: true, value: checked.value }]);
    if (result!.error) return pagesPage(req, reply, pub, { values, errors: errorsFor(result!.error, 'url') }, statusOf(result!.error));
    throw new Redirect(`${pub.base}/pages?done=${result!.status}`);
  });

  app.post('/dashboard/:slug/pages/batch', { config: { html: true, body: 'large' } }, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const form = readForm(deps, req);
    const list = typeof form.lines === 'string' ? form.lines : '';
    const lines: number[] = [];
    const inputs: PageInput[] = [];
    list.split(/\r?\n/).forEach((line, i) => {
      if (line.trim() === '') return;
      lines.push(i + 1);
      inputs.push(parseLine(line));
    });
    if (inputs.length === 0) return pagesPage(req, reply, pub, { list, errors: { lines: 'Paste at least one URL' } }, 400);
    if (inputs.length > MAX_BATCH) {
      return pagesPage(req, reply, pub, { list, errors: { lines: `At most ${MAX_BATCH} lines at once; this list has ${inputs.length}` } }, 400);
    }
    const { items } = splitBatch(inputs, validPage);
    const results = await pages.registerPages(deps, pub.id, items);
    return pagesPage(req, reply, pub, { batch: { lines, inputs, results } });
  });

  /** `form.review`: the notice checked and shown as readers will read it, with the one button that publishes it. */
  const pageDetail = async (
    req: FastifyRequest,
    reply: FastifyReply,
    pub: Publication,
    id: number,
    form: { values: Record<string, string>; errors: FieldErrors; review?: boolean } = { values: {}, errors: {} },
    status = 200,
  ) => {
    const record = await ownRecord(deps, pub, id);
    const p = record.page;
    const ctx = pageContext(deps, req, reply);
    const nv = form.values;
    const body = html`<p class="crumbs"><a href="${pub.base}/pages">Pages</a> /</p>
<h2>${p.title || 'Untitled page'} ${statusBadge(record.verified ? 'verified' : 'unverified')}</h2>
<dl class="facts"><dt>URL</dt><dd><a class="wrap" href="${p.url}">${p.url}</a></dd><dt>Topic</dt><dd>${p.topic || '—'}</dd><dt>Registered</dt><dd>${day(p.created_at)}</dd><dt>Page id</dt><dd>${p.id}</dd>
<dt>Version</dt><dd>${p.content_hash === null ? 'Not known: register the page with its text, its hash, or “Record the page’s current version”' : p.content_changed_at ? html`Text last changed ${day(p.content_changed_at)}` : html`Known since ${day(p.content_seen_at ?? p.created_at)}, unchanged`}</dd></dl>
${outdated(record) > 0 ? html`<p class="notice warn" role="note">The page’s text changed after ${outdated(record)} piece${outdated(record) === 1 ? '' : 's'} of accepted work below. Readers see a note on the record and in the embed; ask for a fresh look with one click.</p>` : ''}
${record.verified ? '' : html`<p class="notice error">This page is not under a verified domain of ${pub.name}: its record is not shown on the page. <a href="${pub.base}/domains">Verify the domain</a>.</p>`}
<p class="actions"><a class="button" href="/records/${p.id}">Public record</a><a class="button secondary" href="${pub.base}/requests?for=${p.id}">Ask for work on it</a><a class="button secondary" href="${pub.base}/embed?page=${p.id}">Embed its record</a></p>
<h3>Accepted work (${record.contributions.length})</h3>
${
  record.contributions.length === 0
    ? html`<p class="muted">Nothing accepted yet. Accepted work from your <a href="${pub.base}/inbox">inbox</a> appears here and on the public record.</p>`
    : stackable(html`<div class="table-wrap"><table><thead><tr><th scope="col">Role</th><th scope="col">Contributor</th><th scope="col">What</th><th scope="col">Accepted</th><th scope="col">Proof</th></tr></thead><tbody>
${record.contributions.map(
  (c) => html`<tr><td>${KIND_LABELS[c.role] ?? c.role}</td><td><a href="/contributors/${c.username}">${c.name}</a> <span class="badge">${c.level}</span></td><td>${c.summary}${
    c.change_from !== null && c.change_to !== null ? html`<br><span class="change small"><del>${c.change_from}</del> → <ins>${c.change_to}</ins></span>` : ''
  }${driftCell(c)}</td><td>${day(c.accepted_at)}</td><td><a href="/proofs/${c.id}">Proof<span class="sr-only"> of ${KIND_LABELS[c.role] ?? c.role} by ${c.name}</span></a>${rereview(ctx, pub, p, c)}</td></tr>`,
)}
</tbody></table></div>`)
}
<h3 id="notices">Notices (${record.notices.length})</h3>
${notice(req, { notice: 'The notice is on the public record, the embed and the feed.' })}
<p class="hint">A retraction, an expression of concern, a withdrawal, … as your journal issues them. They are never edited or removed: a reinstatement ends a retraction. Readers of the page see the newest standing first, in every embed.</p>
${
  record.notices.length === 0
    ? html`<p class="muted">No notices. Standing: current.</p>`
    : html`<p>Standing: <strong>${record.standing.replace(/_/g, ' ')}</strong></p><ul>${record.notices.map(
        (n) => html`<li><strong>${NOTICE_WORDS.notices[n.type]}</strong> ${day(`${n.notice_date}T00:00:00.000Z`)}: ${n.reason}${n.notice_url ? html` · <a class="wrap" href="${n.notice_url}">the notice</a>` : ''}</li>`,
      )}</ul>`
}
${
  form.review
    ? html`<section class="card confirm-step" id="notice-review" aria-labelledby="notice-review-h"><h4 id="notice-review-h">Publish this notice?</h4>
<p><strong>${NOTICE_WORDS.notices[nv.type as (typeof NOTICE_TYPES)[number]] ?? nv.type}</strong> ${nv.date ? day(`${nv.date}T00:00:00.000Z`) : 'today'}: ${nv.reason}${nv.url ? html` · <span class="wrap">${nv.url}</span>` : ''}</p>
<p class="notice warn">Once published, a notice is never edited or removed: it stays on the public record, in every embed and in the feed. A mistake can only be answered by another notice.</p>
<form method="post" action="${pub.base}/pages/${p.id}/notices" class="stack">${csrfField(ctx)}
${(['type', 'date', 'reason', 'url'] as const).map((k) => html`<input type="hidden" name="${k}" value="${nv[k] ?? ''}">`)}
<input type="hidden" name="confirmed" value="yes">
<div class="actions"><button type="submit" class="danger">Publish for good</button> <a class="button secondary" href="#f-type">Change it</a></div></form></section>`
    : ''
}
<form method="post" action="${pub.base}/pages/${p.id}/notices" class="stack" novalidate>${csrfField(ctx)}
${selectField({ name: 'type', label: 'Kind of notice', value: nv.type, error: form.errors.type, options: NOTICE_TYPES.map((t) => ({ value: t, label: NOTICE_WORDS.notices[t] })) })}
${field({ name: 'date', label: 'Date of the notice', type: 'date', value: nv.date ?? '', error: form.errors.date, hint: 'Leave empty for today' })}
${field({ name: 'reason', label: 'Reason', textarea: true, value: nv.reason ?? '', error: form.errors.reason, hint: 'What readers will read, at most 2,000 characters' })}
${field({ name: 'url', label: 'The notice on your site', type: 'url', value: nv.url ?? '', error: form.errors.url, hint: 'Optional' })}
<div><button type="submit">Review the notice</button></div></form>`;
    return sendDashboard(deps, req, reply, pub, 'pages', { title: p.title || 'Page', body }, status);
  };

  app.get('/dashboard/:slug/pages/:id', page, async (req, reply) => pageDetail(req, reply, await publicationOf(deps, req), idParam(req, 'id', 'Page')));

  app.post('/dashboard/:slug/pages/:id/notices', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const form = readForm(deps, req);
    const id = idParam(req, 'id', 'Page');
    const values = { type: str(form.type), date: str(form.date), reason: str(form.reason), url: str(form.url) };
    const input = { type: values.type, reason: values.reason, ...(values.date ? { date: values.date } : {}), ...(values.url ? { url: values.url } : {}) };
    try {
      // A notice is never edited or removed: the first post checks it and shows it as readers will read it; only
      // the review's own button (`confirmed`) publishes.
      if (str(form.confirmed) !== 'yes') {
        notices.parseNotice(input, isoNow(deps.clock).slice(0, 10));
        return await pageDetail(req, reply, pub, id, { values, errors: {}, review: true });
      }
      await notices.addNotice(deps, [pub.id], id, input);
    } catch (err) {
      if (!(err instanceof DomainError) || statusOf(err) >= 500 || statusOf(err) === 404) throw err;
      const errors: FieldErrors = err.details?.length ? fieldErrorsOf(err.details) : { type: err.message };
      return pageDetail(req, reply, pub, id, { values, errors }, statusOf(err));
    }
    throw new Redirect(`${pub.base}/pages/${id}?done=notice#notices`);
  });

  // ---------------------------------------------------------------------------------------------------------------
  // Requests: open one, see each one's status, cancel.

  const requestsPage = async (req: FastifyRequest, reply: FastifyReply, pub: Publication, values: Record<string, string> = {}, errors: FieldErrors = {}, status = 200) => {
    const ctx = pageContext(deps, req, reply);
    const n = pageNumber(req);
    const [{ rows, total }, choices, expired] = await Promise.all([
      requests.listPublisherRequests(deps, [pub.id], n, PER_PAGE),
      pages.listPages(deps, pub.id, 1, 100),
      requests.publisherExpiredTakes(deps, pub.id),
    ]);
    // `?for=<page id>` (the page view's "Open a request") starts the form on that page.
    const forId = Number(query(req, 'for'));
    const chosen = values.url ?? choices.records.find((r) => r.page.id === forId)?.page.url ?? '';
    const body = html`${notice(req, { opened: 'The request is open: specialists can take it now.', cancelled: 'The request is cancelled.' })}
<h2>Requests</h2>
<p class="lede">Ask specialists for work on a page. A request is open until someone takes it; their work arrives in your <a href="${pub.base}/inbox">inbox</a>, and accepting it fulfils the request.</p>
<section aria-labelledby="open-request" class="card"><h3 id="open-request" class="card-title">Open a request</h3>
<form method="post" action="${pub.base}/requests" class="stack" novalidate>${csrfField(ctx)}
${field({
  name: 'url',
  label: 'Page',
  type: 'url',
  list: 'your-pages',
  value: chosen,
  error: errors.url ?? errors.article_ref_id,
  hint: 'Its address: start typing to pick one of your pages, or give a new one on a verified domain (it is registered first)',
})}
<datalist id="your-pages">${choices.records.map((r) => html`<option value="${r.page.url}">${r.page.title || r.page.url}</option>`)}</datalist>
${selectField({ name: 'request_type', label: 'Kind of work', value: values.request_type ?? 'reviewer', error: errors.request_type, options: API_REQUEST_TYPES.map((t) => ({ value: t, label: REQUEST_TYPE_LABELS[t] })) })}
${field({ name: 'title', label: 'Title', value: values.title, error: errors.title, rules: rulesOf(RequestItem, 'title'), hint: 'What to look at; the page title if left blank' })}
${field({ name: 'topic', label: 'Topic', value: values.topic, error: errors.topic, hint: 'The page topic if left blank' })}
${field({ name: 'brief', label: 'Brief', textarea: true, value: values.brief, error: errors.brief, rules: rulesOf(RequestItem, 'brief'), hint: 'What you need, and what good evidence looks like' })}
<div><button type="submit">Open request</button></div></form></section>
${
  // The publisher is told of takes that ran out: who held it, and that it is open again.
  expired.length > 0
    ? html`<section class="card" aria-labelledby="expired-takes"><h3 id="expired-takes" class="card-title">Takes that ran out</h3>
<p class="muted">A specialist holds a request for ${deps.config.requestTakeHours} hours without submitted work; then it opens again for anyone.</p>
<ul class="plain list">${expired.map(
        (x) => html`<li>${x.title || html`“${x.page_title}”`}: <a href="/contributors/${x.username}">${x.username}</a> took it ${day(x.taken_at)}; open again since ${day(x.expired_at)}.</li>`,
      )}</ul></section>`
    : ''
}
<h3>All requests (${total})</h3>
${
  rows.length === 0
    ? html`<p class="muted">No requests yet.</p>`
    : html`${stackable(html`<div class="table-wrap"><table><thead><tr><th scope="col">Request</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Taken by</th><th scope="col">Opened</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${rows.map(
  (r) => html`<tr><td>${r.title || r.page_title}<br><a class="muted small" href="${pub.base}/pages/${r.page_id}">${r.page_title || r.page_url}</a></td><td>${KIND_LABELS[r.kind] ?? r.kind}</td><td>${statusBadge(r.status)}</td><td>${
    r.taken_by_username ? html`<a href="/contributors/${r.taken_by_username}">${r.taken_by_username}</a>` : '—'
  }</td><td>${day(r.created_at)}</td><td>${
    r.status === 'open' || r.status === 'taken'
      ? confirmAction({ action: `${pub.base}/requests/${r.id}/cancel`, csrf: csrfField(ctx), label: html`Cancel<span class="sr-only"> request ${r.id}</span>`, consequence: 'The request leaves the marketplace; a specialist who took it is told, and work already submitted stays in your inbox.', confirm: 'Cancel the request', cls: 'small secondary' })
      : ''
  }</td></tr>`,
)}
</tbody></table></div>`)}${pager(`${pub.base}/requests`, n, PER_PAGE, total)}`
}`;
    return sendDashboard(deps, req, reply, pub, 'requests', { title: 'Requests', body }, status);
  };

  app.get('/dashboard/:slug/requests', page, async (req, reply) => requestsPage(req, reply, await publicationOf(deps, req)));

  app.post('/dashboard/:slug/requests', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const form = readForm(deps, req);
    const values = {
      article_ref_id: str(form.article_ref_id),
      url: str(form.url),
      request_type: str(form.request_type),
      title: str(form.title),
      topic: str(form.topic),
      brief: str(form.brief),
    };
    if (values.url === '' && values.article_ref_id === '') return requestsPage(req, reply, pub, values, { url: 'Give the page’s address: one of yours, or a new one' }, 400);
    const { article_ref_id, ...rest } = values;
    const idValue = /^[0-9]{1,10}$/.test(article_ref_id) ? Number(article_ref_id) : article_ref_id;
    const checked = validRequest({ ...given(rest), ...(article_ref_id !== '' ? { article_ref_id: idValue } : {}) });
    if (!checked.ok) return requestsPage(req, reply, pub, values, fieldErrorsOf(checked.error.details), 400);
    const [result] = await requests.openRequests(deps, pub.id, pub.user.accountId, [
      { index: 0, ok: true, value: { ...checked.value, kind: kindFromApiRequestType(checked.value.request_type) } },
    ]);
    if (result!.error) return requestsPage(req, reply, pub, values, errorsFor(result!.error, values.url ? 'url' : 'article_ref_id'), statusOf(result!.error));
    throw new Redirect(`${pub.base}/requests?done=opened`);
  });

  app.post('/dashboard/:slug/requests/:id/cancel', page, async (req) => {
    const pub = await publicationOf(deps, req);
    readForm(deps, req);
    await requests.cancelRequest(deps, [pub.id], idParam(req, 'id', 'Request'));
    throw new Redirect(`${pub.base}/requests?done=cancelled`);
  });

  // ---------------------------------------------------------------------------------------------------------------
  // Embed: pick a page, style and language; the snippet, and the three styles as readers will see them.

  app.get('/dashboard/:slug/embed', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const { records } = await pages.listPages(deps, pub.id, 1, 100);
    const asked = Number(query(req, 'page'));
    let record: PageRecord | undefined = records.find((r) => r.page.id === asked);
    if (!record && Number.isSafeInteger(asked) && asked > 0) record = await ownRecord(deps, pub, asked).catch(() => undefined);
    record ??= records.find((r) => r.verified && r.contributions.length > 0) ?? records[0];
    const style: EmbedStyle = (STYLES as readonly string[]).includes(query(req, 'style')) ? (query(req, 'style') as EmbedStyle) : 'full';
    const lang: Lang = (LANGS as readonly string[]).includes(query(req, 'lang')) ? (query(req, 'lang') as Lang) : 'en';
    const site = deps.config.siteUrl;
    const snippet = record ? `<script async src="${site}/embed.js" data-page="${record.page.url}" data-style="${style}" data-lang="${lang}"></script>` : '';
    const template = `<script async src="${site}/embed.js" data-page="auto" data-style="${style}" data-lang="${lang}"></script>`;
    // The snippets follow the form as it changes (public/dashboard.js), from these addresses; the preview on submit.
    const addresses = JSON.stringify(Object.fromEntries(records.map((r) => [String(r.page.id), r.page.url])));
    const preview = (s: EmbedStyle): SafeHtml => {
      // The renderer escapes every value it writes, so its output is trusted markup.
      const block = record ? renderAttribution({ siteUrl: site, record, style: s, lang, stylesheet: EMBED_CSS_PATH }) : '';
      const name = `${s[0]!.toUpperCase()}${s.slice(1)}`;
      if (!block) return html`<figure class="preview"><figcaption>${name}</figcaption><p class="muted">Nothing to show yet.</p></figure>`;
      if (s !== style) return html`<figure class="preview"><figcaption>${name}</figcaption>${raw(block)}</figure>`;
      // The chosen style comes live from embed.js, as readers' browsers load it; without JavaScript, from the server.
      return html`<figure class="preview chosen"><figcaption>${name} · chosen, live from embed.js</figcaption><script async src="/embed.js" data-page="${record!.page.url}" data-style="${s}" data-lang="${lang}"></script><noscript>${raw(block)}</noscript></figure>`;
    };
    const why = !record
      ? html`<p class="muted">Register a page first.</p>`
      : !record.verified
        ? html`<p class="notice error">This page is not on a verified domain: embeds show nothing for it. <a href="${pub.base}/domains">Verify the domain</a>.</p>`
        : record.contributions.length === 0
          ? html`<p class="notice">This page has no accepted work yet, so the block stays empty (and takes no space) until you accept some.</p>`
          : '';
    const body = html`<h2>Embed the record</h2>
<p class="lede">One script tag shows who worked on a page, with links to the evidence, on your own article. It shows only accepted work, updates itself, and sets no cookies.</p>
<form method="get" action="${pub.base}/embed" class="card embed-form" data-site="${site}" data-pages="${addresses}"><div class="form-row">
${selectField({ name: 'page', label: 'Page', value: record ? String(record.page.id) : '', options: records.map((r) => ({ value: String(r.page.id), label: `${r.page.title || r.page.url}${r.contributions.length ? ` (${r.contributions.length} accepted)` : ''}` })) })}
<fieldset class="choices"><legend>Style</legend>${STYLES.map(
      (s) => html`<label><input type="radio" name="style" value="${s}"${s === style ? html` checked` : ''}> ${s}</label>`,
    )}</fieldset>
${selectField({ name: 'lang', label: 'Language', value: lang, options: LANGS.map((l) => ({ value: l, label: LANG_LABELS[l] })) })}
</div><div><button type="submit">Update the preview</button></div></form>
${why}
${
  record
    ? html`<h3>The snippet for this page</h3>
<p>Paste it where the block should appear on <a class="wrap" id="snippet-page" href="${record.page.url}">${record.page.url}</a>:</p>
${copyable('snippet', snippet, { block: true, label: 'the snippet' })}
<p class="muted">In a template used by every article, <code>data-page="auto"</code> finds the page by its canonical link:</p>
${copyable('template-snippet', template, { block: true, label: 'the template snippet' })}
<h3>Preview</h3>
<p class="muted">As readers will see it, in ${LANG_LABELS[lang]}, in each style.</p>
<div class="previews">${STYLES.map(preview)}</div>
`
    : ''
}`;
    return sendDashboard(deps, req, reply, pub, 'embed', { title: 'Embed', body });
  });
}

/** A page's record, only when the page is this publication's (404 otherwise, as for a page that does not exist). */
async function ownRecord(deps: Deps, pub: Publication, id: number): Promise<PageRecord> {
  const record = await pages.recordById(deps, id);
  if (record.page.publisher_id !== pub.id) throw new AppError(404, 'not_found', 'Page not found');
  return record;
}
