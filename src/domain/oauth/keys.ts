// The authorization server's keys (docs/decisions/oauth-authorization-server.md): the JWKS it signs with and the keys
// of its cookies. From OAUTH_KEYS, or made at first start in DATA_DIR (oauth-keys.json, mode 0600) as the log's
// signing key is, so oidc-provider never falls back to its built-in development keys (public, in its source).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const OAUTH_KEYS_FILE = 'oauth-keys.json';

export interface OAuthKeys {
  jwks: { keys: Record<string, unknown>[] };
  cookieKeys: string[];
}

function parse(text: string, where: string): OAuthKeys {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error(`${where} is not JSON`);
  }
  const k = v as Partial<OAuthKeys>;
  const keysOk = Array.isArray(k.jwks?.keys) && k.jwks.keys.length > 0 && k.jwks.keys.every((j) => typeof j === 'object' && j !== null && 'd' in j);
  const cookiesOk = Array.isArray(k.cookieKeys) && k.cookieKeys.length > 0 && k.cookieKeys.every((c) => typeof c === 'string' && c.length >= 32);
  if (!keysOk) throw new Error(`${where}: jwks.keys must hold at least one private JWK`);
  if (!cookiesOk) throw new Error(`${where}: cookieKeys must hold at least one key of 32 characters or more`);
  return k as OAuthKeys;
}

/** A new set: one RS256 signing key and one cookie key. */
export function generateOAuthKeys(): OAuthKeys {
  // RS256: the algorithm OAuth and OpenID clients assume when none is named (oidc-provider's client defaults).
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256', kid: randomBytes(8).toString('hex') };
  return { jwks: { keys: [jwk] }, cookieKeys: [randomBytes(32).toString('base64url')] };
}

export function loadOAuthKeys(opts: { oauthKeys?: string | undefined; dataDir: string }): OAuthKeys {
  if (opts.oauthKeys !== undefined) return parse(opts.oauthKeys, 'OAUTH_KEYS');
  const file = path.join(opts.dataDir, OAUTH_KEYS_FILE);
  try {
    return parse(fs.readFileSync(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const keys = generateOAuthKeys();
  try {
    // 'wx': two processes starting at once on one DATA_DIR cannot both write keys; the loser reads the winner's.
    fs.writeFileSync(file, JSON.stringify(keys), { mode: 0o600, flag: 'wx' });
    return keys;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parse(fs.readFileSync(file, 'utf8'), file);
    throw err;
  }
}
