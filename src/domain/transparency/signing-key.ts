// The log's signing key: given by a setting (LOG_SIGNING_KEY, the same on every instance of one log), or made at
// first start in DATA_DIR (mode 0600) and kept there. Loaded when first needed, so commands that never sign
// (migrate, seed) never make one.
import fs from 'node:fs';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import { type NoteSigner, generatePrivateKey, noteSigner, parsePrivateKey, privateKeyPem, rawPublicKey } from './note.js';
import { cosignerVerifierKey } from './cosignature.js';

export const KEY_FILE = 'log-signing-key.pem';

export const WITNESS_KEY_FILE = 'witness-signing-key.pem';

export interface WitnessKey {
  /** The witness's name: its cosignatures' key name. */
  name: string;
  key: KeyObject;
  /** name+hex(key ID)+base64(0x04 || public key): what log operators list. */
  verifierKey: string;
}

export interface LogKeys {
  /** The log's origin, also the key name (C2SP tlog-checkpoint). */
  origin: string;
  signer(): NoteSigner;
  /** This service's key as a witness of other logs (WITNESS_SIGNING_KEY, or made at first use in DATA_DIR). */
  witness(): WitnessKey;
}

/** The default witness name: the site's host and path plus `/witness`. */
export function defaultWitnessName(siteUrl: string): string {
  const u = new URL(siteUrl);
  return `${u.host}${u.pathname.replace(/\/+$/, '')}/witness`;
}

/**
 * The default origin: the site's host and path, without a scheme, plus `/log/v2` (e.g. `credence.example/log/v2`): the
 * log restarted under a new origin when its entries moved to committed personal fields (migration 0014).
 */
export function defaultOrigin(siteUrl: string): string {
  const u = new URL(siteUrl);
  return `${u.host}${u.pathname.replace(/\/+$/, '')}/log/v2`;
}

export function loadOrCreateKeyFile(dataDir: string, name = KEY_FILE): KeyObject {
  const file = path.join(dataDir, name);
  try {
    return parsePrivateKey(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read the log signing key ${file}: ${(err as Error).message}`);
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const key = generatePrivateKey();
  try {
    // 'wx': two processes starting at once on one DATA_DIR cannot both write a key; the loser reads the winner's.
    fs.writeFileSync(file, privateKeyPem(key), { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parsePrivateKey(fs.readFileSync(file, 'utf8'));
    throw err;
  }
}

export function logKeys(opts: {
  origin: string;
  signingKey?: string | undefined;
  dataDir: string;
  witnessName?: string | undefined;
  witnessSigningKey?: string | undefined;
}): LogKeys {
  let signer: NoteSigner | undefined;
  let witness: WitnessKey | undefined;
  return {
    origin: opts.origin,
    witness() {
      if (!witness) {
        const name = opts.witnessName ?? opts.origin.replace(/\/log$/, '') + '/witness';
        const key = opts.witnessSigningKey ? parsePrivateKey(opts.witnessSigningKey) : loadOrCreateKeyFile(opts.dataDir, WITNESS_KEY_FILE);
        witness = { name, key, verifierKey: cosignerVerifierKey(name, rawPublicKey(key)) };
      }
      return witness;
    },
    signer() {
      signer ??= noteSigner(opts.origin, opts.signingKey ? parsePrivateKey(opts.signingKey) : loadOrCreateKeyFile(opts.dataDir));
      return signer;
    },
  };
}
