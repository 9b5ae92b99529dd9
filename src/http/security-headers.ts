// The security headers of every answer, computed by helmet. The pages are server-rendered HTML whose
// only scripts are static files of this site (the dashboard's and /me's copy buttons, embed.js): no inline script and
// no `on*=` attribute anywhere, so `script-src 'self'` holds. Styles may be inline: bars are drawn with a width
// (the attribution block links its stylesheet, /embed.css).
//
// Two sets. The pages (HTML documents) get helmet's full set above. The JSON surfaces (/v1 and /api/v1: records,
// lookups, embeds, errors) get the set OWASP's REST Security Cheat Sheet and GitHub's API send: nosniff, a CSP of
// `default-src 'none'; frame-ancestors 'none'` (nothing an answer could load or be framed by, stricter than the
// pages'), X-Frame-Options, CORP, HSTS under REQUIRE_HTTPS. The rest of helmet's set governs documents only
// (COOP, Origin-Agent-Cluster, Referrer-Policy, DNS prefetch, IE8 downloads, Flash policies, the XSS auditor): on an
// API answer they were 330 bytes of every response for no reader (docs/decisions/security-headers.md).
// An answer of the JSON surfaces served as text/html (an embed's `format=jsonld`) is covered too: with
// `default-src 'none'` a browser that opened it would load and run nothing.
//
// The headers are the same for every answer of a set, so helmet runs once, at start, and each request copies its
// result. @fastify/helmet rebuilt helmet's middleware, parsing the CSP directives, on every request: 6%
// of the server's CPU on a warm lookup (docs/decisions/security-headers.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { AppError } from './errors.js';
import { routeConfig } from './route-config.js';

export function helmetOptions(requireHttps: boolean): HelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        // No page of this site may be framed: the dashboard's buttons are worth clickjacking.
        frameAncestors: ["'none'"],
        ...(requireHttps ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // 'same-origin', not helmet's 'no-referrer': with no-referrer a browser sends `Origin: null` on a form post,
    // which the CSRF check refuses. Other sites still learn nothing (links to them also carry rel=noreferrer).
    referrerPolicy: { policy: 'same-origin' },
    xFrameOptions: { action: 'deny' },
    // HSTS only where plain HTTP is refused anyway: a developer's http://localhost must not be pinned to HTTPS.
    strictTransportSecurity: requireHttps ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    // Same-origin by default; the embed routes and embed.js answer `cross-origin` themselves (embed.routes.ts), so
    // any site can load them. COEP stays off: it would stop the pages loading nothing else, and guards nothing here.
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: { policy: 'same-origin' },
  };
}

/** The API set: what still applies to an answer no browser renders as a page. */
export function apiHelmetOptions(requireHttps: boolean): HelmetOptions {
  const page = helmetOptions(requireHttps);
  return {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    xContentTypeOptions: true,
    xFrameOptions: page.xFrameOptions,
    strictTransportSecurity: page.strictTransportSecurity,
    crossOriginResourcePolicy: page.crossOriginResourcePolicy,
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    referrerPolicy: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  };
}

/** The headers helmet sets with these options, read once by running its middleware on a stand-in response. */
export function securityHeaderSet(requireHttps: boolean, set: 'page' | 'api' = 'page'): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(set === 'api' ? apiHelmetOptions(requireHttps) : helmetOptions(requireHttps))({} as never, res as never, (err?: unknown) => {
    if (err) throw err;
  });
  return Object.freeze(headers);
}

/** A path of the JSON surfaces, /v1 and /api/v1 (the query string may follow at once). */
const API_PATH = /^\/(?:api\/)?v1(?:[/?]|$)/;
/**
 * The embeds, embed.js and the block's stylesheet (/api/v1/embed/…, /v1/embed.js, /embed.js, /embed.css): the API
 * set, readable from every site (`Cross-Origin-Resource-Policy: cross-origin`), so their routes add only their CORS
 * and caching headers and no header is set twice.
 */
