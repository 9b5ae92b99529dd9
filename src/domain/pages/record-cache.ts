// Built page records and finished answers, cached because lookups are the hot path and records change rarely.
// Each cached answer names what it was built from (tags such as `page:12`, `account:3`, `domain:example.com`); the
// change follower (domain/changes/follower.ts) reads every committed change from the log and drops exactly the
// answers whose tags the change touches, in every process. An answer built inside another's load passes its tags
// up, so a cached JSON body built from a cached record depends on what the record depends on.
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';

export interface RecordCache {
  /**
   * The cached value, or load() it. `load` names what the value depends on with `track(tags)`; a value loaded while
   * an invalidation happened is returned but not kept.
   */
  getOrLoad<T>(key: string, load: (track: (tags: Iterable<string>) => void) => Promise<T>): Promise<T>;
  /** Drop every cached answer that depends on any of these tags. */
  invalidate(tags: Iterable<string>): void;
  invalidateAll(): void;
  /** Lookups answered from the cache and loaded, since start (for the metrics). */
  stats?(): { hits: number; misses: number };
}

interface Entry {
  value: unknown;
  tags: string[];
}

export class MemoryRecordCache implements RecordCache {
  /**
   * Least recently used first out (lru-cache). A Map re-ordered by delete-and-set, evicting its first key, was
   * 28% of a cold lookup's CPU: V8's ordered maps keep deleted slots until they rehash, so reaching the first live
   * key walked every slot deleted before it (issue 16, docs/performance.md).
   */
  private readonly entries: LRUCache<string, Entry>;
  /** tag → keys of the cached answers that depend on it. */
  private byTag = new Map<string, Set<string>>();
  /** Loads under way, by key (single flight). */
  private readonly flights = new Map<string, Promise<{ value: unknown; tags: Set<string> }>>();
  private invalidations = 0;
  private vouchedAt = Number.NEGATIVE_INFINITY;
  private readonly loading = new AsyncLocalStorage<Set<string>>();
  private hits = 0;
  private misses = 0;

  /**
   * `staleAfterMs`: serve from the cache only while the log was read completely less than this long ago (the
   * follower vouches after each read); undefined trusts the cache without a follower (unit tests).
   */
  constructor(
    maxEntries = 20_000,
    private readonly staleAfterMs?: number,
  ) {
    // Every way an entry leaves (evicted, replaced, deleted, cleared) takes its key out of the tag index.
    this.entries = new LRUCache<string, Entry>({ max: maxEntries, dispose: (entry, key) => this.untag(key, entry.tags) });
  }

  /** The follower read the whole log as of `at` (performance.now()) and applied it. */
  vouch(at: number): void {
    this.vouchedAt = Math.max(this.vouchedAt, at);
  }

  private trusted(): boolean {
    if (this.staleAfterMs === undefined) return true;
    if (performance.now() - this.vouchedAt <= this.staleAfterMs) return true;
    // Behind, or the log cannot be read: nothing here can be vouched for.
    if (this.entries.size > 0) this.invalidateAll();
    return false;
  }

  async getOrLoad<T>(key: string, load: (track: (tags: Iterable<string>) => void) => Promise<T>): Promise<T> {
    const parent = this.loading.getStore();
    const trusted = this.trusted();
    const hit = trusted ? this.entries.get(key) : undefined;
    if (hit) {
      this.hits++;
      if (parent) for (const t of hit.tags) parent.add(t);
      return hit.value as T;
    }
    // Single flight: a request for a key that is already loading waits for that load rather than starting another
    // (a burst on one cold record is one query, not fifty). Only while trusted and while no change has been applied
    // since the load began: invalidate() forgets every flight, so a request after a change never gets an older read.
    const flying = trusted ? this.flights.get(key) : undefined;
    if (flying) {
      this.hits++;
      const landed = await flying;
      if (parent) for (const t of landed.tags) parent.add(t);
      return landed.value as T;
    }
    this.misses++;
    const invalidations = this.invalidations;
    const tags = new Set<string>();
    const track = (more: Iterable<string>) => {
      for (const t of more) tags.add(t);
    };
    const flight = this.loading.run(tags, () => load(track)).then((value) => ({ value, tags }));
    if (trusted) this.flights.set(key, flight);
    let value: T;
    try {
      value = (await flight).value;
    } finally {
      if (this.flights.get(key) === flight) this.flights.delete(key);
    }
    if (parent) for (const t of tags) parent.add(t);
    // A change that was applied while we were reading may have made `value` stale: do not keep it. Nor a value
    // loaded inside another's load: the outer answer (a finished JSON body, say) is what the next request finds, so
    // the inner one would only take a second slot per miss and halve what the cache holds (issue 16).
    if (trusted && !parent && invalidations === this.invalidations) this.keep(key, value, [...tags]);
    return value;
  }

  private keep(key: string, value: unknown, tags: string[]): void {
    // set() disposes of an entry it replaces or evicts (untagging it) before it returns.
    this.entries.set(key, { value, tags });
    for (const t of tags) {
      let keys = this.byTag.get(t);
      if (!keys) this.byTag.set(t, (keys = new Set()));
      keys.add(key);
    }
  }

  private untag(key: string, tags: string[]): void {
    for (const t of tags) {
      const keys = this.byTag.get(t);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) this.byTag.delete(t);
    }
  }

  stats(): { hits: number; misses: number } {
    return { hits: this.hits, misses: this.misses };
  }

  invalidate(tags: Iterable<string>): void {
    this.invalidations++;
    this.flights.clear();
    for (const t of tags) {
      const keys = this.byTag.get(t);
      if (keys) for (const key of [...keys]) this.entries.delete(key);
    }
  }

  invalidateAll(): void {
    this.invalidations++;
    this.flights.clear();
    this.byTag = new Map();
    this.entries.clear();
  }

  /** How many answers are cached (tests and benchmarks). */
  get size(): number {
    return this.entries.size;
  }
}
