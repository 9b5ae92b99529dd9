// What every page handler uses: render a page in the layout, send a redirect, require a signed-in user, read a
// form, and show field errors next to their fields.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import type { TSchema } from 'typebox';
import { AppError, type ErrorDetail } from '../../http/errors.js';
import { fieldRules } from '../../http/validation.js';
import { csrfToken, verifyCsrf } from './csrf.js';
import { html, type SafeHtml } from './html.js';
import { layout, type PageContext, type PageOptions } from './layout.js';
import type { WebUser } from './session.js';

/** Thrown by a handler to send the browser elsewhere (after a form post, or to the log-in page). */
export class Redirect extends Error {
  constructor(readonly location: string) {
    super(`redirect to ${location}`);
  }
}

/** Browsers ask for HTML first; API clients (curl's `*∕*`, fetch) do not. */
export function wantsHtml(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('text/html') && !accept.startsWith('application/json');
}

export function pageContext(deps: Deps, req: FastifyRequest, reply: FastifyReply): PageContext {
  return { siteUrl: deps.config.siteUrl, user: req.webUser, csrf: csrfToken(req, reply), path: req.url.split('?')[0] ?? '/' };
}

export function sendPage(deps: Deps, req: FastifyRequest, reply: FastifyReply, page: PageOptions, status = 200) {
  const ctx = pageContext(deps, req, reply);
  return reply
    .status(status)
    .header('cache-control', req.webUser || page.noStore ? 'private, no-store' : 'no-cache')
    .type('text/html; charset=utf-8')
    .send(layout(ctx, page));
}

/** The signed-in user, or a redirect to the log-in page that comes back here. */
export function requireUser(req: FastifyRequest): WebUser {
  if (!req.webUser) throw new Redirect(`/login?next=${encodeURIComponent(req.url)}`);
  return req.webUser;
}

export function requireAdmin(req: FastifyRequest): WebUser {
  const user = requireUser(req);
  if (!user.isAdmin) throw new AppError(403, 'forbidden', 'Only operators can open this page');
  return user;
}

/** A form post's fields (strings; repeated fields as arrays), after the CSRF checks. */
export function readForm(deps: Deps, req: FastifyRequest): Record<string, string | string[]> {
  verifyCsrf(req, deps.config.siteUrl);
  const body = (req.body ?? {}) as Record<string, string | string[]>;
  const { _csrf: _ignored, ...fields } = body;
  return fields;
}

export const str = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim();

const NEXT_BASE = 'http://next.invalid';

/**
 * Only same-site paths: an open redirect would let a link on another site send people anywhere. The path is
 * re-serialised by the URL parser, so what reaches the Location header is plain ASCII (`/。` becomes `/%E3%80%82`):
 * a raw non-ASCII or control character there makes Node refuse the header, and the answer a 500.
 */
