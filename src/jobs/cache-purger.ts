// The cache tier's purger (docs/cache.md), run by `credence serve` when CACHE_PURGE_URLS names the tier's
// nodes. One process at a time purges: whichever holds the lease in `cache_purger` (as the relay holds endpoints). It
// follows the change log from the seq stored there and, for each entry, purges at every node exactly the surrogate
// keys of the tags the entry touches (domain/changes/follower.ts `tagsOfChange`, the same the record cache drops).
//
// Each entry is purged three times: at once, `echoMs` later and `settleMs` later. Between a commit and every
// instance's follower having applied it, an instance may still answer from what it had, and the tier may keep that
// answer after the first purge (measured: the purging instance is often the one that committed, ahead of the others
// by their wake-up). The others apply it within their poll (250 ms) when Redis's wake-up is lost or late, so the
// purge at `echoMs` (350 ms) catches what they sent meanwhile; the one at `settleMs` (1.5 s) comes after the record
// cache's vouch (1 s, domain/pages/record-cache.ts), past which no instance can answer the old state at all. The
// stored seq moves only past entries purged every time at every node, so a purger that dies loses nothing: the next
// holder purges from there again (every time).
//
// A purge that fails (a node down or slow) is tried again at the next pass, the cursor held where it was. A purger
// further behind than `maxBehind` entries, or failing for longer than `maxFailingMs`, purges everything instead (a
// ban at every node) and goes on from the log's end: it cannot vouch for what the tier holds.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Deps } from '../domain/deps.js';
import { advancePurger, claimPurger, releasePurger } from '../domain/changes/cache-purger.store.js';
import { lastSeq, listChangeRowsAfter } from '../domain/changes/change.store.js';
import { tagsOfChange } from '../domain/changes/follower.js';
import { surrogateKey } from '../domain/pages/cache-tags.js';

export interface PurgerLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface PurgerOptions {
  /** The tier's nodes (CACHE_PURGE_URLS). */
  urls: string[];
  /** How long the lease lasts unrenewed (CACHE_PURGE_LEASE_MS). */
  leaseMs: number;
  /** An entry is purged again this long after its first purge: past the other instances' poll (250 ms). */
  echoMs?: number;
  /** …and a last time this long after: past the record cache's vouch (1 s). */
  settleMs?: number;
  /** How often a pass runs when nothing wakes it (the change follower's advances wake it). */
  pollMs?: number;
  /** Further behind than this many entries: purge everything. */
  maxBehind?: number;
  /** Purges failing this long: purge everything once they succeed again. */
  maxFailingMs?: number;
  /** Entries read from the log at once. */
  entriesPerRead?: number;
  /** One purge request at a node: at most this long. */
  timeoutMs?: number;
  instanceId?: string;
  log?: PurgerLog;
}

export interface PurgerStats {
  holding: boolean;
  /** Entries purged (first purges), purges of everything, failed purge requests, since start. */
  purged: number;
  purgedAll: number;
  failures: number;
}

/** Keys sent in one purge request: 100 keys of 16 characters stay far under Varnish's 8 KB header line. */
const KEYS_PER_REQUEST = 100;

export class CachePurger {
  private readonly settleMs: number;
  private readonly echoMs: number;
  private readonly pollMs: number;
  private readonly maxBehind: number;
  private readonly maxFailingMs: number;
  private readonly timeoutMs: number;
  private readonly entriesPerRead: number;
  private readonly owner: string;
  private readonly log: PurgerLog;
  private holding = false;
  /** Entries through this seq were purged once; `stored`: every time, and recorded. */
  private cursor = 0;
  private stored = 0;
  /** Entries purged at once, waiting for their later purges: the seq they run through, their keys, when, and
   * whether the purge at `echoMs` was made. */
  private settling: { seq: number; keys: Set<string>; at: number; echoed: boolean }[] = [];
  private lastRenew = 0;
  private lastClaim = Number.NEGATIVE_INFINITY;
  private dueTimer: NodeJS.Timeout | undefined;
  private failingSince: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** tick(): a pass that claims whenever it is asked (tests drive passes faster than the poll). */
  private forced = false;
  private unsubscribe: (() => void) | null = null;
  readonly stats: PurgerStats = { holding: false, purged: 0, purgedAll: 0, failures: 0 };

