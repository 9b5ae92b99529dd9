// buildApp(deps): the whole HTTP service, ready for inject() or listen(). Plugins load in a fixed order:
// app-wide hooks (request id, HTTPS rule, access log), then each surface with its own envelope and limits.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  LogController,
  type preParsingHookHandler,
  type preValidationHookHandler,
  type RouteOptions,
} from 'fastify';
import type { Deps } from './domain/deps.js';
import { apiEnvelope, errorHandler, notFoundHandler, v1Envelope } from './http/error-handler.js';
import { BODY_LIMITS, applyBodyClass, registerJsonParser } from './http/bodies.js';
import { AppError } from './http/errors.js';
import { proseStream } from './http/prose-log.js';
import { MethodTable, clientErrorHandler } from './http/protocol.js';
import { decorateRouteConfig, routeConfig } from './http/route-config.js';
import { isGuard } from './http/auth.js';
import { PUBLIC_READ_PREFLIGHT, answerHeaderSets, isPublicRead, registerAnswerHeaders } from './http/security-headers.js';
import { validatorCompiler } from './http/validation.js';
import { readiness } from './ops/health.js';
import { createMetrics, type Metrics } from './ops/metrics.js';
import { OpenApiCollector } from './surfaces/docs/openapi.js';
import { docsPage } from './surfaces/docs/docs.page.js';
import { API_PREFIX, integrationV1 } from './surfaces/integration-v1/index.js';
import { V1_PREFIX, publicV1 } from './surfaces/public-v1/index.js';
import { web } from './surfaces/web/index.js';
import { sendErrorPage, sendNotFoundPage, wantsErrorPage } from './surfaces/web/error.pages.js';
import { oauthServer } from './surfaces/oauth/index.js';
import { buildProvider } from './surfaces/oauth/provider.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Errors raised before routing answer in the envelope of the surface the raw path falls in. */
const envelopeFor = (url: string) => (url === API_PREFIX || /^\/api\/v1[/?]/.test(url) ? apiEnvelope : v1Envelope);

export interface BuiltApp {
  app: FastifyInstance;
  openapi: { v1: OpenApiCollector; api: OpenApiCollector };
  /** Every route registered, for the test that holds the OpenAPI documents complete. */
  routes: { method: string; url: string; hidden: boolean; html: boolean }[];
  /** This app's Prometheus registry and recorders (served by `serve` where METRICS_PORT/METRICS_TOKEN say). */
  metrics: Metrics;
}

/** Paths a load balancer or orchestrator probes, over plain HTTP on a private network. */
const PROBES = new Set(['/healthz', '/livez', '/readyz']);

/**
 * `logStream`: where log lines go (stdout by default; tests read them). `worker`: this process's number under
 * `serve --workers` (node:cluster's worker id), sent as `X-Credence-Worker` on every answer.
 */
