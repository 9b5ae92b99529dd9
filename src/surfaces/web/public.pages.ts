// The public pages (part 1): home and search, contributor profiles, publishers, expert panels and the
// marketplace of requests. Readable without JavaScript; the same services as the APIs; public fields only.
import { FORMER_CONTRIBUTOR } from '../../domain/accounts/rules.js';
import { SCORE_FORMULA } from '../../domain/reputation/explain.js';
import { interestLine, reportLinks } from './record.pages.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import * as contributors from '../../domain/contributors/contributor.service.js';
import type { Deps } from '../../domain/deps.js';
import * as pages from '../../domain/pages/page.service.js';
import type { StatementView } from '../../domain/panels/panel.service.js';
import * as panels from '../../domain/panels/panel.service.js';
import { changesBetween, type CitedContent, type StatementContent } from '../../domain/panels/rules.js';
import * as publishers from '../../domain/publishers/publisher.service.js';
import { MAX_SEARCH_PAGE, SEARCH_KINDS, type SearchItem, type SearchKind, search } from '../../domain/search/search.service.js';
import type { RequestRow } from '../../domain/requests/request.store.js';
import * as requests from '../../domain/requests/request.service.js';
import { type Authorship, authorConflictReason } from '../../domain/consent/conflicts.js';
import { REQUESTABLE, type WorkKind } from '../../domain/work-kinds.js';
import { DomainError, statusOf } from '../../http/errors.js';
import { profileUrl } from '../urls.js';
import { renderDiff } from './diff.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, type PageContext } from './layout.js';
import { pageContext, sendPage } from './kit.js';
import {
  certaintyLabel,
  date,
  empty,
  externalLink,
  levelBadge,
  organizationLd,
  pageNumber,
  pager,
  percent,
  personLd,
  personLink,
  publisherLink,
  queryOf,
  recordLink,
  role,
  roleLabel,
  trustStat,
} from './views.js';

const PER_PAGE = 20;

const SearchForm = (q = '', opts: { big?: boolean } = {}) => html`<form method="get" action="/search" class="search${opts.big ? ' big' : ''}" role="search">
<label class="sr-only" for="q">Search pages, people, publishers and panels</label>
<input type="search" id="q" name="q" value="${q}" placeholder="A page’s title or URL, a name, a publication, a topic" maxlength="2048">
<button type="submit">Search</button></form>`;

// ---- The marketplace, shared with the contributor panel (/me/requests) ----


/** The formula's words name the API's fields in `backticks` (Markdown, as the JSON carries them): code on a page. */
const codeSpans = (text: string) => text.split('`').map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part));

export interface MarketFilters {
  topic: string;
  kind: WorkKind | '';
}

export function marketFilters(req: FastifyRequest): MarketFilters {
  const q = queryOf(req);
  const kind = (REQUESTABLE as string[]).includes(q.kind ?? '') ? (q.kind as WorkKind) : '';
  return { topic: (q.topic ?? '').trim().slice(0, 100), kind };
}

/** One page of the marketplace, with the pages the viewer is named an author of (their requests are marked, not offered). */
export const loadMarket = (deps: Deps, viewerId: number | null, f: MarketFilters, page: number) =>
  requests.marketplaceFor(deps, viewerId, { topic: f.topic || undefined, kind: f.kind || undefined }, page, PER_PAGE);

/** A card's title at the level its page needs (headings must not skip a level). */
export const cardHeading = (level: 2 | 3, text: string): SafeHtml =>
  level === 2 ? html`<h2 class="card-h">${text}</h2>` : html`<h3 class="card-h">${text}</h3>`;

/** One request as a card; `actions` adds the take/release/submit buttons where the viewer may use them. */
export function requestCard(r: RequestRow, actions: SafeHtml = html``, level: 2 | 3 = 3): SafeHtml {
  return html`<li class="card request">
<p class="who">${role(r.kind)} ${r.topic ? html`<span class="badge">${r.topic}</span>` : ''} <span class="muted">opened ${date(r.created_at)}</span></p>
${cardHeading(level, r.title || r.page_title || r.page_url)}
${r.brief ? html`<p>${r.brief}</p>` : ''}
<p class="meta">On ${recordLink({ id: r.page_id, title: r.page_title, url: r.page_url })} · ${publisherLink({ slug: r.publisher_slug, name: r.publisher_name })} · ${externalLink(r.page_url, 'open the page')}</p>
${actions}</li>`;
}

/**
 * The filters, the list and its pager. Signed-in visitors get a Take button on each request, but on a page they are
 * or were named an author of, or named on by a claim they have not answered, which says why they cannot take it
 * instead (and where to answer the claim).
 */
