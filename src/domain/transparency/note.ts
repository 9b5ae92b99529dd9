// C2SP signed-note and tlog-checkpoint (https://c2sp.org/signed-note, https://c2sp.org/tlog-checkpoint) with an
// Ed25519 key, using Node's crypto only.
//
//   <origin>\n<tree size>\n<base64 root hash>\n        ← the checkpoint: the note's text
//   \n
//   — <key name> <base64(key hash (4 bytes) || signature (64 bytes))>\n
//
// The key hash is the first 4 bytes of SHA-256(key name || 0x0A || 0x01 || public key); 0x01 is Ed25519's
// signature type. The verifier key is published as `<name>+<hex key hash>+<base64(0x01 || public key)>`.
import { type KeyObject, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { sha256 } from './merkle.js';

const ED25519 = 0x01;
// A PKCS#8 wrapper for a raw 32-byte Ed25519 seed (RFC 8410): the DER header, then the seed.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
// An SPKI wrapper for a raw 32-byte Ed25519 public key.
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export class NoteError extends Error {}

export interface NoteSigner {
  name: string;
  publicKey: Buffer;
  keyHash: Buffer;
  verifierKey: string;
  sign(text: string): string;
}

/** Key names are the log's origin; the note format forbids '+' and whitespace in them. */
export function checkKeyName(name: string): void {
  if (!name || /[\s+]/u.test(name)) throw new NoteError(`a note key name may not be empty or contain "+" or spaces: "${name}"`);
}

export function keyHashOf(name: string, publicKey: Buffer): Buffer {
  return sha256(Buffer.from(`${name}\n`, 'utf8'), Buffer.from([ED25519]), publicKey).subarray(0, 4);
}

export const verifierKeyOf = (name: string, publicKey: Buffer): string =>
  `${name}+${keyHashOf(name, publicKey).toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), publicKey]).toString('base64')}`;

/** The raw 32-byte public key of an Ed25519 key object. */
export function rawPublicKey(key: KeyObject): Buffer {
  const der = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return Buffer.from(der.subarray(der.length - 32));
}

/**
 * An Ed25519 private key from a setting: base64 (or base64url, or hex) of a 32-byte seed, base64 of PKCS#8 DER, or
 * a PKCS#8 PEM.
 */
export function parsePrivateKey(text: string): KeyObject {
  const t = text.trim();
  try {
    let key: KeyObject;
    if (t.startsWith('-----BEGIN')) key = createPrivateKey(t);
    else {
      const raw = /^[0-9a-f]{64}$/i.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, t.includes('-') || t.includes('_') ? 'base64url' : 'base64');
      const der = raw.length === 32 ? Buffer.concat([PKCS8_PREFIX, raw]) : raw;
      key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    }
    if (key.asymmetricKeyType !== 'ed25519') throw new NoteError(`the key is ${key.asymmetricKeyType}, not Ed25519`);
    return key;
  } catch (err) {
    if (err instanceof NoteError) throw err;
    throw new NoteError('not an Ed25519 private key (expected base64 of a 32-byte seed, or PKCS#8 as PEM or base64 DER)');
  }
}

export const generatePrivateKey = (): KeyObject => generateKeyPairSync('ed25519').privateKey;

export const privateKeyPem = (key: KeyObject): string => key.export({ format: 'pem', type: 'pkcs8' }).toString();

export function noteSigner(name: string, key: KeyObject): NoteSigner {
  checkKeyName(name);
  const publicKey = rawPublicKey(key);
  const keyHash = keyHashOf(name, publicKey);
  return {
    name,
    publicKey,
    keyHash,
    verifierKey: verifierKeyOf(name, publicKey),
    sign(text: string): string {
      if (!text.endsWith('\n')) throw new NoteError('a note text ends with a newline');
      const signature = sign(null, Buffer.from(text, 'utf8'), key);
      return `${text}\n\u2014 ${name} ${Buffer.concat([keyHash, signature]).toString('base64')}\n`;
    },
  };
}

export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
}

export const checkpointText = (c: Checkpoint): string => `${c.origin}\n${c.size}\n${c.root.toString('base64')}\n`;

export interface ParsedVerifier {
  name: string;
  keyHash: Buffer;
  publicKey: Buffer;
}

export function parseVerifierKey(vkey: string): ParsedVerifier {
  // The name holds no '+' and the hash is hex; the base64 key may hold '+'.
  const m = /^([^+\s]+)\+([^+]*)\+(\S+)$/.exec(vkey.trim());
  if (!m) throw new NoteError('a verifier key is name+hash+key');
  const [, name, hash, b64] = m as unknown as [string, string, string, string];
  const raw = Buffer.from(b64, 'base64');
  if (!/^[0-9a-f]{8}$/.test(hash) || raw.length !== 33 || raw[0] !== ED25519) throw new NoteError('not an Ed25519 verifier key');
  const publicKey = raw.subarray(1);
  if (!keyHashOf(name, publicKey).equals(Buffer.from(hash, 'hex'))) throw new NoteError('the verifier key hash does not match');
  return { name, keyHash: Buffer.from(hash, 'hex'), publicKey };
}

/** Checks a signed note against a verifier key; answers its text, or throws saying why not. */
export function openNote(note: string, vkey: string): string {
  const v = parseVerifierKey(vkey);
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new NoteError('malformed note');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  const spki = Buffer.concat([SPKI_PREFIX, v.publicKey]);
  const pub = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  for (const line of lines) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line);
    if (!m || m[1] !== v.name) continue;
    const sig = Buffer.from(m[2]!, 'base64');
    if (sig.length !== 68 || !sig.subarray(0, 4).equals(v.keyHash)) continue;
    if (verify(null, Buffer.from(text, 'utf8'), pub, sig.subarray(4))) return text;
    throw new NoteError('the signature does not verify');
  }
  throw new NoteError(`no signature by ${v.name} on the note`);
}

export function parseCheckpoint(text: string): Checkpoint {
  const lines = text.split('\n');
  const [origin, size, root] = lines;
  const rootBytes = Buffer.from(root ?? '', 'base64');
  if (!origin || !/^[0-9]{1,16}$/.test(size ?? '') || rootBytes.length !== 32) throw new NoteError('malformed checkpoint');
  return { origin, size: Number(size), root: rootBytes };
}
