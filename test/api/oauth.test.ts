// The authorization server, driven by a client nobody here wrote (oauth4webapi): its metadata at RFC 8414's address,
// a site registering itself (RFC 7591, one host per client), and the authorization endpoint refusing a request
// without PKCE or with `plain` before any page is shown. The issuer is SITE_URL (https://credence.test); the client's
// requests go to the test's loopback port through its customFetch, as through a proxy that terminates TLS.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_KEYSTORE } from 'oidc-provider/lib/consts/index.js';
import { generateOAuthKeys } from '../../src/domain/oauth/keys.js';
import { deleteExpiredRecords } from '../../src/domain/oauth/oauth.store.js';
import { eraseAccount } from '../../src/domain/privacy/erasure.service.js';
import { signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
const issuer = new URL('https://credence.test');
const viaLoopback: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const headers = new Headers(input instanceof Request ? input.headers : init?.headers);
  headers.set('x-forwarded-proto', 'https');
  headers.set('x-forwarded-host', url.host);
  return fetch(`${t.baseUrl}${url.pathname}${url.search}`, { ...init, method: input instanceof Request ? input.method : init?.method, headers, redirect: 'manual' });
};
const opts = { [oauth.customFetch]: viaLoopback };
// Keys of its own per test app, so no test writes oauth-keys.json into ./data.
const oauthKeys = () => JSON.stringify(generateOAuthKeys());

beforeAll(async () => {
  t = await startTestApp({ oauthEnabled: true, oauthKeys: oauthKeys(), rateLimitAllowlist: ['127.0.0.1'] });
});
afterAll(async () => t?.close());

async function metadata() {
  const res = await oauth.discoveryRequest(issuer, { ...opts, algorithm: 'oauth2' });
  return oauth.processDiscoveryResponse(issuer, res);
}

