// Errors as pages for people: a browser (Accept: text/html) that reaches an unknown address, uses a method an address
// does not take, runs out of its rate budget or meets a failure gets a page in the site's frame (its header, a way
// on), with the status. API clients, and every path under the APIs (/v1, /api), keep the JSON envelope.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { toAppError } from '../../http/error-handler.js';
import { AppError } from '../../http/errors.js';
import { html, type SafeHtml } from './html.js';
import { sendPage, wantsHtml } from './kit.js';
import { resolveWebUser, type WebUser } from './session.js';

/** The APIs' paths: JSON whatever the Accept header says. */
const API_PATH = /^\/(?:v1|api)(?:[/?]|$)/;

/** A person's browser asking for a page, outside the APIs. */
export const wantsErrorPage = (req: FastifyRequest): boolean => wantsHtml(req) && !API_PATH.test(req.url);

const searchForm = html`<form method="get" action="/search" class="search" role="search">
<label class="sr-only" for="error-q">Search pages, people, publishers and panels</label>
<input type="search" id="error-q" name="q" maxlength="200" placeholder="A page URL, a title, a name">
<button type="submit">Search</button></form>`;

function wording(error: AppError, req: FastifyRequest): { title: string; body: SafeHtml } {
  const path = req.url.split('?')[0] ?? '/';
  switch (error.status) {
    case 404:
      return {
        title: 'Not found',
        body: html`<p class="lede">${error.code === 'not_found' && error.message.startsWith('No route') ? html`There is no page at <code class="wrap">${path}</code>.` : error.message}</p>
<p>The address may be mistyped, or what it showed may have gone. Search for it, or start from the home page.</p>${searchForm}`,
      };
    case 405:
      return { title: 'Not allowed here', body: html`<p class="lede">${error.message}.</p><p>Follow a link or a button on the site instead of typing this address.</p>` };
    case 429: {
      const wait = Number(error.headers?.['Retry-After'] ?? 0);
      return {
        title: 'Too many requests',
        body: html`<p class="lede">This address asked for more pages than it may in a minute.</p><p>${
          wait > 0 ? `Wait ${wait} ${wait === 1 ? 'second' : 'seconds'}, then reload the page.` : 'Wait a moment, then reload the page.'
        } Signed-in people have a larger allowance.</p>`,
      };
    }
    case 503:
      return { title: 'Briefly unavailable', body: html`<p class="lede">The service is briefly unavailable.</p><p>Reload the page in a moment.</p>` };
    default:
      if (error.status >= 500) {
        return {
          title: 'Something went wrong',
          body: html`<p class="lede">Something went wrong on our side.</p><p>Quote request id <code>${req.id}</code> if you report it.</p>`,
        };
      }
      return { title: 'That did not work', body: html`<p class="notice error" role="alert">${error.message}</p>` };
  }
}

/** The error as a page, with its status and headers (Retry-After, Allow). */
export async function sendErrorPage(deps: Deps, err: unknown, req: FastifyRequest, reply: FastifyReply) {
  const error = toAppError(err, req);
  if (error.status >= 500 && error.status !== 503) req.log.error({ err }, 'page failed');
  if (error.headers) void reply.headers(error.headers);
  // Outside the pages' own routes nobody read the session yet: the header should still know who is signed in.
  if ((req.webUser as WebUser | null | undefined) === undefined) await resolveWebUser(deps, req).catch(() => undefined);
  const { title, body } = wording(error, req);
  return sendPage(deps, req, reply, { title, noindex: true, body: html`<h1>${title}</h1>${body}<p><a href="/">Back to the start</a></p>` }, error.status);
}

/** No route: 405 with Allow when the path takes other methods, else 404, as pages. */
export function sendNotFoundPage(deps: Deps, req: FastifyRequest, reply: FastifyReply) {
  const path = req.url.split('?')[0] ?? '/';
  const allowed = req.server.methodTable?.allowed(path) ?? [];
  if (allowed.length > 0) {
    const error = new AppError(405, 'invalid_request', `${req.method} is not allowed on ${path}; it takes ${allowed.join(', ')}`, undefined, { Allow: allowed.join(', ') });
    return sendErrorPage(deps, error, req, reply);
  }
  return sendErrorPage(deps, new AppError(404, 'not_found', `No route ${req.method} ${path}`), req, reply);
}