export function marketplaceSection(
  ctx: PageContext,
  path: string,
  f: MarketFilters,
  page: number,
  result: { rows: RequestRow[]; total: number; authored?: Map<number, Authorship>; declared?: Map<number, string> },
  level: 2 | 3 = 3,
): SafeHtml {
  const authorship = (r: RequestRow) => (ctx.user ? result.authored?.get(r.page_id) : undefined);
  const take = (r: RequestRow) =>
    authorship(r) === 'pending'
      ? html`<p class="actions notice warn">${authorConflictReason(r.kind, 'pending')}. <a href="/me/names">Your claims</a></p>`
      : authorship(r)
      ? html`<p class="actions notice warn">${authorConflictReason(r.kind, authorship(r))}.</p>`
      : ctx.user && result.declared?.has(r.publisher_id)
      ? html`<p class="actions notice warn">You declared an interest in ${result.declared.get(r.publisher_id)!}, so you cannot take its requests. <a href="/me/profile#interests">Your declared interests</a></p>`
      : ctx.user
      ? html`<form method="post" action="/me/requests/${r.id}/take" class="actions">${csrfField(ctx)}<button type="submit" class="small">Take this request<span class="sr-only">: ${r.title || r.page_title}</span></button></form>`
      : html`<p class="actions"><a class="button small secondary" href="/login?next=${encodeURIComponent(path)}">Sign in to take it</a></p>`;
  return html`<form method="get" action="${path}" class="market-filters" aria-label="Filter requests">
<div><label for="f-topic">Topic</label><input type="search" id="f-topic" name="topic" value="${f.topic}" placeholder="health, climate…" maxlength="100"></div>
<div><label for="f-kind">Kind of work</label><select id="f-kind" name="kind"><option value="">Any kind</option>${REQUESTABLE.map(
    (k) => html`<option value="${k}"${f.kind === k ? html` selected` : ''}>${roleLabel(k)}</option>`,
  )}</select></div>
<div><button type="submit" class="secondary">Filter</button></div></form>
<p class="muted" role="status">${result.total} open ${result.total === 1 ? 'request' : 'requests'}${f.topic || f.kind ? ' match these filters' : ''}.</p>
${
  result.rows.length === 0
    ? empty('Nothing open here right now.', f.topic || f.kind ? html`<a href="${path}">Clear the filters</a>.` : undefined)
    : html`<ul class="cards">${result.rows.map((r) => requestCard(r, take(r), level))}</ul>`
}
${pager(path, { topic: f.topic, kind: f.kind }, page, PER_PAGE, result.total)}`;
}

// ---- Panels: what changed between two versions ----

const TRIGGERS: Record<string, string> = {
  new_study: 'A new study is published',
  source_corrected: 'A cited source is corrected',
  alert_extended: 'A public-health alert is extended',
};
const FIELD_LABELS: Record<string, string> = {
  topic: 'Topic',
  question: 'Question',
  answer: 'Answer',
  certainty: 'Certainty',
  vote: 'Vote',
  panel: 'Panel',
  revisit_by: 'Revisit by',
  reopen_triggers: 'Reopened when',
  sources: 'Sources',
};

const voteText = (v: StatementContent['vote']) => `${v.agree} agree, ${v.dissent} dissent`;
const certaintyBadge = (c: string) => html`<span class="badge ${c === 'high' ? 'ok' : c === 'moderate' ? '' : 'warn'}">${certaintyLabel(c)}</span>`;

/** What a list gained (`<ins>`) and lost (`<del>`), items told apart by `key`; null when only its order changed. */
function listChange<T>(before: readonly T[], after: readonly T[], label: (item: T) => string, key: (item: T) => string = label): SafeHtml | null {
  const had = new Set(before.map(key));
  const has = new Set(after.map(key));
  const added = after.filter((x) => !had.has(key(x)));
  const dropped = before.filter((x) => !has.has(key(x)));
  if (added.length + dropped.length === 0) return null;
  return html`${added.map((x) => html`<ins>${label(x)}</ins> `)}${dropped.map((x) => html`<del>${label(x)}</del> `)}`;
}