async function register(body: Record<string, unknown>) {
  return viaLoopback('https://credence.test/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('OAUTH_ENABLED', () => {
  it('off (the default), no route of the server and neither metadata address exists', async () => {
    const off = await startTestApp();
    try {
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/oauth/authorize', '/oauth/jwks']) {
        expect((await fetch(`${off.baseUrl}${path}`)).status, path).toBe(404);
      }
      expect((await fetch(`${off.baseUrl}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('on, signs with its own keys, never oidc-provider’s development ones', async () => {
    const res = await viaLoopback('https://credence.test/oauth/jwks');
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: { d?: string; n?: string; x?: string }[] };
    expect(keys.length).toBeGreaterThan(0);
    const devPublic = new Set(DEV_KEYSTORE.keys.map((k) => k.n ?? k.x));
    for (const k of keys) {
      expect(k.d).toBeUndefined();
      expect(devPublic.has(k.n ?? k.x)).toBe(false);
    }
  });

  it('answers with the site’s security headers', async () => {
    const res = await viaLoopback('https://credence.test/.well-known/oauth-authorization-server');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
  });

  it('limits each address (no allowlist): past the bucket, 429 with Retry-After', async () => {
    const limited = await startTestApp({ oauthEnabled: true, oauthKeys: oauthKeys() });
    try {
      let last: Response | undefined;
      for (let i = 0; i < 40; i++) {
        last = await fetch(`${limited.baseUrl}/oauth/jwks`);
        if (last.status === 429) break;
        expect(last.headers.get('ratelimit-limit') ?? last.headers.get('x-ratelimit-limit') ?? last.headers.get('ratelimit-policy')).not.toBeNull();
      }
      expect(last?.status).toBe(429);
      expect(last?.headers.get('retry-after')).toEqual(expect.any(String));
    } finally {
      await limited.close();
    }
  });
});

describe('metadata (RFC 8414)', () => {
  it('names the endpoints, the code flow only and S256 only', async () => {
    const as = await metadata();
    expect(as.issuer).toBe('https://credence.test');
    expect(as.authorization_endpoint).toBe('https://credence.test/oauth/authorize');
    expect(as.token_endpoint).toBe('https://credence.test/oauth/token');
    expect(as.revocation_endpoint).toBe('https://credence.test/oauth/revoke');
    expect(as.registration_endpoint).toBe('https://credence.test/oauth/register');
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['pages:write', 'requests', 'decisions', 'webhooks', 'profile:read']));
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(as.grant_types_supported).not.toContain('implicit');
  });
});

describe('a site registers itself (RFC 7591)', () => {
  it('is a public client of the code flow, named by its host', async () => {
    const res = await register({ client_name: 'Example News', redirect_uris: ['https://news.example/wp-admin/admin.php?page=credence'] });
    expect(res.status).toBe(201);
    const client = (await res.json()) as Record<string, unknown>;
    expect(client.client_id).toEqual(expect.any(String));
    expect(client.token_endpoint_auth_method).toBe('none');
    expect(client.grant_types).toEqual(['authorization_code', 'refresh_token']);
    expect(client.registration_access_token).toEqual(expect.any(String));
  });

  it('refuses redirect URIs on two hosts, or plain http outside loopback', async () => {
    const cases: [string[], string][] = [
      [['https://a.example/cb', 'https://b.example/cb'], 'invalid_redirect_uri'],
      [['http://news.example/cb'], 'invalid_redirect_uri'],
    ];
    for (const [redirect_uris, error] of cases) {
      const res = await register({ client_name: 'Two', redirect_uris });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error, body.error_description).toBe(error);
    }
  });

  it('keeps the client in the database, not only in this process', async () => {
    const res = await register({ client_name: 'Stored', redirect_uris: ['https://stored.example/cb'] });
    const { client_id } = (await res.json()) as { client_id: string };
    const rows = await t.runtime.deps.db.selectFrom('oauth_records').select(['model', 'id_hash', 'payload']).where('model', '=', 'Client').execute();
    expect(rows.some((r) => JSON.parse(r.payload).client_id === client_id)).toBe(true);
  });
});

describe('the authorization endpoint', () => {
  let clientId: string;
  const redirect = 'https://pkce.example/cb';
  beforeAll(async () => {
    const res = await register({ client_name: 'PKCE', redirect_uris: [redirect] });
    clientId = ((await res.json()) as { client_id: string }).client_id;
  });
  const authorize = (params: Record<string, string>) => {
    const url = new URL('https://credence.test/oauth/authorize');
    for (const [k, v] of Object.entries({ client_id: clientId, response_type: 'code', scope: 'pages:write', redirect_uri: redirect, state: 's', ...params })) url.searchParams.set(k, v);
    return viaLoopback(url.href);
  };
  const errorOf = (res: Response) => new URL(res.headers.get('location') ?? 'https://x/').searchParams.get('error');

  it('refuses a request without PKCE, or with plain', async () => {
    expect(errorOf(await authorize({}))).toBe('invalid_request');
    expect(errorOf(await authorize({ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }))).toBe('invalid_request');
  });

  it('sends an S256 request on to our log-in and consent page', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const res = await authorize({ code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/oauth\/interaction\/[\w-]+$/);
  });

  it('never redirects to an address that was not registered', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const res = await authorize({ redirect_uri: 'https://pkce.example/other', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
});

describe('records of people and of time', () => {
  const record = (model: string, id: string, payload: Record<string, unknown>, expiresAt: string | null, grantId: string | null = null) =>
    t.runtime.deps.db
      .insertInto('oauth_records')
      .values({ model, id_hash: id, payload: JSON.stringify(payload), grant_id: grantId, uid: null, expires_at: expiresAt, consumed_at: null })
      .execute();
  const left = async () => (await t.runtime.deps.db.selectFrom('oauth_records').select('id_hash').execute()).map((r) => r.id_hash).sort();

  it('an erasure deletes the account’s sessions, grants and tokens, and no one else’s', async () => {
    const gone = await signup(t);
    const kept = await signup(t);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const goneId = String(gone.id);
    await record('Session', 'erase-session', { accountId: goneId }, later);
    await record('Grant', 'erase-grant', { accountId: goneId }, later);
    await record('RefreshToken', 'erase-token', { accountId: goneId, grantId: 'g-erased' }, later, 'g-erased');
    await record('Session', 'keep-session', { accountId: String(kept.id) }, later);
    // The account whose id ends like the erased one's (12 and 112) is not matched by its id.
    await record('Session', 'keep-suffix', { accountId: `1${goneId}` }, later);
    await eraseAccount(t.runtime.deps, gone.id, { force: true });
    const rows = await left();
    expect(rows.filter((r) => r.startsWith('erase-'))).toEqual([]);
    expect(rows).toEqual(expect.arrayContaining(['keep-session', 'keep-suffix']));
  });

  it('deletes expired records', async () => {
    await record('Interaction', 'stale-interaction', {}, new Date(Date.now() - 1000).toISOString());
    await record('Client', 'forever-client', {}, null);
    expect(await deleteExpiredRecords(t.runtime.deps.db)).toBeGreaterThan(0);
    const rows = await left();
    expect(rows).not.toContain('stale-interaction');
    expect(rows).toContain('forever-client');
  });
});
