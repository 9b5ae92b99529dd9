// scrypt from node:crypto with a per-account salt (SPEC §5). Stored as `scrypt$N$r$p$salt$hash`, so the cost can
// rise without breaking existing hashes: a hash made at a lower cost is replaced at the account's next log-in.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DomainError } from '../errors.js';

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
 * hash waits its turn.
 */
export const HASHES_AT_ONCE = 2;
/** Durations kept for the running median a hash takes. */
const DURATIONS_KEPT = 31;

/** A place held for one caller's work in a lane (an address's log-in): see Passwords.hold. */
export interface Hold {
  readonly lane: string;
  release(): void;
}

export interface TurnOptions {
  /**
   * How suspect the caller already is: the address's recent log-in failures. Added to the lane's other work in
   * flight, it orders the queue (lowest first).
   */
  rank?: number;
  /**
   * The account a log-in names (its normalised email, whether an account has it or not): while other log-ins are at
   * the same one, this waits behind those of its rank at accounts nobody else is at.
   */
  account?: string;
  /** Aborted when the caller's client has gone: the work leaves the queue and never hashes. */
  signal?: AbortSignal;
}

/** The caller left before its turn: nobody is there to answer, and no hash was made. */
export const clientGone = () => new DomainError('invalid_request', 'The request closed before its password was checked');

interface Waiter {
  /** The caller's failures (TurnOptions.rank). */
  failures: number;
  lane: string;
  account: string | undefined;
  start(): void;
}

/**
 * Every password hash and verification of the process goes through here (one per process, in Deps), at most
 * `concurrency` at once. Past that, work waits, ordered by rank: the caller's own failures (TurnOptions.rank) plus
 * how much other work of its lane (the caller's address for a log-in, the account for its own changes) is in flight
 * when a slot frees. The lowest rank goes first; within a rank, a log-in naming an account no other log-in is at goes before
 * one naming an account others are at; then the newest. So a real person's first try comes next whenever a slot
 * frees, whatever a flood of guesses has queued: every guess after an address's first ranks higher, and a burst of
 * first tries that arrived earlier does not keep it waiting behind all of them; one at an account nobody is
 * guessing at does not even wait for first tries that arrive after it (docs/decisions/login-throttling.md). Work
 * whose caller has gone (TurnOptions.signal) leaves the queue at once. Work above rank 0 uses all slots but one, so
 * a first try finds one free and waits for no hash at all, however many guesses wait.
 *
 * A log-in for an address no account has does no hashing (imitate): it takes its turn in the same queue, by the same
 * rules, then hands the slot straight on and waits as long as a hash takes (the median of recent ones, with a little
 * jitter). Its answer waits as a real one would (only hashes hold slots, so both wait for the same hashes ahead of
 * them), a client leaving before its turn is treated alike, and it costs no CPU and keeps nobody waiting.
 */
export class Passwords {
  private running = 0;
  /** Waiting work, oldest first. */
  private readonly queue: Waiter[] = [];
  /** Work held or in flight, by lane. */
  private readonly holds = new Map<string, number>();
  /** Log-ins waiting or hashing, by the account they name. */
  private readonly accounts = new Map<string, number>();
  private readonly durations: number[] = [];
  private hashes = 0;
  private turnsTaken = 0;

  constructor(
    /** The cost of new hashes, as log2 N (SCRYPT_LOG_N but in tests). */
    readonly logN: number = SCRYPT_LOG_N,
    private readonly opts: { concurrency?: number; random?: () => number } = {},
  ) {}