function panelChanges(was: CitedContent, now: CitedContent): SafeHtml {
  const [previous, next] = [was.content, now.content];
  const changes = changesBetween(was, now);
  const rows = Object.keys(changes).map((field) => {
    let what: SafeHtml;
    if (field === 'question' || field === 'answer') what = html`<div class="diff">${renderDiff(previous[field], next[field])}</div>`;
    else if (field === 'vote') what = html`${voteText(previous.vote)} → ${voteText(next.vote)}`;
    else if (field === 'reopen_triggers') what = listChange(previous.reopen_triggers, next.reopen_triggers, (t) => TRIGGERS[t] ?? t) ?? html``;
    else if (field === 'panel') {
      const label = (p: StatementContent['panel'][number]) => `${p.name} (${p.role}, ${p.vote})`;
      what = listChange(previous.panel, next.panel, label, (p) => `${p.name}|${p.role}|${p.vote}`) ?? html``;
    } else if (field === 'sources') what = listChange(was.sources, now.sources, (u) => u) ?? html`the same pages, in another order`;
    else if (field === 'revisit_by') what = html`${date(previous.revisit_by)} → ${date(next.revisit_by)}`;
    else if (field === 'certainty') what = html`${certaintyLabel(previous.certainty)} → ${certaintyLabel(next.certainty)}`;
    else what = html`${String(previous[field as 'topic'])} → ${String(next[field as 'topic'])}`;
    return html`<dt>${FIELD_LABELS[field] ?? field}</dt><dd>${what}</dd>`;
  });
  return rows.length ? html`<dl class="facts changes">${rows}</dl>` : html`<p class="muted">No content changed.</p>`;
}

function panelContent(c: StatementContent): SafeHtml {
  const abstain = c.panel.filter((p) => p.vote === 'abstain').length;
  return html`<ul class="stats">
<li><strong>${c.vote.agree}</strong> agree</li><li><strong>${c.vote.dissent}</strong> dissent</li>${abstain ? html`<li><strong>${abstain}</strong> abstain</li>` : ''}
<li><strong>${date(c.revisit_by)}</strong> revisit by</li></ul>
<div class="table-wrap"><table><caption class="sr-only">Panellists and their votes</caption><thead><tr><th scope="col">Panellist</th><th scope="col">Role</th><th scope="col">Vote</th></tr></thead><tbody>
${c.panel.map(
  (p) => html`<tr><td>${p.username ? personLink({ username: p.username, name: p.name }) : p.name}</td><td>${p.role}</td><td><span class="badge ${p.vote === 'agree' ? 'ok' : p.vote === 'dissent' ? 'bad' : ''}">${p.vote}</span></td></tr>`,
)}
</tbody></table></div>`;
}

const FLAG_WORDS: Record<string, string> = {
  source_corrected: 'A source it relies on was corrected',
  source_retracted: 'A source it relies on was retracted, withdrawn or removed',
  source_concern: 'Its publisher expressed concern about a source it relies on',
  source_changed: 'The text of a source it relies on changed after this version was issued',
  revisit_due: 'Its revisit date has passed',
};

/** A statement whose evidence moved says so above its answer, with the reason and the link. */
function reviewNotice(v: StatementView): SafeHtml | '' {
  if (v.status !== 'issued' || v.review.length === 0) return '';
  return html`<div class="notice warn" role="note"><p><strong>Flagged for review.</strong> The panel should look at this statement again; its next version will say what it found.</p><ul>${v.review.map(
    (f) => html`<li>${FLAG_WORDS[f.reason] ?? f.reason} (${date(f.flagged_at)})${f.source ? html`: ${externalLink(f.source)}` : ''}${f.link ? html` · <a href="${f.link}">what happened</a>` : ''}</li>`,
  )}</ul></div>`;
}

