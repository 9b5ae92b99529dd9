// The security headers of every answer (issue 15), computed by helmet. The pages are server-rendered HTML whose
// only scripts are static files of this site (the dashboard's and /me's copy buttons, embed.js): no inline script and
// no `on*=` attribute anywhere, so `script-src 'self'` holds. Styles may be inline: the attribution block carries
// its own <style> (it must survive a CMS that inserts it without a shadow root) and bars are drawn with a width.
//
// The headers are the same for every answer, so helmet runs once, at start, and each request copies its result
// (issue 16). @fastify/helmet rebuilt helmet's middleware, parsing the CSP directives, on every request: 6% of the
// server's CPU on a warm lookup (docs/decisions.md, "Security headers computed once").
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

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

/** The headers helmet sets with these options, read once by running its middleware on a stand-in response. */
export function securityHeaderSet(requireHttps: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(helmetOptions(requireHttps))({} as never, res as never, (err?: unknown) => {
    if (err) throw err;
  });
  return Object.freeze(headers);
}

/** Every answer, JSON and errors included, carries the headers; a route may still override one (the embeds' CORP). */
// Set on the raw response in one call (Fastify's reply.header would lower-case and check each of the ten, every
// request); what a route sets through its reply still wins, since Node gives writeHead's headers precedence.
export function registerSecurityHeaders(app: FastifyInstance, requireHttps: boolean): void {
  const headers = new Map(Object.entries(securityHeaderSet(requireHttps)));
  app.addHook('onRequest', (_req, reply, done) => {
    reply.raw.setHeaders(headers);
    done();
  });
}