export function safeNext(next: unknown, fallback: string): string {
  if (typeof next !== 'string' || next.length > 2048 || !next.startsWith('/') || next.startsWith('//')) return fallback;
  // Backslashes and controls: browsers read `/\evil.example` as `//evil.example`.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (/[\\\u0000-\u001f\u007f]/.test(next)) return fallback;
  let url: URL;
  try {
    url = new URL(next, NEXT_BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== NEXT_BASE) return fallback;
  const path = url.pathname + url.search + url.hash;
  return /^\/(?![/\\])[\x21-\x7e]*$/.test(path) ? path : fallback;
}

export type FieldErrors = Record<string, string>;

/** Each field's problem, in the rule's words (http/validation.ts ruleWords); the stylesheet starts it with a capital. */
export const fieldErrorsOf = (details: ErrorDetail[] | undefined): FieldErrors =>
  Object.fromEntries((details ?? []).map((d) => [d.field.split('.')[0] ?? d.field, d.message]));

export type Rules = ReturnType<typeof fieldRules>;

/**
 * The rules of one property of a route's body schema, for its form field: the schema is the one source of the
 * rule, the browser checks it from the attributes, and the hint says it in the words the error will use.
 */
export function rulesOf(schema: TSchema, name: string): Rules {
  const object = schema as { properties?: Record<string, Parameters<typeof fieldRules>[0]>; required?: string[] };
  return fieldRules(object.properties?.[name] ?? {}, object.required?.includes(name) ?? false);
}

/** A labelled input with its error next to it, wired for screen readers. */
export function field(opts: {
  name: string;
  label: string;
  type?: string;
  value?: string;
  error?: string | undefined;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  textarea?: boolean;
  /** The id of a <datalist> the browser offers values from as the person types. */
  list?: string;
  /** The schema's rules (rulesOf): the attributes, and the hint when none is given. */
  rules?: Rules;
}): SafeHtml {
  const id = `f-${opts.name}`;
  const rules = opts.rules;
  // The page's own words first (what the field is for), then the schema's rule in words: one hint, both said.
  const ruleHint = rules?.hint && !opts.hint?.includes(rules.hint) ? rules.hint : '';
  const hint = [opts.hint?.replace(/\.$/, ''), ruleHint && opts.hint ? ruleHint.charAt(0).toLowerCase() + ruleHint.slice(1) : ruleHint].filter(Boolean).join('; ');
  opts = { ...opts, hint: hint || undefined, required: opts.required ?? rules?.required };
  // A pattern's `title` is what the browser says when it refuses a value: the rule in words, never the expression.
  const constraints = rules
    ? html`${rules.minlength !== undefined && rules.minlength > 0 ? html` minlength="${String(rules.minlength)}"` : ''}${rules.maxlength !== undefined ? html` maxlength="${String(rules.maxlength)}"` : ''}${rules.pattern !== undefined && !opts.textarea ? html` pattern="${rules.pattern}" title="${rules.hint}"` : ''}`
    : '';
  const described = [opts.hint ? `${id}-hint` : '', opts.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const common = html`id="${id}" name="${opts.name}"${opts.required ? html` required` : ''}${opts.error ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}${opts.autocomplete ? html` autocomplete="${opts.autocomplete}"` : ''}${opts.list ? html` list="${opts.list}"` : ''}${constraints}`;
  const control = opts.textarea
    ? html`<textarea ${common}>${opts.value ?? ''}</textarea>`
    : html`<input type="${opts.type ?? 'text'}" ${common} value="${opts.value ?? ''}">`;
  return html`<div><label for="${id}">${opts.label}${opts.hint ? html` <span class="hint" id="${id}-hint">${opts.hint}</span>` : ''}</label>
${control}${opts.error ? html`<p class="field-error" id="${id}-error">${opts.error}</p>` : ''}</div>`;
}

/**
 * An action that cannot be taken back, asked twice without JavaScript: the first button opens a `<details>` that
 * says what will happen, and only its second button posts.
 */
export function confirmAction(opts: { action: string; csrf: SafeHtml; label: SafeHtml | string; consequence: string; confirm: string; cls?: string }): SafeHtml {
  return html`<details class="confirm"><summary class="button ${opts.cls ?? 'small danger'}">${opts.label}</summary>
<form method="post" action="${opts.action}" class="stack"><p>${opts.consequence}</p>${opts.csrf}<div><button type="submit" class="danger small">${opts.confirm}</button></div></form></details>`;
}

/**
 * The same second step inside a form that holds more than the choice (the inbox's note goes with Accept or Reject):
 * the opened step says what will happen and holds the submit button that carries the choice.
 */
export function confirmChoice(opts: { label: SafeHtml | string; consequence: string; confirm: string; name: string; value: string; danger?: boolean }): SafeHtml {
  const cls = opts.danger ? 'small danger' : 'small';
  return html`<details class="confirm"><summary class="button ${cls}">${opts.label}</summary>
<div class="stack step"><p>${opts.consequence}</p><div><button type="submit" name="${opts.name}" value="${opts.value}" class="${cls}">${opts.confirm}</button></div></div></details>`;
}

export function notice(req: FastifyRequest, messages: Record<string, string>): SafeHtml {
  const key = (req.query as Record<string, unknown> | undefined)?.done;
  const text = typeof key === 'string' ? messages[key] : undefined;
  return text ? html`<p class="notice" role="status">${text}</p>` : html``;
}