  constructor(
    private readonly deps: Pick<Deps, 'db' | 'clock' | 'changes'>,
    private readonly opts: PurgerOptions,
  ) {
    this.settleMs = opts.settleMs ?? 1500;
    this.echoMs = Math.min(opts.echoMs ?? 350, this.settleMs);
    this.pollMs = opts.pollMs ?? 250;
    this.maxBehind = opts.maxBehind ?? 10_000;
    this.maxFailingMs = opts.maxFailingMs ?? 10_000;
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.entriesPerRead = opts.entriesPerRead ?? 1000;
    this.owner = opts.instanceId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.log = opts.log ?? { error: (o, m) => console.error(m, o), info: () => {} };
  }

  start(): void {
    // This process's follower advances when any process commits (at once with Redis, else within its poll). The
    // advance only wakes a pass, which reads the log from its own cursor: no entries needed from the follower.
    this.unsubscribe = this.deps.changes.onAdvance(() => this.wake(), { entries: false });
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Run a pass soon (joined with one under way). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass(this.forced)
      .catch((err: unknown) => this.log.error({ err }, 'cache purger: pass failed; trying again'))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** One pass now, after any under way (tests). */
  async tick(): Promise<void> {
    while (this.running) await this.running;
    this.forced = true;
    this.wake();
    this.forced = false;
    await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.dueTimer);
    this.unsubscribe?.();
    await this.running;
    // Purges still settling are the next holder's to repeat: the stored seq has not passed them.
    if (this.holding) await releasePurger(this.deps.db, this.owner).catch(() => {});
    this.holding = false;
  }

  private until(): string {
    return new Date(this.deps.clock.now().getTime() + this.opts.leaseMs).toISOString();
  }

  private async pass(force = false): Promise<void> {
    const now = performance.now();
    // Not holding: one claim per poll, not one per change this process hears of.
    if (!this.holding && !force && now - this.lastClaim < this.pollMs) return;
    if (!this.holding || now - this.lastRenew >= this.opts.leaseMs / 3) {
      this.lastClaim = now;
      const seq = await claimPurger(this.deps.db, this.owner, this.deps.clock.now().toISOString(), this.until());
      if (seq === null) {
        if (this.holding) this.log.info({}, 'cache purger: lease lost to another process');
        this.holding = this.stats.holding = false;
        return;
      }
      this.lastRenew = now;
      if (!this.holding) {
        // Taken (over): from what the last holder recorded as purged every time.
        this.holding = this.stats.holding = true;
        this.cursor = this.stored = seq;
        this.settling = [];
        this.log.info({ seq }, 'cache purger: holding the lease');
      }
    }
    await this.purgeNew();
    await this.settle();
    this.schedule();
  }

  /** A pass when the next later purge is due, rather than at the next poll (up to 250 ms late). */
  private schedule(): void {
    clearTimeout(this.dueTimer);
    const next = this.settling.find((s) => !s.echoed) ?? this.settling[0];
    if (!next || this.stopped) return;
    const dueAt = next.at + (next.echoed ? this.settleMs : this.echoMs);
    this.dueTimer = setTimeout(() => this.wake(), Math.max(0, dueAt - performance.now()) + 1);
    this.dueTimer.unref();
  }

