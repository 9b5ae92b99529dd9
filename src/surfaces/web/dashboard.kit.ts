// What the dashboard's page modules share: the publication a page is about (members only; 404 for anyone else),
// the frame with the publication's sections, and small pieces (dates, status badges, copy buttons, pagers).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatDay, formatMoment } from '../../domain/dates.js';
import type { Deps } from '../../domain/deps.js';
import * as publishers from '../../domain/publishers/publisher.service.js';
import * as submissions from '../../domain/submissions/submission.service.js';
import { type DomainError, notFound } from '../../http/errors.js';
import { html, raw, type SafeHtml } from './html.js';
import { type FieldErrors, fieldErrorsOf, requireUser, sendPage } from './kit.js';
import type { WebUser } from './session.js';

export interface Publication {
  user: WebUser;
  id: number;
  slug: string;
  name: string;
  role: 'owner' | 'editor';
  /** `/dashboard/<slug>`: every link and form of the publication starts here. */
  base: string;
}

/** The signed-in member's publication named in the path. Membership is checked by the service (404 otherwise). */
export async function publicationOf(deps: Deps, req: FastifyRequest): Promise<Publication> {
  const user = requireUser(req);
  const slug = (req.params as { slug?: string }).slug ?? '';
  const { publisher, role } = await publishers.requireMember(deps, user.accountId, slug);
  return { user, id: publisher.id, slug: publisher.slug, name: publisher.name, role, base: `/dashboard/${publisher.slug}` };
}

/** A positive integer path parameter; anything else names nothing, so 404. */
export function idParam(req: FastifyRequest, name: string, what: string): number {
  const raw = (req.params as Record<string, string | undefined>)[name] ?? '';
  const id = /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id > 2_147_483_647) throw notFound(what);
  return id;
}

/** `?page=n` for lists, 1 when absent or nonsense. */
export function pageNumber(req: FastifyRequest): number {
  const raw = (req.query as Record<string, unknown> | undefined)?.page;
  const n = typeof raw === 'string' && /^[1-9][0-9]{0,5}$/.test(raw) ? Number(raw) : 1;
  return n;
}

