// The matched route's config (its pattern and the flags routes set: `unlimited`, `html`, `negotiated`), read once
// per request. Fastify's `req.routeOptions` builds a fresh 12-field object on every read (about 2,400 instructions,
// issue 16), and an /api/v1 request read it twice: for the surface's rate limit, then for the metrics hook. A surface
// does not read it at all: its per-request hook is added to each route (`onRequestByRoute`) with the route's config
// in its closure, as @fastify/rate-limit adds its own.
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';

export interface RouteConfig {
  /** The route's pattern (`/api/v1/pages/lookup`); undefined when no route matched (a 404). */
  url?: string;
  unlimited?: boolean;
  html?: boolean;
  negotiated?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `routeConfig` on its first call; read it through that. */
    routeConfigRead: RouteConfig | null;
  }
}

/** Gives every request its slot (decorated, so requests keep one shape). */
export function decorateRouteConfig(app: FastifyInstance): void {
  app.decorateRequest('routeConfigRead', null);
}

/**
 * Runs `hook` on every request of `app`'s routes (those registered from now on) ahead of their own onRequest hooks,
 * with the route's config already known to `routeConfig`: the hook is the route's, added in `onRoute` with the config
 * in its closure. On a request no route matched (a 404 under the prefix) it runs as an instance hook, and
 * `routeConfig` asks Fastify. Either way it runs after the parent's onRequest hooks, where an instance hook would.
 */
export function onRequestByRoute(app: FastifyInstance, hook: onRequestHookHandler): void {
  app.addHook('onRoute', (route) => {
    // What Fastify gives req.routeOptions.config: the route's own config with its full pattern (the prefix included).
    const config: RouteConfig = { ...(route.config as RouteConfig | undefined), url: route.url };
    const own = route.onRequest === undefined ? [] : ([] as onRequestHookHandler[]).concat(route.onRequest);
    route.onRequest = [
      function byRoute(req, reply, done) {
        req.routeConfigRead = config;
        hook.call(this, req, reply, done);
      },
      ...own,
    ];
  });
  app.addHook('onRequest', function unmatched(req, reply, done) {
    if (req.is404) hook.call(this, req, reply, done);
    else done();
  });
}

/**
 * The config of the route that matched this request, read from Fastify once. (A handler that passed the request on
 * with `reply.callNotFound()` would keep its own route's config here; nothing here does.)
 */
export function routeConfig(req: FastifyRequest): RouteConfig {
  return (req.routeConfigRead ??= (req.routeOptions.config ?? {}) as RouteConfig);
}
