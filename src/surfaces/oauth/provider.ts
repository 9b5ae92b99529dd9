// The authorization server (docs/decisions/oauth-authorization-server.md): oidc-provider, configured for OAuth 2.1's
// code flow only, storing everything in our database so every instance sees every grant.
import Provider, { errors } from 'oidc-provider';
import type { Deps } from '../../domain/deps.js';
import { SCOPES } from '../../domain/oauth/oauth.service.js';
import { providerAdapter } from '../../domain/oauth/oauth.store.js';
import { loadOAuthKeys } from '../../domain/oauth/keys.js';

export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  registration: '/oauth/register',
  jwks: '/oauth/jwks',
} as const;

/** The resource every token is for: this service's integration API. */
export const apiResource = (deps: Deps) => `${deps.config.siteUrl}/api/v1`;

const DAY = 86_400;

export function buildProvider(deps: Deps): Provider {
  const resource = apiResource(deps);
  // Plain http to a loopback site only where plain http is allowed at all (REQUIRE_HTTPS off: development, tests).
  const production = deps.config.requireHttps;
  // Never the provider's development keys: ours, from OAUTH_KEYS or DATA_DIR (domain/oauth/keys.ts).
  const keys = loadOAuthKeys(deps.config);
  const provider = new Provider(deps.config.siteUrl, {
    adapter: providerAdapter(deps.db),
    jwks: keys.jwks as never,
    cookies: { keys: keys.cookieKeys },
    routes: OAUTH_ROUTES,
    scopes: [...SCOPES],
    claims: {},
    // Each site registers itself (RFC 7591) as a client of the code flow, public (PKCE) or with a secret.
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) throw new Error('unknown resource');
          return { scope: SCOPES.join(' '), accessTokenFormat: 'opaque', accessTokenTTL: deps.config.oauthAccessTokenTtlSeconds };
        },
      },
    },
    responseTypes: ['code'],
    extraClientMetadata: {
      // RFC 7591's software_id, kept as sent; listed so that the validator below runs on every registration (the
      // provider calls it once per extra property, with the whole metadata).
      properties: ['software_id'],
      // A client is one site: every redirect URI on one host, https but for loopback where plain http is allowed;
      // that host is the name the consent page gives the site.
      validator(_ctx: unknown, _key: string, _value: unknown, metadata: { redirect_uris?: unknown }) {
        const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
        const urls = uris.map((v) => new URL(String(v)));
        if (new Set(urls.map((u) => u.host)).size > 1) throw new errors.InvalidClientMetadata('redirect_uris must all be on one host: the site’s own');
        for (const u of urls) {
          const loopback = u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]';
          if (u.protocol !== 'https:' && !(loopback && !production)) throw new errors.InvalidClientMetadata('redirect_uris must use https');
        }
      },
    },
    pkce: { required: () => true },
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: deps.config.oauthAccessTokenTtlSeconds,
      AuthorizationCode: 60,
      Interaction: 3600,
      Session: 3600,
      Grant: 365 * DAY,
      RefreshToken: 30 * DAY,
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/oauth/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
  });
  // The provider sees the request as our proxy settings say (X-Forwarded-Proto behind TRUST_PROXY).
  provider.proxy = deps.config.trustProxy !== false;
  return provider;
}
