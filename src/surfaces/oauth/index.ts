// The authorization server's protocol routes (docs/decisions/oauth-authorization-server.md). Each hands the raw
// request to oidc-provider, which answers as the RFCs say (its own body parsing, its `{error, error_description}`):
// the reply is hijacked, and no body parser of ours reads the stream first.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Deps } from '../../domain/deps.js';
import { OAUTH_ROUTES } from './provider.js';

const PROVIDER_METADATA = '/.well-known/openid-configuration';

export function oauthServer(_deps: Deps, provider: Provider) {
  const handle = provider.callback();
  const hand = (req: FastifyRequest, reply: FastifyReply) => {
    void reply.hijack();
    handle(req.raw, reply.raw);
  };
  return async function plugin(app: FastifyInstance) {
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
