// The site root: server-rendered pages for people (SPEC §12, issue "web app"), the public record and proof
// addresses (HTML for browsers, JSON otherwise), embed.js and its demo. /v1 envelope and /v1 limits for JSON.
import { didRoutes } from './did.routes.js';
import { verifyPages } from './verify.pages.js';
import { mailPages } from './mail.pages.js';
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { registerFormParser } from '../../http/bodies.js';
import type { Deps } from '../../domain/deps.js';
import { errorHandler, v1Envelope } from '../../http/error-handler.js';
import { routeConfig } from '../../http/route-config.js';
import { accountBucket, accountPolicy, callerKey, principalAccount, setupSurface } from '../../http/surface.js';
import type { OpenApiCollector } from '../docs/openapi.js';
import { embedDemoPage } from '../embed/demo.page.js';
import { embedScriptRoute, embedStylesheetRoute } from '../embed/embed.routes.js';
import { adminPages } from './admin.pages.js';
import { moderationPages } from './moderation.pages.js';
import { authPages } from './auth.pages.js';
import { verifyCsrfSource } from './csrf.js';
import { dashboardPages } from './dashboard.pages.js';
import { sendErrorPage, wantsErrorPage } from './error.pages.js';
import { Redirect } from './kit.js';
import { mePages } from './me.pages.js';
import { publicPages } from './public.pages.js';
import { recordRoutes } from './records.routes.js';
import { resolveWebUser } from './session.js';

const STYLESHEET = fs.readFileSync(new URL('../../../public/app.css', import.meta.url), 'utf8');
const TABS_SCRIPT = fs.readFileSync(new URL('../../../public/tabs.js', import.meta.url), 'utf8');
// The proof page's check of its transparency-log entry, run in the reader's browser (a file, never inline): the log
// checks it shares with the browser extension (log-core.js), then the page's own.
const LOG_VERIFY = ['log-core.js', 'log-verify.js'].map((f) => fs.readFileSync(new URL(`../../../public/${f}`, import.meta.url), 'utf8')).join('\n');

const isHtmlRoute = (req: FastifyRequest) => Boolean(routeConfig(req).html);

export function web(deps: Deps, openapi: OpenApiCollector) {
  const keyPolicy = { name: 'v1-key', capacity: 600, rate: 10 };
  const anonPolicy = { name: 'v1-ip', capacity: 60, rate: 1 };
  // The same account bucket as /v1's (same name and key): the pages and /v1 are one surface's limits.
  const ownerPolicy = accountPolicy(deps, 'v1-account', keyPolicy);
  const jsonErrors = errorHandler(v1Envelope);

  const negotiated = (req: FastifyRequest) => Boolean(routeConfig(req).negotiated);
  // Pages answer errors as pages (and redirects thrown by handlers as 303s), and so does every route to a browser
  // (error.pages.ts); everything else in the /v1 envelope.
  const pageErrors = async (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof Redirect) return reply.redirect(err.location, 303);
    if (!(isHtmlRoute(req) || wantsErrorPage(req))) return jsonErrors(err, req, reply);
    return sendErrorPage(deps, err, req, reply);
  };

  return async function plugin(app: FastifyInstance) {
    app.decorateRequest('webUser', null);
    setupSurface(app, deps, {
      envelope: v1Envelope,
      notFound: false,
      errorHandler: pageErrors,
      // A form's writer is the cookie's person (a page takes no key): their suspension refuses the write.
      actor: (req) => req.webUser?.accountId,
      // Pages read their cookie session first, so that signed-in people are limited per account.
      identify: (req) => {
        req.webUser = null;
        return isHtmlRoute(req) || negotiated(req) ? resolveWebUser(deps, req) : undefined;
      },
      rateLimit: (req) => {
        if (routeConfig(req).unlimited) return null;
        if (req.webUser) return { policy: keyPolicy, key: `v1:account:${req.webUser.accountId}`, account: accountBucket(req.webUser.accountId, 'v1', ownerPolicy) };
        const caller = callerKey(req);
        return { policy: caller.kind === 'key' ? keyPolicy : anonPolicy, key: `v1:${caller.id}`, account: accountBucket(principalAccount(req), 'v1', ownerPolicy) };
      },
    });
    // Forms post application/x-www-form-urlencoded; repeated fields become arrays.
    registerFormParser(app);
    // A form post's origin and CSRF cookie are checked before its body is read; its token, after (kit.ts readForm).
    app.addHook('onRoute', (route) => {
      if (([] as string[]).concat(route.method).includes('POST') && !(route.config as { csrfExempt?: boolean } | undefined)?.csrfExempt) {
        route.preParsing = [csrfBeforeBody, ...([] as preParsingHookHandler[]).concat(route.preParsing ?? [])];
      }
    });
    const csrfBeforeBody: preParsingHookHandler = (req, _reply, _payload, done) => {
      try {
        verifyCsrfSource(req, deps.config.siteUrl);
        done();
      } catch (err) {
        done(err as Error);
      }
    };

    app.get('/assets/app.css', { config: { hidden: true, unlimited: true } }, async (_req, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
    );

    app.get('/assets/tabs.js', { config: { hidden: true, unlimited: true } }, async (_req, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(TABS_SCRIPT),
    );

    app.get('/assets/log-verify.js', { config: { hidden: true, unlimited: true } }, async (_req, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(LOG_VERIFY),
    );

    // Browsers ask for it on every first visit; there is no icon, and "none" is not an error worth a JSON 404.
    app.get('/favicon.ico', { config: { hidden: true, unlimited: true } }, async (_req, reply) =>
      reply.status(204).header('cache-control', 'public, max-age=86400').send(),
    );

    openapi.attach(app);
    recordRoutes(app, deps);
    embedScriptRoute(app, deps.config);
    embedStylesheetRoute(app, deps.config);
    embedDemoPage(app, deps);
    authPages(app, deps);
    mailPages(app, deps);
    publicPages(app, deps);
    didRoutes(app, deps);
    verifyPages(app, deps);
    mePages(app, deps);
    dashboardPages(app, deps);
    adminPages(app, deps);
    moderationPages(app, deps);
  };
}