const EMBED_PATH = /^\/(?:api\/v1\/embed\/|(?:v1\/)?embed\.js(?:\?|$)|embed\.css(?:\?|$))/;

/**
 * Which set a path gets. The integration API's paths, nearly every request, are told apart by two prefix checks, the
 * rest by the patterns: both regular expressions on every request were about 2% of a warm lookup's instructions
 *.
 */
export function headerSetOf(url: string): 'embed' | 'api' | 'page' {
  if (url.startsWith('/api/v1/')) return url.startsWith('embed/', 8) ? 'embed' : 'api';
  return EMBED_PATH.test(url) ? 'embed' : API_PATH.test(url) ? 'api' : 'page';
}

/**
 * CORS of a public read: any site's scripts may read the public record, never with credentials (no
 * `Access-Control-Allow-Credentials`, so a browser sends no cookie and refuses a credentialed answer), and read the
 * headers a reader needs. Added to every answer of a public read's route, its errors (400, 404, 429) included, as
 * one more frozen set: choosing it is the lookup that chooses the security set (docs/decisions/cors-for-public-reads.md, "Public reads
 * are CORS-open").
 */
export const PUBLIC_READ_CORS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag, Link, Location, RateLimit, RateLimit-Policy, Retry-After, X-Request-Id',
});

/** The answer to a preflight of a public read: only what a public read needs (no credential header). */
export const PUBLIC_READ_PREFLIGHT: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-methods': 'GET, HEAD',
  'access-control-allow-headers': 'Accept, Accept-Language, If-None-Match, If-Modified-Since, X-Request-Id',
  'access-control-max-age': '86400',
});

/**
 * A public read: a GET (or HEAD) that takes no credential it needs (no guard but `optional`) and is not a page for
 * people. Decided once per route, when it is registered (app.ts sets `cors` in its config).
 */
export function isPublicRead(method: string, config: { html?: boolean; hidden?: boolean } | undefined, authenticated: boolean, url: string): boolean {
  return (method === 'GET' || method === 'HEAD') && !authenticated && !config?.html && url !== '/metrics';
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The security set of this request's path (and the worker's number), chosen when it arrives; read it through
     * `answerHeaders`. */
    headerSet: Readonly<Record<string, string>> | null;
  }
}

/** The web pages' session cookie (surfaces/web/session.ts): a credential, as a key or a bearer token is. */
export const SESSION_COOKIE = 'credence_session';
const SESSION_IN_COOKIES = new RegExp(`(?:^|;)\\s*${SESSION_COOKIE}=[^;\\s]`);

/**
 * Whether a request carried a credential: an API key or a session token (`X-API-Key`, `Authorization`) or the
 * pages' session cookie. Its answer may hold what only that caller may see (an email, keys, webhooks), so no cache
 * on the way may keep it (OWASP REST Security Cheat Sheet): `Cache-Control: no-store`, unless the route
 * set its own caching for public data (the embeds, static files). Read from the headers, not from the principal, so
 * a refused credential's 401 and answers given before any surface's hook are covered too.
 */
export function carriesCredential(req: FastifyRequest): boolean {
  const h = req.headers;
  return h.authorization !== undefined || h['x-api-key'] !== undefined || (h.cookie !== undefined && SESSION_IN_COOKIES.test(h.cookie));
}

export interface AnswerHeaderSets {
  /** The set of a path (the raw URL, query and all); with `cors`, a public read's (PUBLIC_READ_CORS). */
  of(url: string, cors?: boolean): Readonly<Record<string, string>>;
  /** Give a reply sent through Fastify the headers every answer carries: the request's set (its path's, where no
   * hook chose one), then its id. */
  give(req: FastifyRequest, reply: FastifyReply): void;
}

