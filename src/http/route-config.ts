// The matched route's config (its pattern and the flags routes set: `unlimited`, `html`, `negotiated`), read once
// per request. Fastify's `req.routeOptions` builds a fresh 12-field object on every read (about 2,400 instructions),
// and an /api/v1 request read it twice: for the surface's rate limit, then for the metrics hook.
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** What a route may be sent (http/bodies.ts turns each class into its byte and member limits). */
export type BodyClass = 'small' | 'standard' | 'large';

export interface RouteConfig {
  /** The route's pattern (`/api/v1/pages/lookup`); undefined when no route matched (a 404). */
  url?: string;
  unlimited?: boolean;
  html?: boolean;
  negotiated?: boolean;
  /** What the route may be sent (http/bodies.ts): `small` for routes read before anyone is known; standard else. */
  body?: BodyClass;
  /** A public read (security-headers.ts `isPublicRead`): its answers, errors included, are CORS-open. Set by app.ts. */
  cors?: boolean;
  /**
   * A page form that carries its own secret instead of a session (the one-click unsubscribe of RFC 8058, posted by
   * mail clients with no cookie): the web surface's CSRF checks are skipped. Nothing signed in may set it.
   */
  csrfExempt?: boolean;
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
 * The config of the route that matched this request, read from Fastify once. (A handler that passed the request on
 * with `reply.callNotFound()` would keep its own route's config here; nothing here does.)
 */
export function routeConfig(req: FastifyRequest): RouteConfig {
  return (req.routeConfigRead ??= (req.routeOptions.config ?? {}) as RouteConfig);
}
