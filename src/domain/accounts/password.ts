// scrypt from node:crypto with a per-account salt (SPEC §5). Stored as `scrypt$N$r$p$salt$hash`, so the cost can
// rise without breaking existing hashes: a hash made at a lower cost is replaced at the account's next log-in.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** Current guidance (OWASP, RFC 7914's interactive figure raised): N = 2^17, r = 8, p = 1; 128 MiB per hash. */
export const SCRYPT_LOG_N = 17;
const R = 8;
const P = 1;
const KEYLEN = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node refuses anything above `maxmem` (32 MiB by default), so allow that much and a
  // margin. A stored hash sets its own N, and only hashes this code wrote are ever read.
  const maxmem = 128 * n * r * p + 32 * 1024 * 1024;
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEYLEN, { N: n, r, p, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `logN`: the cost, 2^logN. Production always uses SCRYPT_LOG_N; only the test harness passes less. */
export async function hashPassword(password: string, logN = SCRYPT_LOG_N): Promise<string> {
  const n = 2 ** logN;
  const salt = randomBytes(16);
  const key = await derive(password, salt, n, R, P);
  return `scrypt$${n}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** True when a stored hash was made with other parameters than today's: it is replaced at the next log-in. */
export function needsRehash(stored: string, logN = SCRYPT_LOG_N): boolean {
  const [, n, r, p] = stored.split('$');
  return Number(n) !== 2 ** logN || Number(r) !== R || Number(p) !== P;
}

const dummies = new Map<number, string>();
/**
 * A hash to compare against when the account does not exist, at the current cost, so timing does not reveal
 * which emails exist.
 */
export function dummyHash(logN = SCRYPT_LOG_N): string {
  let h = dummies.get(logN);
  if (!h) {
    h = `scrypt$${2 ** logN}$${R}$${P}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEYLEN).toString('base64url')}`;
    dummies.set(logN, h);
  }
  return h;
}
