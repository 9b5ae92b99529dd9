// What the /me pages share: the tabs over every section, the frame they render in, a form post's user, and the
// way an API error's details become messages next to a form's fields. The sections live in me.*.pages.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import type { ErrorDetail } from '../../http/errors.js';
import { IdParam } from '../../http/schemas.js';
import { html, type SafeHtml } from './html.js';
import type { PageContext } from './layout.js';
import { type FieldErrors, pageContext, readForm, Redirect, sendPage } from './kit.js';
import type { WebUser } from './session.js';

export const page = { config: { html: true } };
export const withId = { config: { html: true }, schema: { params: IdParam } };

export const TABS = [
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

export const tabs = (ctx: PageContext) =>
  html`<nav class="tabs" aria-label="Your work">${TABS.map(([href, label]) => html`<a href="${href}"${ctx.path === href ? html` aria-current="page"` : ''}>${label}</a>`)}</nav><script src="/assets/tabs.js" defer></script>`;

export const errorNotice = (message: string | undefined) => (message ? html`<p class="notice error" role="alert">${message}</p>` : html``);

/** A rule's words (http/validation.ts ruleWords), said the way a form says it: a sentence beside the field. */
export function humane(message: string): string {
  if (message === 'must not be empty' || message === 'is required') return 'Required';
  // A sentence that opens with a name keeps its case: "noor.example has no TXT record", not "Noor.example …".
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+(\s|$)/.test(message)) return message;
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/**
 * An API error's details as messages keyed by the form's field names (`evidence.sources.2` → `sources`, saying
 * which line). `rename` maps API field names the form calls something else.
 */
export function formErrors(details: ErrorDetail[] | undefined, rename: Record<string, string> = {}): FieldErrors {
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
export function generalError(errors: FieldErrors, shown: string[]): string | undefined {
  const rest = Object.entries(errors).filter(([k]) => !shown.includes(k));
  return rest.length ? rest.map(([k, m]) => `${k}: ${m}`).join('. ') : undefined;
}

/** Form posts check CSRF before anything else; then they need someone signed in. */
export function formUser(deps: Deps, req: FastifyRequest): { form: Record<string, string | string[]>; user: WebUser } {
  const form = readForm(deps, req);
  if (!req.webUser) throw new Redirect('/login?next=/me');
  return { form, user: req.webUser };
}

/** A /me page: the tabs, then the body. `tab`: the section to mark current when a form post re-renders a page under another path. */
export function meFrame(deps: Deps) {
  return (req: FastifyRequest, reply: FastifyReply, title: string, body: (ctx: PageContext) => SafeHtml, status = 200, tab?: string) => {
    const ctx = pageContext(deps, req, reply);
    return sendPage(deps, req, reply, { title, noindex: true, body: html`${tabs({ ...ctx, path: tab ?? ctx.path })}${body(ctx)}` }, status);
  };
}