  /** First purges: every entry after the cursor, as far as the log goes. */
  private async purgeNew(): Promise<void> {
    for (;;) {
      const rows = await listChangeRowsAfter(this.deps.db, this.cursor, this.entriesPerRead);
      if (rows.length === 0) return;
      const failingTooLong = this.failingSince !== null && performance.now() - this.failingSince > this.maxFailingMs;
      if (failingTooLong || (rows.length === this.entriesPerRead && (await lastSeq(this.deps.db)) - this.cursor > this.maxBehind)) {
        await this.purgeEverything();
        return;
      }
      const keys = new Set<string>();
      for (const row of rows) for (const t of tagsOfChange(row)) keys.add(surrogateKey(t));
      if (!(await this.purge(keys))) return;
      const seq = rows[rows.length - 1]!.seq;
      this.settling.push({ seq, keys, at: performance.now(), echoed: false });
      this.cursor = seq;
      this.stats.purged += rows.length;
      if (rows.length < this.entriesPerRead) return;
    }
  }

  /** The later purges of what is due (oldest first, so what is due is a prefix), then the stored seq moves past them. */
  private async settle(): Promise<void> {
    const now = performance.now();
    const echoes = this.settling.filter((s) => !s.echoed && now - s.at >= this.echoMs);
    if (echoes.length > 0) {
      const keys = new Set<string>();
      for (const s of echoes) for (const k of s.keys) keys.add(k);
      if (!(await this.purge(keys))) return;
      for (const s of echoes) s.echoed = true;
    }
    const due = this.settling.filter((s) => s.echoed && now - s.at >= this.settleMs);
    if (due.length === 0) return;
    const keys = new Set<string>();
    for (const s of due) for (const k of s.keys) keys.add(k);
    if (!(await this.purge(keys))) return;
    this.settling = this.settling.slice(due.length);
    await this.record(due[due.length - 1]!.seq);
  }

  private async record(seq: number): Promise<void> {
    this.stored = seq;
    if (!(await advancePurger(this.deps.db, this.owner, seq, this.until()))) {
      this.log.info({}, 'cache purger: lease lost to another process');
      this.holding = this.stats.holding = false;
    } else this.lastRenew = performance.now();
  }

  private async purgeEverything(): Promise<void> {
    const end = await lastSeq(this.deps.db);
    this.log.error({ from: this.cursor, to: end }, 'cache purger: too far behind; purging everything at every node');
    if (!(await this.send({ 'xkey-purge-all': '1' }))) return;
    this.stats.purgedAll++;
    // A ban drops every answer made before it; those made after, by an instance still behind, are what the second
    // purge is for: everything again once settled.
    this.cursor = end;
    this.settling = [];
    await new Promise((r) => setTimeout(r, this.settleMs).unref());
    if (!(await this.send({ 'xkey-purge-all': '1' }))) return;
    await this.record(end);
  }

  /** Purge `keys` at every node; false (and the failure noted) when any node did not confirm. */
  private async purge(keys: Set<string>): Promise<boolean> {
    const all = [...keys];
    for (let i = 0; i < all.length; i += KEYS_PER_REQUEST) {
      if (!(await this.send({ 'xkey-purge': all.slice(i, i + KEYS_PER_REQUEST).join(' ') }))) return false;
    }
    return true;
  }

  private async send(headers: Record<string, string>): Promise<boolean> {
    const results = await Promise.all(
      this.opts.urls.map(async (url) => {
        try {
          const res = await fetch(`${url}/`, { method: 'PURGE', headers, signal: AbortSignal.timeout(this.timeoutMs) });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`status ${res.status}`);
          return true;
        } catch (err) {
          this.stats.failures++;
          this.log.error({ node: url, err: String((err as Error).message ?? err) }, 'cache purger: purge failed; trying again');
          return false;
        }
      }),
    );
    const ok = results.every(Boolean);
    if (ok) this.failingSince = null;
    else this.failingSince ??= performance.now();
    return ok;
  }
}

export function startCachePurger(deps: Pick<Deps, 'db' | 'clock' | 'changes'>, opts: PurgerOptions): CachePurger {
  const purger = new CachePurger(deps, opts);
  purger.start();
  return purger;
}