function panelPage(siteUrl: string, history: StatementView[]): { title: string; description: string; structured: unknown; body: SafeHtml } {
  const current = history.find((v) => v.version === v.current_version) ?? history[history.length - 1]!;
  const c = current.content;
  const previous = history.find((v) => v.version === current.version - 1);
  const earlier = history.filter((v) => v.version < current.version).reverse();
  return {
    title: `Expert panel: ${c.question}`,
    description: c.answer.slice(0, 200),
    structured: {
      '@context': 'https://schema.org',
      '@type': 'CreativeWork',
      name: c.question,
      text: c.answer,
      url: `${siteUrl}/panels/${current.id}`,
      version: current.version,
      keywords: c.topic,
      datePublished: history[0]!.issued_at,
      dateModified: current.issued_at,
      contributor: c.panel.map((p) => (p.username ? personLd(siteUrl, { username: p.username, name: p.name }) : { '@type': 'Person', name: p.name })),
    },
    body: html`<p class="crumbs"><a href="/panels">Expert panels</a> · <a href="/panels?topic=${encodeURIComponent(c.topic)}">${c.topic}</a></p>
<h1>${c.question}</h1>
<p>${certaintyBadge(c.certainty)} <span class="badge">Version ${current.version}</span> <span class="muted">issued ${date(current.issued_at)}</span></p>
${reviewNotice(current)}
<section class="card answer" aria-labelledby="answer-h"><h2 id="answer-h">The panel's answer</h2><p class="text">${c.answer}</p></section>
<h2>Vote and panel</h2>
${panelContent(c)}
<h2>When the panel looks again</h2>
<p>The panel revisits this statement by ${date(c.revisit_by)}${c.reopen_triggers.length ? ', or sooner when:' : '.'}</p>
${c.reopen_triggers.length ? html`<ul>${c.reopen_triggers.map((t) => html`<li>${TRIGGERS[t] ?? t}</li>`)}</ul>` : ''}
${current.sources.length ? html`<h2>Sources the panel relied on</h2><ul>${current.sources.map((u) => html`<li>${externalLink(u)}</li>`)}</ul>` : ''}
${reportLinks(`panel:${current.statement_id}`, [['question', 'the question', true]])}
${previous ? html`<h2>What changed in version ${current.version}</h2>${panelChanges(previous, current)}` : ''}
<h2>Earlier versions</h2>
${
  earlier.length === 0
    ? empty('This is the first version.')
    : earlier.map((v) => {
        const before = history.find((h) => h.version === v.version - 1);
        return html`<details class="card version"><summary>Version ${v.version} <span class="muted">issued ${date(v.issued_at)}, superseded</span></summary>
<h3>Question</h3><p class="text">${v.content.question}</p>
<h3>Answer</h3><p class="text">${v.content.answer}</p>
<p>${certaintyBadge(v.content.certainty)}</p>
${panelContent(v.content)}
<h3>${before ? `What changed from version ${before.version}` : 'The first version'}</h3>
${before ? panelChanges(before, v) : html`<p class="muted">Issued ${date(v.issued_at)}.</p>`}
</details>`;
      })
}`,
  };
}

// ---- Search results ----

const KIND_WORDS: Record<SearchKind, { one: string; plural: string }> = {
  page: { one: 'Page', plural: 'Pages' },
  contributor: { one: 'Contributor', plural: 'People' },
  publisher: { one: 'Publisher', plural: 'Publishers' },
  panel: { one: 'Expert panel', plural: 'Panels' },
};

/** One result: its kind, its title linked to its page here, and what tells it apart (URL, username, topic). */
function searchResult(i: SearchItem): SafeHtml {
  const badge = html`<span class="badge">${KIND_WORDS[i.kind].one}</span>`;
  switch (i.kind) {
    case 'page':
      return html`<li class="card"><p class="who">${badge} ${i.topic ? html`<span class="muted">${i.topic}</span>` : ''}</p>
<h2 class="h3">${recordLink({ id: i.id, title: i.title, url: i.url })}</h2>
<p class="meta wrap">${i.url} · ${publisherLink(i.publisher)}</p></li>`;
    case 'contributor':
      return html`<li class="card"><p class="who">${badge} ${levelBadge(i.level as Parameters<typeof levelBadge>[0])}</p>
<h2 class="h3">${personLink({ username: i.username, name: i.name })}</h2>
<p class="meta">@${i.username} · trust ${percent(i.trust_score)}</p></li>`;
    case 'publisher':
      return html`<li class="card"><p class="who">${badge}</p><h2 class="h3">${publisherLink(i)}</h2><p class="meta">${i.slug}</p></li>`;
    case 'panel':
      return html`<li class="card"><p class="who">${badge} <span class="muted">${i.topic} · version ${i.version}</span></p>
<h2 class="h3"><a href="/panels/${encodeURIComponent(i.slug)}">${i.question}</a></h2></li>`;
  }
}

// ---- Routes ----

