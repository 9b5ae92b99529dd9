// C2SP tlog-cosignature (Ed25519 `cosignature/v1`) and tlog-policy, with Node's crypto only.
//
// A witness's cosignature on a checkpoint is a note signature line `— <witness name> base64(key ID || u64 big-endian
// timestamp || Ed25519 signature)`, the key ID being SHA-256(name || "\n" || 0x04 || public key)[:4] and the signed
// message "cosignature/v1\ntime <timestamp>\n" followed by the checkpoint's text (its lines up to the blank line).
// A policy (https://c2sp.org/tlog-policy) lists the log, the witnesses and the quorum a reader should require.
import { type KeyObject, createPublicKey, sign, verify } from 'node:crypto';
import { sha256 } from './merkle.js';
import { NoteError, rawPublicKey } from './note.js';

const COSIGNATURE_TYPE = 0x04;
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export const cosignerKeyId = (name: string, publicKey: Buffer): Buffer =>
  sha256(Buffer.from(`${name}\n`, 'utf8'), Buffer.from([COSIGNATURE_TYPE]), publicKey).subarray(0, 4);

export const cosignerVerifierKey = (name: string, publicKey: Buffer): string =>
  `${name}+${cosignerKeyId(name, publicKey).toString('hex')}+${Buffer.concat([Buffer.from([COSIGNATURE_TYPE]), publicKey]).toString('base64')}`;

export interface Cosigner {
  name: string;
  keyId: Buffer;
  publicKey: Buffer;
}

export function parseCosignerKey(vkey: string): Cosigner {
  const m = /^([^+\s]+)\+([0-9a-f]{8})\+(\S+)$/.exec(vkey.trim());
  if (!m) throw new NoteError('a witness verifier key is name+hash+key');
  const raw = Buffer.from(m[3]!, 'base64');
  if (raw.length !== 33 || raw[0] !== COSIGNATURE_TYPE) throw new NoteError('not an Ed25519 cosignature (type 0x04) verifier key');
  const publicKey = raw.subarray(1);
  const keyId = cosignerKeyId(m[1]!, publicKey);
  if (!keyId.equals(Buffer.from(m[2]!, 'hex'))) throw new NoteError('the witness verifier key hash does not match');
  return { name: m[1]!, keyId, publicKey };
}

export const cosignedMessage = (checkpointText: string, timestamp: number): Buffer =>
  Buffer.from(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`, 'utf8');

/** A cosignature line (with its final newline) on a checkpoint's text, by a witness's private key. */
export function cosign(name: string, key: KeyObject, checkpointText: string, timestamp: number): string {
  const ts = Buffer.alloc(8);
  ts.writeBigUInt64BE(BigInt(timestamp));
  const sig = sign(null, cosignedMessage(checkpointText, timestamp), key);
  return `\u2014 ${name} ${Buffer.concat([cosignerKeyId(name, rawPublicKey(key)), ts, sig]).toString('base64')}\n`;
}

/** The text of a note (its lines up to and including the one before the blank line) and its signature lines. */
export function splitNote(note: string): { text: string; lines: string[] } {
  const cut = note.indexOf('\n\n');
  if (cut < 0) throw new NoteError('malformed note');
  return { text: note.slice(0, cut + 1), lines: note.slice(cut + 2).split('\n').filter((l) => l !== '') };
}

/** Checks one signature line as a cosignature by `w` on `text`: its timestamp when it verifies, else null. */
export function checkCosignatureLine(line: string, w: Cosigner, text: string): number | null {
  const m = /^\u2014 (\S+) (\S+)$/u.exec(line);
  if (!m || m[1] !== w.name) return null;
  const sig = Buffer.from(m[2]!, 'base64');
  if (sig.length !== 76 || !sig.subarray(0, 4).equals(w.keyId)) return null;
  const ts = Number(sig.readBigUInt64BE(4));
  const pub = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, w.publicKey]), format: 'der', type: 'spki' });
  return verify(null, cosignedMessage(text, ts), pub, sig.subarray(12)) ? ts : null;
}

export interface PolicyWitness {
  name: string;
  vkey: string;
  url?: string | undefined;
}

export interface Policy {
  logs: { vkey: string; url?: string | undefined }[];
  witnesses: PolicyWitness[];
  groups: { name: string; k: number; members: string[] }[];
  quorum: string;
}

/** Parses a tlog-policy document; throws naming the line that is wrong. */
export function parsePolicy(text: string): Policy {
  const p: Policy = { logs: [], witnesses: [], groups: [], quorum: '' };
  const names = new Set<string>(['none']);
  let quorums = 0;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const f = line.split(/[ \t]+/);
    const bad = (why: string) => new NoteError(`policy line ${i + 1}: ${why}`);
    if (f[0] === 'log' && (f.length === 2 || f.length === 3)) p.logs.push({ vkey: f[1]!, url: f[2] });
    else if (f[0] === 'witness' && (f.length === 3 || f.length === 4)) {
      if (names.has(f[1]!)) throw bad(`the name ${f[1]} is defined twice`);
      parseCosignerKey(f[2]!);
      names.add(f[1]!);
      p.witnesses.push({ name: f[1]!, vkey: f[2]!, url: f[3] });
    } else if (f[0] === 'group' && f.length >= 4) {
      const members = f.slice(3);
      if (names.has(f[1]!)) throw bad(`the name ${f[1]} is defined twice`);
      if (members.some((m) => !names.has(m) || m === 'none')) throw bad('a group member is not defined above');
      if (new Set(members).size !== members.length) throw bad('a group lists a member twice');
      const k = f[2] === 'all' ? members.length : f[2] === 'any' ? 1 : /^[1-9][0-9]*$/.test(f[2]!) ? Number(f[2]) : NaN;
      if (!(k >= 1 && k <= members.length)) throw bad('a group threshold is all, any or 1…n');
      names.add(f[1]!);
      p.groups.push({ name: f[1]!, k, members });
    } else if (f[0] === 'quorum' && f.length === 2) {
      if (!names.has(f[1]!)) throw bad(`the quorum ${f[1]} is not defined above`);
      p.quorum = f[1]!;
      quorums++;
    } else throw bad('not a log, witness, group or quorum line');
  });
  if (quorums !== 1) throw new NoteError('a policy has exactly one quorum line');
  return p;
}

/** Whether the witnesses that cosigned satisfy the policy's quorum. */
export function quorumMet(p: Policy, vouched: ReadonlySet<string>): boolean {
  const met = (name: string): boolean => {
    if (name === 'none') return true;
    const g = p.groups.find((x) => x.name === name);
    if (!g) return vouched.has(name);
    return g.members.filter(met).length >= g.k;
  };
  return met(p.quorum);
}

/** The policy's witnesses whose valid cosignatures the note carries, with their timestamps. */
export function vouchers(p: Policy, note: string): { name: string; timestamp: number }[] {
  const { text, lines } = splitNote(note);
  const out: { name: string; timestamp: number }[] = [];
  for (const w of p.witnesses) {
    const c = parseCosignerKey(w.vkey);
    for (const l of lines) {
      const ts = checkCosignatureLine(l, c, text);
      if (ts !== null) {
        out.push({ name: w.name, timestamp: ts });
        break;
      }
    }
  }
  return out;
}
