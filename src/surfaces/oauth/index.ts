// The authorization server's protocol routes (docs/decisions/oauth-authorization-server.md). Each hands the raw
// request to oidc-provider, which answers as the RFCs say (its own body parsing, its `{error, error_description}`):
// the reply is hijacked, and no body parser of ours reads the stream first. Mounted only under OAUTH_ENABLED (app.ts).
// A hijacked reply skips Fastify's onSend, so each answer is given the site's security headers here, and every
// request first spends from a per-address bucket of the limiter the other surfaces use.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Deps } from '../../domain/deps.js';
import { rateLimited } from '../../http/errors.js';
import { rateLimitHeaders } from '../../http/rate-limit.js';
import { answerHeaders } from '../../http/security-headers.js';
import { allowlist } from '../../http/surface.js';
import { OAUTH_ROUTES } from './provider.js';

/** Per address: a site's few calls an hour and a person's few page loads fit well inside it; a guesser does not. */
const OAUTH_POLICY = { name: 'oauth-ip', capacity: 30, rate: 0.5 };

const PROVIDER_METADATA = '/.well-known/openid-configuration';

export function oauthServer(deps: Deps, provider: Provider) {
  const handle = provider.callback();
  const exempt = allowlist(deps.config.rateLimitAllowlist);
  const hand = (req: FastifyRequest, reply: FastifyReply) => {
    for (const [name, value] of Object.entries(answerHeaders(req, { ...(reply.getHeaders() as Record<string, string>) }))) reply.raw.setHeader(name, value as string);
    void reply.hijack();
    handle(req.raw, reply.raw);
  };
  return async function plugin(app: FastifyInstance) {
    // Refused answers (429) go through Fastify, which gives them the headers; an allowed one carries its bucket's.
    app.addHook('onRequest', async (req, reply) => {
      if (exempt(req.ip)) return;
      const result = await deps.rateLimiter.limit(`oauth:${req.ip}`, OAUTH_POLICY);
      const headers = rateLimitHeaders(OAUTH_POLICY, result);
      void reply.headers(headers);
      if (!result.allowed) throw rateLimited(result.retryAfterSeconds, headers);
    });
    // The provider reads its own bodies (forms and JSON); a parser here would drain the stream before it.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_req, _payload, done) => done(null));
    const config = { hidden: true };
    // RFC 8414's address for the same document the provider serves as OpenID discovery.
    app.get('/.well-known/oauth-authorization-server', { config }, (req, reply) => {
      req.raw.url = PROVIDER_METADATA;
      hand(req, reply);
    });
    app.get(PROVIDER_METADATA, { config }, hand);
    app.get(OAUTH_ROUTES.authorization, { config }, hand);
    app.post(OAUTH_ROUTES.authorization, { config }, hand);
    app.post(OAUTH_ROUTES.token, { config }, hand);
    app.post(OAUTH_ROUTES.revocation, { config }, hand);
    app.post(OAUTH_ROUTES.registration, { config }, hand);
    app.get(`${OAUTH_ROUTES.registration}/:clientId`, { config }, hand);
    app.get(OAUTH_ROUTES.jwks, { config }, hand);
    // The provider's own step after an interaction finishes (`/oauth/authorize/:uid`).
    app.get(`${OAUTH_ROUTES.authorization}/:uid`, { config }, hand);
  };
}
