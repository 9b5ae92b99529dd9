// CSRF protection for every form (SPEC §5): a random token in an HttpOnly cookie that each form repeats in a
// hidden `_csrf` field (double submit), and a same-origin check on the Origin (or Referer) header. A cross-site
// form post fails both: it cannot read the cookie to copy it, and its Origin names another site.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import { parseCookies, setCookie } from './session.js';

export const CSRF_COOKIE = 'credence_csrf';
export const CSRF_FIELD = '_csrf';

/** The token for this visitor's forms, set as a cookie the first time. */
export function csrfToken(req: FastifyRequest, reply: FastifyReply): string {
  const existing = parseCookies(req.headers.cookie)[CSRF_COOKIE];
  if (existing && /^[A-Za-z0-9_-]{32,64}$/.test(existing)) return existing;
  const token = randomBytes(24).toString('base64url');
  setCookie(req, reply, CSRF_COOKIE, token, 30 * 86_400);
  // Visible to this request's own form rendering too.
  req.headers.cookie = `${req.headers.cookie ? `${req.headers.cookie}; ` : ''}${CSRF_COOKIE}=${token}`;
  return token;
}

const refused = () => new AppError(403, 'forbidden', 'The form has expired or came from another site. Reload the page and try again.');

/** The checks that need no body: the post came from this site, and carries the form cookie. */
export function verifyCsrfSource(req: FastifyRequest, siteUrl: string): void {
  const origin = req.headers.origin ?? (typeof req.headers.referer === 'string' ? safeOrigin(req.headers.referer) : undefined);
  const own = [safeOrigin(siteUrl), `${req.protocol}://${req.host}`];
  if (origin !== undefined && origin !== 'null' && !own.includes(origin)) throw refused();
  if (origin === 'null') throw refused();
  if (!parseCookies(req.headers.cookie)[CSRF_COOKIE]) throw refused();
}

/** All the checks: the source's, then the form's token against its cookie (double submit). */
export function verifyCsrf(req: FastifyRequest, siteUrl: string): void {
  verifyCsrfSource(req, siteUrl);
  const cookie = parseCookies(req.headers.cookie)[CSRF_COOKIE];
  const field = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
  if (!cookie || typeof field !== 'string' || cookie.length !== field.length) throw refused();
  if (!timingSafeEqual(Buffer.from(cookie), Buffer.from(field))) throw refused();
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
