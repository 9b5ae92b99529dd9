// The issuer of verifiable credentials: the service as the did:web of SITE_URL, with its own Ed25519 key (not the
// log's: a leaked or rotated credential key must not touch the log's checkpoints). The key is given by
// CREDENTIAL_SIGNING_KEY or made at first use in DATA_DIR, as the log's is (transparency/signing-key.ts), and loaded
// once per configuration.
import type { Config } from '../../config.js';
import type { JsonWebKey } from 'node:crypto';
import { parsePrivateKey } from '../transparency/note.js';
import { loadOrCreateKeyFile } from '../transparency/signing-key.js';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { DID_V1_CONTEXT, MULTIKEY_V1_CONTEXT } from './contexts.js';

export const CREDENTIAL_KEY_FILE = 'credential-signing-key.pem';

export interface Issuer {
  did: string;
  keyId: string;
  key: Ed25519Multikey.KeyPair;
  /** The private key as a JWK (for VC-JWT signing with jose). */
  privateJwk: JsonWebKey;
  didDocument: DidDocument;
}

export interface DidDocument {
  '@context': string[];
  id: string;
  verificationMethod: { id: string; type: 'Multikey'; controller: string; publicKeyMultibase: string }[];
  assertionMethod: string[];
}

/**
 * did:web of a site URL (W3C did:web): the host, its port's colon as %3A, and each path segment after a colon.
 * Without a path, the document is at /.well-known/did.json.
 */
export function didWebOf(siteUrl: string): string {
  const u = new URL(siteUrl);
  const path = u.pathname.replace(/\/+$/, '').split('/').filter(Boolean).map(encodeURIComponent);
  return ['did:web', encodeURIComponent(u.host), ...path].join(':');
}

const issuers = new WeakMap<Config, Promise<Issuer>>();

export function issuerOf(config: Config): Promise<Issuer> {
  let p = issuers.get(config);
  if (!p) {
    p = loadIssuer(config);
    issuers.set(config, p);
    p.catch(() => issuers.delete(config));
  }
  return p;
}

async function loadIssuer(config: Config): Promise<Issuer> {
  const keyObject = config.credentialSigningKey ? parsePrivateKey(config.credentialSigningKey) : loadOrCreateKeyFile(config.dataDir, CREDENTIAL_KEY_FILE);
  const privateJwk = keyObject.export({ format: 'jwk' }) as JsonWebKey;
  const did = didWebOf(config.siteUrl);
  const keyId = `${did}#key-1`;
  const key = await Ed25519Multikey.fromJwk({ jwk: privateJwk, secretKey: true, id: keyId, controller: did });
  key.id = keyId;
  key.controller = did;
  const { publicKeyMultibase } = await key.export({ publicKey: true });
  return {
    did,
    keyId,
    key,
    privateJwk,
    didDocument: {
      '@context': [DID_V1_CONTEXT, MULTIKEY_V1_CONTEXT],
      id: did,
      verificationMethod: [{ id: keyId, type: 'Multikey', controller: did, publicKeyMultibase }],
      assertionMethod: [keyId],
    },
  };
}