  /**
   * Hold a place in `lane` for one caller's work until released (a log-in holds its address's from its first read
   * to its answer); null when `max` are held already. While held, the lane's other work ranks behind it.
   */
  hold(lane: string, max = Infinity): Hold | null {
    const held = this.holds.get(lane) ?? 0;
    if (held >= max) return null;
    this.holds.set(lane, held + 1);
    let released = false;
    return {
      lane,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.holds.get(lane) ?? 1) - 1;
        if (left > 0) this.holds.set(lane, left);
        else this.holds.delete(lane);
      },
    };
  }

  hash(password: string, lane: string | Hold, turn: TurnOptions = {}): Promise<string> {
    return this.slot(lane, turn, () => this.timed(() => hashPassword(password, this.logN)));
  }

  verify(password: string, stored: string, lane: string | Hold, turn: TurnOptions = {}): Promise<boolean> {
    return this.slot(lane, turn, () => this.timed(() => verifyPassword(password, stored)));
  }

  needsRehash(stored: string): boolean {
    return needsRehash(stored, this.logN);
  }

  /**
   * Take a turn as a verification would, hand the slot straight on, and wait as long as a hash takes, doing none.
   * Before any hash was timed, one at the current cost is made and timed instead.
   */
  imitate(lane: string | Hold = 'signup', turn: TurnOptions = {}): Promise<void> {
    return this.slot(lane, turn, async (free) => {
      if (this.durations.length === 0) {
        await this.timed(() => hashPassword('calibration', this.logN));
        return;
      }
      // The slot goes on at once: the wait costs nobody anything.
      free();
      const jitter = 0.9 + 0.2 * (this.opts.random ?? Math.random)();
      await new Promise((resolve) => setTimeout(resolve, this.median() * jitter));
    });
  }

  /** The median of the recent hashes, in milliseconds, the hashing alone (0 before any). */
  median(): number {
    if (this.durations.length === 0) return 0;
    const sorted = [...this.durations].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }

  /** Hashes started by this process (verifications included). */
  get hashesStarted(): number {
    return this.hashes;
  }

  /** Work that had its turn (hashes and imitations alike). */
  get turns(): number {
    return this.turnsTaken;
  }

  /** Work waiting for a slot now. */
  get waiting(): number {
    return this.queue.length;
  }

  private async timed<T>(work: () => Promise<T>): Promise<T> {
    this.hashes++;
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.durations.push(performance.now() - started);
      if (this.durations.length > DURATIONS_KEPT) this.durations.shift();
    }
  }

  private async slot<T>(lane: string | Hold, turn: TurnOptions, work: (free: () => void) => Promise<T>): Promise<T> {
    const own = typeof lane === 'string' ? this.hold(lane)! : null;
    const name = typeof lane === 'string' ? lane : lane.lane;
    if (turn.account !== undefined) this.accounts.set(turn.account, (this.accounts.get(turn.account) ?? 0) + 1);
    try {
      if (turn.signal?.aborted) throw clientGone();
      const who = { failures: turn.rank ?? 0, lane: name, account: turn.account };
      if (this.running >= this.slotsFor(this.rankOf(who))) await this.wait(who, turn.signal);
      else this.running++;
      this.turnsTaken++;
      let freed = false;
      const free = () => {
        if (freed) return;
        freed = true;
        this.next();
      };
      try {
        return await work(free);
      } finally {
        free();
      }
    } finally {
      own?.release();
      if (turn.account !== undefined) {
        const left = this.accounts.get(turn.account)! - 1;
        if (left > 0) this.accounts.set(turn.account, left);
        else this.accounts.delete(turn.account);
      }
    }
  }

  private wait(who: Omit<Waiter, 'start'>, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const gone = () => {
        const at = this.queue.indexOf(waiter);
        if (at < 0) return;
        this.queue.splice(at, 1);
        reject(clientGone());
      };
      const waiter: Waiter = {
        ...who,
        start: () => {
          signal?.removeEventListener('abort', gone);
          resolve();
        },
      };
      this.queue.push(waiter);
      signal?.addEventListener('abort', gone, { once: true });
    });
  }

  /**
   * Hand the freed slot to the waiter of the lowest rank, then one whose account nobody else is at, then the newest;
   * or free it. The lane's other work and the account's other log-ins are counted now, not when the waiter came: an
   * address that sent four guesses at once ranks all four behind a person's one try, whichever arrived first.
   */
  private next(): void {
    let best = -1;
    let bestRank = Infinity;
    let bestCrowded = true;
    for (let i = 0; i < this.queue.length; i++) {
      const w = this.queue[i]!;
      const rank = this.rankOf(w);
      const crowded = w.account !== undefined && this.accounts.get(w.account)! > 1;
      if (rank < bestRank || (rank === bestRank && (!crowded || bestCrowded))) {
        best = i;
        bestRank = rank;
        bestCrowded = crowded;
      }
    }
    // The slot goes on only to work that may use it; otherwise it stays free for a first try.
    if (best < 0 || this.running - 1 >= this.slotsFor(bestRank)) {
      this.running--;
      return;
    }
    const [waiter] = this.queue.splice(best, 1);
    waiter!.start();
  }

  /** The caller's failures plus its lane's other work in flight (this one's own hold aside), counted now. */
  private rankOf(w: Omit<Waiter, 'start'>): number {
    return w.failures + (this.holds.get(w.lane) ?? 1) - 1;
  }

  /**
   * The slots work of a rank may use: first tries (rank 0) all of them, anything else all but one, so a first try
   * coming in finds a slot free however many guesses wait, and waits for no hash at all.
   */
  private slotsFor(rank: number): number {
    const all = this.opts.concurrency ?? HASHES_AT_ONCE;
    return rank === 0 ? all : Math.max(1, all - 1);
  }
}
