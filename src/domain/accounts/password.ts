// scrypt from node:crypto with a per-account salt (SPEC §5). Stored as `scrypt$N$r$p$salt$hash`, so the cost can
// rise without breaking existing hashes: a hash made at a lower cost is replaced at the account's next log-in.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';

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

/**
 * How many password hashes run at once in this process. scrypt runs on libuv's thread pool (4 threads by default),
 * which file reads, DNS lookups and compression share: two slots leave the rest of the pool free, and past them a
 * hash waits its turn in its lane.
 */
export const HASHES_AT_ONCE = 2;
/** Durations kept for the running median a verification takes. */
const DURATIONS_KEPT = 31;

/**
 * Every password hash and verification of the process goes through here (one per process, in Deps). Hashes run
 * at most `concurrency` at once, waiting in lanes (the caller's address for a log-in, the account for its own
 * changes) taken in turn, so one lane flooding cannot keep another waiting behind all of its work. A log-in for an
 * address no account has does no hashing at all: it waits as long as a verification takes (the median of recent
 * ones, as their callers saw them, queueing included, with a little jitter), so the answer's timing does not tell
 * which addresses exist, and a flood of such log-ins costs no CPU and queues nothing.
 */
export class Passwords {
  private running = 0;
  /** Waiters by lane, and the lanes with waiters in the order they are served. */
  private readonly lanes = new Map<string, (() => void)[]>();
  private readonly turn: string[] = [];
  private readonly durations: number[] = [];
  private calibration: Promise<void> | null = null;

  constructor(
    /** The cost of new hashes, as log2 N (SCRYPT_LOG_N but in tests). */
    readonly logN: number = SCRYPT_LOG_N,
    private readonly opts: { concurrency?: number; random?: () => number } = {},
  ) {}

  hash(password: string, lane: string): Promise<string> {
    return this.slot(lane, () => hashPassword(password, this.logN));
  }

  async verify(password: string, stored: string, lane: string): Promise<boolean> {
    const started = performance.now();
    const ok = await this.slot(lane, () => verifyPassword(password, stored));
    this.remember(performance.now() - started);
    return ok;
  }

  needsRehash(stored: string): boolean {
    return needsRehash(stored, this.logN);
  }

  /**
   * Wait about as long as a verification takes, doing none. Before any verification was timed, one hash at the
   * current cost is timed once (the first caller's wait; later callers share it).
   */
  async imitate(): Promise<void> {
    if (this.durations.length === 0) {
      this.calibration ??= this.slot('calibration', async () => {
        const started = performance.now();
        await hashPassword('calibration', this.logN);
        this.remember(performance.now() - started);
      });
      await this.calibration;
      return;
    }
    const jitter = 0.9 + 0.2 * (this.opts.random ?? Math.random)();
    await new Promise((resolve) => setTimeout(resolve, this.median() * jitter));
  }

  /** The median of the recent verifications, in milliseconds (0 before any). */
  median(): number {
    if (this.durations.length === 0) return 0;
    const sorted = [...this.durations].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }

  private remember(ms: number): void {
    this.durations.push(ms);
    if (this.durations.length > DURATIONS_KEPT) this.durations.shift();
  }

  private async slot<T>(lane: string, work: () => Promise<T>): Promise<T> {
    if (this.running >= (this.opts.concurrency ?? HASHES_AT_ONCE)) {
      await new Promise<void>((resolve) => {
        const waiters = this.lanes.get(lane);
        if (waiters) waiters.push(resolve);
        else {
          this.lanes.set(lane, [resolve]);
          this.turn.push(lane);
        }
      });
    } else this.running++;
    try {
      return await work();
    } finally {
      this.next();
    }
  }

  /** Hand the freed slot to the next lane in turn (its oldest waiter), or free it. */
  private next(): void {
    const lane = this.turn.shift();
    if (lane === undefined) {
      this.running--;
      return;
    }
    const waiters = this.lanes.get(lane)!;
    const resolve = waiters.shift()!;
    if (waiters.length > 0) this.turn.push(lane);
    else this.lanes.delete(lane);
    resolve();
  }
}