export const query = (req: FastifyRequest, name: string): string => {
  const v = (req.query as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};

export type Section = 'overview' | 'domains' | 'pages' | 'requests' | 'inbox' | 'keys' | 'webhooks' | 'embed';

const SECTIONS: { id: Section; label: string; path: string }[] = [
  { id: 'overview', label: 'Overview', path: '' },
  { id: 'domains', label: 'Domains', path: '/domains' },
  { id: 'pages', label: 'Pages', path: '/pages' },
  { id: 'requests', label: 'Requests', path: '/requests' },
  { id: 'inbox', label: 'Inbox', path: '/inbox' },
  { id: 'keys', label: 'API keys', path: '/keys' },
  { id: 'webhooks', label: 'Webhooks', path: '/webhooks' },
  { id: 'embed', label: 'Embed', path: '/embed' },
];

/** A dashboard page: the publication's name, its sections (the inbox with its pending count), then `body`. */
export async function sendDashboard(
  deps: Deps,
  req: FastifyRequest,
  reply: FastifyReply,
  pub: Publication,
  section: Section,
  page: { title: string; body: SafeHtml },
  status = 200,
) {
  const pending = (await submissions.listInbox(deps, [pub.id], 'pending', 1, 1)).total;
  const others = pub.user.publishers.filter((p) => p.id !== pub.id);
  const tabs = SECTIONS.map(
    (s) =>
      html`<a href="${pub.base}${s.path}"${s.id === section ? html` aria-current="page"` : ''}>${s.label}${
        s.id === 'inbox' && pending > 0 ? html` <span class="count" aria-label="${pending} pending">${pending}</span>` : ''
      }</a>`,
  );
  const body = html`<div class="pub-head"><p class="eyebrow">Publication · <span class="badge">${pub.role}</span>${
    others.length > 0 ? html` · <a href="/dashboard?all=1">Switch publication</a>` : html` · <a href="/dashboard?all=1">New publication</a>`
  }</p>
<h1>${pub.name}</h1></div>
<nav class="tabs" aria-label="Sections of ${pub.name}">${tabs}</nav><script src="/assets/tabs.js" defer></script>
${page.body}
<script src="/assets/dashboard.js" defer></script>`;
  return sendPage(deps, req, reply, { title: `${page.title} · ${pub.name}`, body, noindex: true }, status);
}

/** A value the reader copies (a secret, a DNS record, a snippet): selectable text, plus a Copy button with JS. */
export function copyable(id: string, value: string, opts: { block?: boolean; label?: string } = {}): SafeHtml {
  const text = opts.block ? html`<pre class="copy-value" id="${id}"><code>${value}</code></pre>` : html`<code class="secret" id="${id}">${value}</code>`;
  return html`<div class="copy-row">${text}<span class="copy-actions"><button type="button" class="secondary small" data-copy="${id}" hidden>Copy${
    opts.label ? html`<span class="sr-only"> ${opts.label}</span>` : ''
  }</button><span class="copy-status" role="status"></span></span></div>`;
}

/** A timestamp with its hour, written as every page writes dates (domain/dates.ts), with the machine-readable value. */
export function when(iso: string | null | undefined, empty = '—'): SafeHtml {
  if (!iso) return html`<span class="muted">${empty}</span>`;
  return html`<time datetime="${iso}">${formatMoment(iso)}</time>`;
}

/** A day, written as every page writes dates (domain/dates.ts), with the machine-readable value. */
export function day(iso: string | null | undefined): SafeHtml {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${formatDay(iso)}</time>`;
}

const STATUS_TONE: Record<string, 'ok' | 'bad' | 'warn' | ''> = {
  verified: 'ok',
  pending: 'warn',
  active: 'ok',
  revoked: 'bad',
  expired: 'bad',
  open: 'warn',
  taken: '',
  fulfilled: 'ok',
  cancelled: 'bad',
  accepted: 'ok',
  rejected: 'bad',
  withdrawn: '',
  unverified: 'bad',
  enabled: 'ok',
  disabled: 'bad',
  succeeded: 'ok',
  failed: 'bad',
  held: 'warn',
  created: 'ok',
  updated: 'ok',
  skipped: '',
};

export const statusBadge = (status: string, label = status): SafeHtml =>
  html`<span class="badge${STATUS_TONE[status] ? ` ${STATUS_TONE[status]}` : ''}">${label}</span>`;

/** Words for the kinds of work, as people read them. */
export const KIND_LABELS: Record<string, string> = {
  review: 'Review',
  fact_check: 'Fact check',
  edit: 'Edit',
  correction: 'Correction',
  source: 'Sources',
  author: 'Author',
};

export function pager(base: string, page: number, perPage: number, total: number, extra = ''): SafeHtml {
  const last = Math.max(1, Math.ceil(total / perPage));
  if (last <= 1) return html``;
  const href = (n: number) => `${base}?page=${n}${extra}`;
  return html`<nav class="pager" aria-label="Pages of the list">${page > 1 ? html`<a href="${href(page - 1)}" rel="prev">← Newer</a>` : ''}<span class="muted">Page ${page} of ${last}</span>${
    page < last ? html`<a href="${href(page + 1)}" rel="next">Older →</a>` : ''
  }</nav>`;
}

/** A service's refusal of one form, as errors next to its fields; one without field details goes on `fallback`. */
export function errorsFor(err: DomainError, fallback: string): FieldErrors {
  const errors = fieldErrorsOf(err.details);
  return Object.keys(errors).length > 0 ? errors : { [fallback]: err.message };
}

/** A labelled <select> with its error next to it, like `field()`. */
export function selectField(opts: {
  name: string;
  label: string;
  options: { value: string; label: string }[];
  value?: string | undefined;
  error?: string | undefined;
  hint?: string;
  id?: string;
}): SafeHtml {
  const id = opts.id ?? `f-${opts.name}`;
  const described = [opts.hint ? `${id}-hint` : '', opts.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div><label for="${id}">${opts.label}${opts.hint ? html` <span class="hint" id="${id}-hint">${opts.hint}</span>` : ''}</label>
<select id="${id}" name="${opts.name}"${opts.error ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}>${opts.options.map(
    (o) => html`<option value="${o.value}"${o.value === (opts.value ?? '') ? html` selected` : ''}>${o.label}</option>`,
  )}</select>${opts.error ? html`<p class="field-error" id="${id}-error">${opts.error}</p>` : ''}</div>`;
}

/** Form values as the API's item schemas take them: blank fields left out, so they are "not given". */
export function given<T extends Record<string, string>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '')) as Partial<T>;
}

/**
 * Make a rendered table read as labelled cards on a phone: each cell gets its column's name in `data-label` (the
 * stylesheet shows it before the value under 40rem). The roles are spelled out because a table restyled with
 * `display: block` loses them in some browsers. An actions column (a header read by screen readers only) gets no
 * visible label. Works on this module's own markup: no nested tables, headers as `<th scope="col">`.
 */
export function stackable(table: SafeHtml): SafeHtml {
  const markup = table.value;
  const headers = [...markup.matchAll(/<th scope="col">([\s\S]*?)<\/th>/g)].map((m) => (m[1]!.includes('sr-only') ? '' : m[1]!.replace(/<[^>]*>/g, '')));
  const out = markup
    .replace(/<table>/g, '<table class="stack" role="table">')
    .replace(/<thead>|<tbody>/g, (t) => t.replace('>', ' role="rowgroup">'))
    .replace(/<th scope="col">/g, '<th scope="col" role="columnheader">')
    .replace(/<tr>([\s\S]*?)<\/tr>/g, (row) => {
      let i = 0;
      // Header text is already escaped, and the labels hold nothing else.
      return row.replace('<tr>', '<tr role="row">').replace(/<td(?=[\s>])/g, () => `<td role="cell" data-label="${headers[i++] ?? ''}"`);
    });
  return raw(out);
}