export async function buildApp(deps: Deps, opts: { logStream?: NodeJS.WritableStream; worker?: number } = {}): Promise<BuiltApp> {
  // LOG_LEVEL=silent writes nothing, so Fastify gets no logger at all: it then skips the child logger it makes for
  // every request (pino stringifies the request id binding each time, about 1 µs) and req.log is a no-op logger.
  const silent = deps.config.logLevel === 'silent';
  const headerSets = answerHeaderSets(deps.config.requireHttps, opts.worker === undefined ? undefined : String(opts.worker));
  const app = Fastify({
    logger: silent ? false : {
      level: deps.config.logLevel,
      // Prose for people unless JSON is asked for (LOG_FORMAT); a test's stream gets the format its config names.
      ...(deps.config.logFormat === 'text' ? { stream: proseStream(opts.logStream ?? process.stdout) } : opts.logStream ? { stream: opts.logStream } : {}),
      // Log lines carry the request id, method, path and status: never an address, user agent, header or body,
      // so no reader, credential or email reaches a log (SPEC §11, the bar on private data).
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      redact: ['req.headers'],
    },
    // One access line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    // The largest body any route takes; each route's own limit is set from its body class (http/bodies.ts).
    bodyLimit: BODY_LIMITS.large.bytes,
    // A hop count is accepted at run time though Fastify's types omit it.
    trustProxy: deps.config.trustProxy as boolean,
    // A caller's own X-Request-Id is kept when it is sane, so a trace can cross services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { maxParamLength: 500 },
    // Errors Fastify raises before routing (a malformed percent-encoding, an overlong path parameter) get the
    // envelope of the surface the path falls in, and a request id, like every other answer.
    frameworkErrors: (error, req, reply) => {
      // Raised before any hook, which then do not run for it: the headers every answer carries, given here.
      headerSets.give(req, reply);
      const envelope = envelopeFor(req.url);
      const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      const body = envelope(new AppError(status, 'invalid_request', status === 414 ? 'A path parameter is too long' : 'The URL is malformed'));
      // Typed loosely: this runs before any route, so no route's reply schema applies.
      void (reply as FastifyReply).status(status).type('application/json; charset=utf-8').send(body);
    },
    // Requests Node's parser refuses (an unknown method, a bad Content-Length, headers over 16 KB: 431).
    clientErrorHandler: clientErrorHandler(envelopeFor),
    return503OnClosing: true,
    // Node's check of the Host header answers a bare 400 (no envelope, no request id): the app checks it instead, in
    // its first hook (http/security-headers.ts).
    http: { requireHostHeader: false },
  });
  app.setValidatorCompiler(validatorCompiler);
  // JSON only: a text/plain body is refused with 415, not parsed as a string. JSON is counted before it is parsed.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  registerJsonParser(app);
  const routes: BuiltApp['routes'] = [];
  // Every method and path, so that the 404 handlers can answer 405 with Allow for a known path.
  const methods = new MethodTable();
  app.decorate('methodTable', methods);
  // The public reads' paths, each answered a CORS preflight below.
  const publicReads = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of ([] as string[]).concat(route.method)) methods.add(method, route.url);
    applyBodyClass(route);
    const guards = ([] as unknown[]).concat(route.preValidation ?? []);
    // Every guard that needs a credential (an admin's included) makes a route authenticated; `optional` does not.
    const authenticated = guards.some(isGuard);
    if (([] as string[]).concat(route.method).some((m) => isPublicRead(m, route.config as never, authenticated, route.url))) {
      route.config = { ...(route.config as object), cors: true };
      if (route.method !== 'HEAD') publicReads.add(route.url);
    }
    // After the public-read check above, which reads the guards where the route declared them.
    guardBeforeBody(route);
    const config = route.config as { hidden?: boolean; html?: boolean; preflight?: boolean } | undefined;
    // A public read's preflight is made from its GET, as HEAD is: not a route of its own in the table.
    if (config?.preflight) return;
    const hidden = Boolean(config?.hidden || config?.html);
    for (const method of ([] as string[]).concat(route.method)) {
      if (method !== 'HEAD') routes.push({ method, url: route.url, hidden, html: Boolean(config?.html) });
    }
  });
  decorateRouteConfig(app);
  // The security headers and the request id on every answer, JSON and errors included, chosen before
  // any other hook can answer.
  registerAnswerHeaders(app, headerSets);
  // Outside any surface (unknown paths, /docs): a page for a browser (surfaces/web/error.pages.ts), else the /v1
  // envelope.
  const jsonErrors = errorHandler(v1Envelope);
  const jsonNotFound = notFoundHandler(v1Envelope);
  app.setErrorHandler((err, req, reply) => (wantsErrorPage(req) ? sendErrorPage(deps, err, req, reply) : jsonErrors(err, req, reply)));
  app.setNotFoundHandler((req, reply) => (wantsErrorPage(req) ? sendNotFoundPage(deps, req, reply) : jsonNotFound(req, reply)));

  // Hooks on every request are callback-style: an async hook costs a promise and a microtask turn per request.
  // SPEC §5: all requests must use HTTPS. With REQUIRE_HTTPS off (TLS ends elsewhere, or a local run) there is no
  // rule to apply, and no hook to call on every request.
  if (deps.config.requireHttps) {
    app.addHook('onRequest', (req, _reply, done) => {
      // req.protocol honours X-Forwarded-Proto only from a trusted proxy.
      done(req.protocol !== 'https' && !PROBES.has(req.url) ? new AppError(403, 'https_required', 'Use HTTPS') : undefined);
    });
  }
  const metrics = createMetrics(deps);
  app.addHook('onResponse', (req, reply, done) => {
    // The route's pattern, never the raw path, so the label set stays bounded whatever callers send.
    metrics.request(routeConfig(req).url ?? 'unmatched', req.method, reply.statusCode, reply.elapsedTime / 1000);
    // The line's object is built only when it will be written (not with LOG_LEVEL=warn and above). Without a
    // logger, req.log has no isLevelEnabled (pino's, which Fastify's logger type leaves out).
    // In prose (LOG_FORMAT=text) a request that went well is a debug line: a terminal shows what failed.
    const level = deps.config.logFormat === 'text' && reply.statusCode < 400 ? 'debug' : 'info';
    if (!silent && (req.log as FastifyBaseLogger & { isLevelEnabled(level: string): boolean }).isLevelEnabled(level)) {
      req.log[level]({ method: req.method, path: req.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    }
    done();
  });

  app.get('/healthz', { config: { hidden: true } }, async () => ({ ok: true }));
  // Operators' probes (src/ops/health.ts): alive, and ready for traffic (503 with the reason when not).
  app.get('/livez', { config: { hidden: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { hidden: true } }, async (_req, reply) => {
    const r = await readiness(deps);
    return reply.status(r.status === 'failing' ? 503 : 200).header('Cache-Control', 'no-store').send(r);
  });
  // Metrics on the main port only with a token (METRICS_TOKEN); METRICS_PORT serves them on their own listener.
  const token = deps.config.metricsToken;
  if (token) {
    app.get('/metrics', { config: { hidden: true } }, async (req, reply) => {
      if (!bearerMatches(req.headers.authorization, token)) {
        throw new AppError(401, 'unauthorized', 'Send the metrics token as Authorization: Bearer <METRICS_TOKEN>');
      }
      return reply.header('Content-Type', metrics.registry.contentType).header('Cache-Control', 'no-store').send(await metrics.registry.metrics());
    });
  }

  const openapi = {
    v1: new OpenApiCollector({
      title: 'Credence public API (/v1)',
      description: 'Page records, expert panels, contributor profiles, publisher requests, webhooks and embed.js.',
      version: '1',
      prefix: V1_PREFIX,
      errorEnvelope: 'v1',
    }),
    api: new OpenApiCollector({
      title: 'Credence integration API (/api/v1)',
      description: 'Trust-record lookup, page registration, requests, decisions, account webhooks, API keys and embeds.',
      version: '1',
      prefix: API_PREFIX,
      errorEnvelope: 'api',
    }),
  };
  await app.register(publicV1(deps, openapi.v1), { prefix: V1_PREFIX });
  await app.register(integrationV1(deps, openapi.api), { prefix: API_PREFIX });
  await app.register(web(deps, openapi.v1));
  // Not complete (docs/decisions/oauth-authorization-server.md): mounted only where OAUTH_ENABLED asks for it.
  if (deps.config.oauthEnabled) await app.register(oauthServer(deps, buildProvider(deps)));
  docsPage(app, deps, [openapi.v1, openapi.api]);
  // A browser asks before a public read that sends a header beyond the safelisted ones (If-None-Match,
  // X-Request-Id): one OPTIONS route per public read's path, outside the surfaces (no credential, no limit).
  // Authenticated routes have none, so no site's script is ever allowed to send them a credential.
  for (const url of [...publicReads]) {
    app.options(url, { config: { hidden: true, unlimited: true, cors: true, preflight: true } }, (_req, reply) => {
      void reply.status(204).headers(PUBLIC_READ_PREFLIGHT).send();
    });
  }
  return { app, openapi, routes, metrics };
}

/**
 * On a route that takes a body, the guards that need a credential run before the body is read (preParsing), so a
 * caller without one costs no parse: the same check, the same error, only earlier.
 */
function guardBeforeBody(route: RouteOptions): void {
  const methods = ([] as string[]).concat(route.method);
  if (methods.every((m) => m === 'GET' || m === 'HEAD' || m === 'OPTIONS')) return;
  const preValidation = ([] as unknown[]).concat(route.preValidation ?? []);
  const guards = preValidation.filter(isGuard);
  if (guards.length === 0) return;
  route.preParsing = [...guards, ...([] as preParsingHookHandler[]).concat(route.preParsing ?? [])] as preParsingHookHandler[];
  route.preValidation = preValidation.filter((h) => !isGuard(h)) as preValidationHookHandler[];
}

/** Constant-time comparison of a bearer token (hashes make the lengths equal). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}