/** The three sets, with the worker's number in each under `serve --workers`. */
export function answerHeaderSets(requireHttps: boolean, worker?: string): AnswerHeaderSets {
  const own: Record<string, string> = worker === undefined ? {} : { 'x-credence-worker': worker };
  const api = securityHeaderSet(requireHttps, 'api');
  const sets = {
    page: Object.freeze({ ...securityHeaderSet(requireHttps, 'page'), ...own }),
    api: Object.freeze({ ...api, ...own }),
    embed: Object.freeze({ ...api, 'cross-origin-resource-policy': 'cross-origin', ...own }),
  };
  // CORP stays as it was: a browser checks it on no-cors loads only, and a CORS read passes on these headers.
  const open = {
    page: Object.freeze({ ...sets.page, ...PUBLIC_READ_CORS }),
    api: Object.freeze({ ...sets.api, ...PUBLIC_READ_CORS }),
    embed: Object.freeze({ ...sets.embed, ...PUBLIC_READ_CORS }),
  };
  const of = (url: string, cors = false) => (cors ? open : sets)[headerSetOf(url)];
  return {
    of,
    give(req, reply) {
      void reply.headers(req.headerSet ?? of(req.url)).header('x-request-id', req.id);
      if (carriesCredential(req) && !reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
    },
  };
}

/**
 * The headers every answer carries, JSON and errors included: its path's security set, the worker's number under
 * `serve --workers` (node:cluster's id: operators reading a trace, the workers test), and the request id.
 *
 * An answer to a request that carried a credential also gets `Cache-Control: no-store` where its route set no
 * caching of its own (`carriesCredential`).
 *
 * The set is chosen when the request arrives and written when the answer is: by an onSend hook for answers sent
 * through Fastify, and by `answerHeaders` for those written past it (cached answers, http/wire.ts; the change
 * feed's stream). An error Fastify answers before any hook runs (a malformed URL: app.ts, `frameworkErrors`) is
 * given them there. Copied into every reply as it arrived, then read back out of it, they cost a warm cached answer
 * about 4,500 instructions, 5% (docs/decisions/security-headers.md).
 *
 * Written last, over any header of the same name a route set, so no route drops or weakens one by accident; a
 * different set is chosen by path (`headerSetOf`). Given to Fastify's reply headers, never to the raw response:
 * Fastify hands its headers to Node's `writeHead` in one object, and while nothing was set on the raw response Node
 * writes them in one pass.
 */
export function registerAnswerHeaders(app: FastifyInstance, sets: AnswerHeaderSets): void {
  app.decorateRequest('headerSet', null);
  // First of the app's hooks, so an answer given by any later one (HTTPS refused, rate limited) has its set.
  // The route is matched before onRequest: its config (read once, and read again by the limit and metrics hooks)
  // says whether it is a public read.
  // HTTP/1.1 requires a Host header (RFC 9112 §3.2). Node's own check (app.ts turns it off) answered a bare 400 with
  // no envelope and no request id; refused here, it gets both, and its surface's envelope.
  app.addHook('onRequest', (req, _reply, done) => {
    req.headerSet = sets.of(req.url, routeConfig(req).cors === true);
    if (req.headers.host === undefined && req.raw.httpVersion === '1.1') {
      done(new AppError(400, 'invalid_request', 'The request has no Host header; HTTP/1.1 requires one'));
      return;
    }
    done();
  });
  app.addHook('onSend', function answerHeadersOnSend(req, reply, payload, done) {
    sets.give(req, reply);
    done(null, payload);
  });
}

/**
 * The headers every answer carries, added to `headers` (which it returns), for an answer written past Fastify's
 * send: what the onSend hook above gives every other answer. Only from a route's handler (its set chosen).
 */
export function answerHeaders<T extends Record<string, unknown>>(req: FastifyRequest, headers: T): T {
  Object.assign(headers, req.headerSet);
  const all = headers as Record<string, unknown>;
  all['x-request-id'] = req.id;
  if (all['cache-control'] === undefined && carriesCredential(req)) all['cache-control'] = 'no-store';
  return headers;
}