export function publicPages(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const site = deps.config.siteUrl;
  const page = (req: FastifyRequest, reply: FastifyReply, opts: Parameters<typeof sendPage>[3], status = 200) => sendPage(deps, req, reply, opts, status);

  app.get('/', { config: { html: true } }, async (req, reply) => {
    const [recent, top, statements, market] = await Promise.all([
      contributors.recentWork(deps, 6),
      contributors.searchContributors(deps, { order: 'trust' }, 1, 6),
      panels.listStatements(deps, { page: 1, perPage: 3 }),
      requests.marketplace(deps, {}, 1, 3),
    ]);
    const done = (req.query as Record<string, unknown>).done;
    const loggedOut = done === 'logged-out';
    return page(req, reply, {
      title: 'Who worked on this page, with the evidence',
      description: 'Credence shows who wrote, reviewed, fact-checked and corrected a web page, and the evidence behind each change.',
      structured: { '@context': 'https://schema.org', '@type': 'WebSite', name: 'Credence', url: `${site}/` },
      body: html`${loggedOut ? html`<p class="notice" role="status">You are signed out.</p>` : ''}${
        done === 'erased' ? html`<p class="notice" role="status">Your account is deleted. Everything that named you is gone; accepted work stays, naming a former contributor.</p>` : ''
      }
<section class="hero">
<h1>Who wrote, checked and corrected this page?</h1>
<p class="lede">Credence keeps a public record of the people behind a web page: its authors, reviewers, fact-checkers and the corrections they made, each with the evidence a publisher accepted.</p>
${SearchForm('', { big: true })}
</section>
<ol class="grid how">
<li class="card"><h2>Publishers ask</h2><p>A publication verifies its domain, registers its pages and asks for a review, a fact-check or a correction.</p></li>
<li class="card"><h2>Specialists answer</h2><p>Contributors take a request and submit the change with their reason and sources.</p><p><a href="/requests">Browse ${market.total} open ${market.total === 1 ? 'request' : 'requests'}</a></p></li>
<li class="card"><h2>Readers see the proof</h2><p>Accepted work joins the page's trust record, shown on the article itself and here, with every change's evidence.</p></li>
</ol>
<div class="grid two">
<section aria-labelledby="recent-h"><h2 id="recent-h">Recently accepted work</h2>
${
  recent.length === 0
    ? empty('No accepted work yet.')
    : html`<ul class="list">${recent.map(
        (w) => html`<li>${role(w.role)} ${personLink(w)} on ${recordLink({ id: w.page_id, title: w.page_title, url: w.page_url })} <span class="muted">· ${date(w.accepted_at)} · <a href="/proofs/${w.id}">proof<span class="sr-only"> of the ${roleLabel(w.role).toLowerCase()} by ${w.name}</span></a></span></li>`,
      )}</ul>`
}</section>
<section aria-labelledby="top-h"><h2 id="top-h">Contributors</h2>
${
  top.items.length === 0
    ? empty('Nobody has contributed yet.', html`<a href="/signup">Be the first</a>.`)
    : html`<ul class="list">${top.items.map(
        (i) => html`<li>${personLink(i.account)} ${levelBadge(i.account.level)} <span class="muted">${i.account.accepted_count === 0 ? 'no accepted work yet' : `trust ${percent(i.account.trust_score)} · ${i.account.accepted_count} accepted`}</span></li>`,
      )}</ul>`
}</section></div>
${
  statements.items.length
    ? html`<section aria-labelledby="panels-h"><h2 id="panels-h">Expert panels</h2><div class="grid">${statements.items.map(
        (s) => html`<article class="card"><h3><a href="/panels/${s.id}">${s.content.question}</a></h3><p>${certaintyBadge(s.content.certainty)} <span class="muted">version ${s.version} · ${date(s.issued_at)}</span></p></article>`,
      )}</div><p><a href="/panels">All panel statements</a></p></section>`
    : ''
}`,
    });
  });

  app.get('/search', { config: { html: true } }, async (req, reply) => {
    const query = queryOf(req);
    const q = (query.q ?? '').trim().slice(0, 2048);
    if (!q) {
      return page(req, reply, { title: 'Search', noindex: true, body: html`<h1>Search</h1>${SearchForm()}` });
    }
    const kind = (SEARCH_KINDS as readonly string[]).includes(query.type ?? '') ? (query.type as SearchKind) : undefined;
    const n = Math.min(pageNumber(req), MAX_SEARCH_PAGE);
    // A URL (with or without its scheme) is also looked up as a page: its record, or that none is on record.
    const asUrl = /^https?:\/\//i.test(q) ? q : /^[^\s/@]+\.[a-z]{2,}(?:[/?#:]|$)/i.test(q) ? `https://${q}` : null;
    const [lookup, found] = await Promise.all([
      asUrl ? pages.lookupByUrl(deps, asUrl).catch((err) => (err instanceof DomainError && statusOf(err) === 400 ? null : Promise.reject(err))) : null,
      search(deps, q.slice(0, 200), { kinds: kind ? [kind] : undefined, page: n, perPage: PER_PAGE }),
    ]);
    const pageResult = lookup
      ? lookup.record
        ? html`<ul class="cards"><li class="card"><h3>${recordLink({ id: lookup.record.page.id, title: lookup.record.page.title, url: lookup.record.page.url })}</h3>
<p class="meta wrap">${lookup.record.page.url} · ${publisherLink({ slug: lookup.record.page.publisher_slug, name: lookup.record.page.publisher_name })} · ${lookup.record.contributions.length} accepted ${lookup.record.contributions.length === 1 ? 'contribution' : 'contributions'}</p></li></ul>`
        : empty(`No page is on record at ${lookup.url.lookupKey}.`)
      : null;
    const all = SEARCH_KINDS.reduce((sum, k) => sum + found.counts[k], 0);
    const filterLink = (k: SearchKind | undefined, label: string, count: number) => {
      const params = new URLSearchParams({ q });
      if (k) params.set('type', k);
      return html`<a href="/search?${params.toString()}"${k === kind ? html` aria-current="page"` : ''}>${label} <span class="muted">${count}</span></a>`;
    };
    const said = found.total === 0 ? 'Nothing matched.' : `${found.total} ${found.total === 1 ? 'result' : 'results'}${kind ? ` among ${KIND_WORDS[kind].plural.toLowerCase()}` : ''}.`;
    return page(req, reply, {
      title: `Search: ${q.slice(0, 100)}`,
      noindex: true,
      body: html`<h1>Search</h1>${SearchForm(q)}
<p class="muted" role="status">${said}</p>
${pageResult ? html`<h2>Page at this address</h2>${pageResult}` : ''}
${
  all > 0
    ? html`<nav class="filters" aria-label="Kinds of result">${filterLink(undefined, 'All', all)}${SEARCH_KINDS.filter((k) => found.counts[k] > 0 || k === kind).map((k) =>
        filterLink(k, KIND_WORDS[k].plural, found.counts[k]),
      )}</nav>`
    : ''
}
${
  found.items.length === 0
    ? found.total > 0
      ? empty('No more results.', html`<a href="/search?${new URLSearchParams({ q }).toString()}">Back to the first page</a>.`)
      : empty('No page, person, publisher or panel matches every word.', html`Try fewer words, or the start of a word.`)
    : html`<ol class="cards results">${found.items.map((i) => searchResult(i))}</ol>`
}
${pager('/search', { q, type: kind }, n, PER_PAGE, Math.min(found.total, MAX_SEARCH_PAGE * PER_PAGE))}`,
    });
  });

  app.get(
    '/contributors/:username',
    { config: { html: true }, schema: { params: Type.Object({ username: Type.String({ maxLength: 100 }) }) } },
    async (req, reply) => {
      // Where the records' "a former contributor" links: what it means, not a profile.
      if (req.params.username === FORMER_CONTRIBUTOR.username) {
        return page(req, reply, {
          title: FORMER_CONTRIBUTOR.name,
          description: 'Work by people who have left Credence.',
          body: html`<h1>${FORMER_CONTRIBUTOR.name}</h1>
<p>This work was done by someone who has since deleted their Credence account. Their name and everything else about them were erased; the work itself stays part of the page's history, as a correction stays a correction.</p>
<p>Its entry in the transparency log still proves it was published when it was; the log keeps a salted commitment to who did it, and the key that opened it was deleted with the account.</p>`,
        });
      }
      const { account: a, topics, work, interests } = await contributors.getProfile(deps, req.params.username);
      const name = a.name || a.username;
      return page(req, reply, {
        title: `${name} (@${a.username})`,
        description: a.summary || `${name}'s accepted work on Credence, with the evidence.`,
        structured: {
          '@context': 'https://schema.org',
          '@type': 'ProfilePage',
          url: profileUrl(site, a.username),
          mainEntity: {
            ...personLd(site, a),
            ...(a.summary ? { description: a.summary } : {}),
            ...(topics.length ? { knowsAbout: topics.map((t) => t.topic) } : {}),
          },
        },
        body: html`<p class="crumbs">Contributor</p>
<h1>${name} ${levelBadge(a.level)}</h1>
<p class="muted">@${a.username} · joined ${date(a.created_at)}</p>
${a.summary ? html`<p class="lede">${a.summary}</p>` : ''}
<ul class="stats">
${trustStat(a)}
<li><strong>${a.contribution_score}</strong> contribution score</li>
<li><strong>${a.accepted_count}</strong> accepted</li>
</ul>
<p class="hint">Trust is the share of decided work that was accepted, counted cautiously while there is little of it; the contribution score weighs each accepted role: authorship 10, fact-check 8, review 6, correction 5, edit 4, source 3. <a href="/contributors/${encodeURIComponent(a.username)}/scores">How these numbers are made, work by work</a>.</p>
<h2>Topic authority</h2>
${
  topics.length === 0
    ? empty('No topics yet.')
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Topic</th><th scope="col">Authority</th><th scope="col">Accepted</th></tr></thead><tbody>
${topics.map(
  (t) => html`<tr><td><a href="/requests?topic=${encodeURIComponent(t.topic)}">${t.topic}</a></td><td><span class="bar" aria-hidden="true"><span style="width:${Math.round(t.authority * 100)}%"></span></span> ${percent(t.authority)}</td><td>${t.accepted}</td></tr>`,
)}</tbody></table></div>`
}
<h2>Declared interests</h2>
${
  interests.length === 0
    ? empty('No interests declared.')
    : html`<ul class="list">${interests.map((i) => html`<li>${interestLine(i)}</li>`)}</ul>`
}
<h2>Accepted work</h2>
${
  work.length === 0
    ? empty('No accepted work yet.')
    : html`<ol class="work">${work.map(
        (w) => html`<li class="card"><p class="who">${role(w.role)} ${recordLink({ id: w.page_id, title: w.page_title, url: w.page_url })}</p>
${w.summary ? html`<p>${w.summary}</p>` : ''}
${w.role === 'correction' && w.change_from !== null && w.change_to !== null ? html`<p class="diff">${renderDiff(w.change_from, w.change_to)}</p>` : ''}
<p class="meta">${publisherLink({ slug: w.publisher_slug, name: w.publisher_name })} · accepted ${date(w.accepted_at)} · <a href="/proofs/${w.id}">proof<span class="sr-only"> of the work on ${w.page_title}</span></a></p></li>`,
      )}</ol>`
}
${reportLinks(`profile:${a.id}`, [
  ['name', 'the name', Boolean(a.name)],
  ['summary', 'the summary', Boolean(a.summary)],
])}`,
      });
    },
  );

  // Scores that explain themselves: every accepted work with its place, weight and date, and the sums.
  app.get(
    '/contributors/:username/scores',
    { config: { html: true }, schema: { params: Type.Object({ username: Type.String({ maxLength: 100 }) }) } },
    async (req, reply) => {
      const e = await contributors.explainProfileScores(deps, req.params.username);
      const a = e.account;
      const x = e.explanation;
      const name = a.name || a.username;
      const n = x.accepted + x.rejected;
      return page(req, reply, {
        title: `How ${name}'s scores are made`,
        description: `Every accepted work behind ${name}'s contribution score, trust score and topic authority, with the formula.`,
        body: html`<p class="crumbs"><a href="/contributors/${encodeURIComponent(a.username)}">${name}</a></p>
<h1>How ${name}’s scores are made</h1>
<p class="lede">Every number on the profile, summed from the work below with the formula beside it, so anyone can recompute it. The same figures as JSON: <a href="/v1/contributors/${encodeURIComponent(a.username)}/scores">/v1/contributors/${a.username}/scores</a>.</p>
<h2>Contribution score: ${String(a.contribution_score)}</h2>
<p>The sum of the weights in the last column below: ${x.work.length === 0 ? '0' : x.work.map((w) => String(w.weight)).join(' + ')} = ${String(x.contribution_score)}. Role weights: authorship 10, fact-check 8, review 6, correction 5, edit 4, source 3. ${codeSpans(SCORE_FORMULA.diminishing_returns)}.</p>
<h2>Trust score: ${String(a.trust_score)}</h2>
<p>${String(x.accepted)} accepted (the work below that counts as accepted) and ${String(x.rejected)} rejected (rejected work is not public; only its count is shown): n = ${String(n)}. ${codeSpans(SCORE_FORMULA.trust_score)}.</p>
<h2>Topic authority</h2>
<p>${codeSpans(SCORE_FORMULA.authority)}.</p>
${
  e.topics.length === 0
    ? empty('No topics yet.')
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Topic</th><th scope="col">w</th><th scope="col">Authority</th></tr></thead><tbody>${e.topics.map((t) => {
        const sum = x.topics.find((s) => s.topic === t.topic);
        return html`<tr><td>${t.topic}</td><td>${String(sum?.weight ?? 0)}</td><td>${String(t.authority)}</td></tr>`;
      })}</tbody></table></div>`
}
<h2>The work</h2>
${
  x.work.length === 0
    ? empty('No accepted work yet.')
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Accepted</th><th scope="col">Work</th><th scope="col">Publication (place)</th><th scope="col">Topic</th><th scope="col">Role weight</th><th scope="col">Counts as accepted</th><th scope="col">Weight</th></tr></thead><tbody>${x.work.map(
        (w) => html`<tr><td>${date(w.accepted_at)}</td><td>${role(w.role)} <a href="/proofs/${w.id}">${w.page.title || w.page.url}</a></td><td>${w.publisher.name} (${String(w.position)})</td><td>${w.page.topic || '—'}</td><td>${String(w.role_weight)}</td><td>${String(w.accepted)}</td><td>${String(w.weight)}</td></tr>`,
      )}</tbody></table></div>`
}`,
      });
    },
  );

  app.get(
    '/publishers/:slug',
    { config: { html: true }, schema: { params: Type.Object({ slug: Type.String({ maxLength: 100 }) }) } },
    async (req, reply) => {
      const p = await publishers.getPublisher(deps, req.params.slug);
      return page(req, reply, {
        title: p.publisher.name,
        description: `${p.publisher.name} on Credence: ${p.pages} pages on record and the people who worked on them.`,
        structured: { '@context': 'https://schema.org', ...organizationLd(site, p.publisher, p.domains) },
        body: html`<p class="crumbs">Publisher</p>
<h1>${p.publisher.name}</h1>
<p>${
          p.domains.length
            ? p.domains.map((d) => html`<span class="badge ok">✓ ${d}</span> `)
            : html`<span class="badge warn">No verified domain</span>`
        } <span class="muted">on Credence since ${date(p.publisher.created_at)}</span></p>
<ul class="stats"><li><strong>${p.pages}</strong> pages on record</li><li><strong>${p.contributors.length}</strong> contributors</li></ul>
<h2>Recent pages</h2>
${
  p.recentPages.length === 0
    ? empty('No pages registered yet.')
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Page</th><th scope="col">Topic</th><th scope="col">Registered</th></tr></thead><tbody>
${p.recentPages.map((r) => html`<tr><td>${recordLink(r)} <a class="muted" href="/report?item=page:${r.id}:title">Report<span class="sr-only"> the title “${r.title || r.url}”</span></a></td><td>${r.topic || '—'}</td><td>${date(r.created_at)}</td></tr>`)}</tbody></table></div>`
}
<h2>Contributors</h2>
${
  p.contributors.length === 0
    ? empty('Nobody has accepted work on these pages yet.')
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Contributor</th><th scope="col">Level</th><th scope="col">Trust</th><th scope="col">Contributions here</th></tr></thead><tbody>
${p.contributors.map((c) => html`<tr><td>${personLink(c)}</td><td>${levelBadge(c.level)}</td><td>${percent(c.trust_score)}</td><td>${Number(c.contributions)}</td></tr>`)}</tbody></table></div>`
}`,
      });
    },
  );

  app.get('/panels', { config: { html: true } }, async (req, reply) => {
    const topic = (queryOf(req).topic ?? '').trim().slice(0, 50);
    const n = pageNumber(req);
    const { total, items } = await panels.listStatements(deps, { topic: topic || undefined, page: n, perPage: PER_PAGE });
    return page(req, reply, {
      title: topic ? `Expert panels on ${topic}` : 'Expert panels',
      description: 'Versioned statements of expert panels: the answer, the certainty, the vote and what changed.',
      body: html`<h1>Expert panels${topic ? html` <span class="muted">on ${topic}</span>` : ''}</h1>
<p class="lede">Panels of specialists answer contested questions. Every statement is versioned: each revision shows what changed and why the panel looked again.</p>
${topic ? html`<p><a href="/panels">All topics</a></p>` : ''}
${
  items.length === 0
    ? empty('No statements yet.')
    : html`<ul class="cards">${items.map(
        (s) => html`<li class="card"><h2 class="h3"><a href="/panels/${s.id}">${s.content.question}</a></h2>
<p>${certaintyBadge(s.content.certainty)} <a class="badge" href="/panels?topic=${encodeURIComponent(s.content.topic)}">${s.content.topic}</a> <span class="muted">version ${s.version} · issued ${date(s.issued_at)} · ${voteText(s.content.vote)}</span></p></li>`,
      )}</ul>`
}
${pager('/panels', { topic }, n, PER_PAGE, total)}`,
    });
  });

  app.get(
    '/panels/:id',
    { config: { html: true }, schema: { params: Type.Object({ id: Type.String({ maxLength: 100 }) }) } },
    async (req, reply) => page(req, reply, panelPage(site, await panels.getStatementHistory(deps, req.params.id))),
  );

  app.get('/requests', { config: { html: true } }, async (req, reply) => {
    const f = marketFilters(req);
    const n = pageNumber(req);
    const ctx = pageContext(deps, req, reply);
    const result = await loadMarket(deps, ctx.user?.accountId ?? null, f, n);
    return page(req, reply, {
      title: f.topic ? `Open requests on ${f.topic}` : 'Open requests',
      description: 'Publishers ask for reviews, fact-checks, edits, corrections and sources. Take one and submit your evidence.',
      body: html`<h1>Open requests</h1>
<p class="lede">Publishers ask specialists for reviews, fact-checks, edits, corrections and sources on their pages. Take a request, then submit the change with your reason and sources.</p>
${marketplaceSection(ctx, '/requests', f, n, result, 2)}`,
    });
  });
}
