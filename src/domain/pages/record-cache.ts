// Built page records and finished answers, cached because lookups are the hot path and records change rarely.
// Each cached answer names what it was built from (tags such as `page:12`, `account:3`, `domain:example.com`); the
// change follower (domain/changes/follower.ts) reads every committed change from the log and stamps the tags it
// touches, in every process; an answer with a tag stamped after its load began is never served again. An answer built inside another's load passes its tags
// up, so a cached JSON body built from a cached record depends on what the record depends on.
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import { surrogateKey } from './cache-tags.js';

export interface RecordCache {
  /**
   * The cached value, or load() it. `load` names what the value depends on with `track(tags)`; a value loaded while
   * one of those tags was invalidated is returned but never served from the cache.
   */
  getOrLoad<T>(key: string, load: Load<T>): Promise<T>;
  /**
   * As getOrLoad, but a value the cache can serve now is returned as it is, not in a promise: no promise and no
   * microtask turn between the cache and the answer, the warm path of every cached route. A miss is the
   * promise of its load.
   */
  getNow<T>(key: string, load: Load<T>): T | Promise<T>;
  /**
   * The value the cache can serve now for `key`, counted as a hit, or undefined (nothing kept, or what was kept can
   * no longer be served): getNow without the load, for a caller with another way to the value when this has none.
   */
  peek<T>(key: string): T | undefined;
  /** No cached answer that depends on any of these tags is served again. */
  invalidate(tags: Iterable<string>): void;
  invalidateAll(): void;
  /**
   * The surrogate keys (cache-tags.ts `surrogateKey`, space separated) of the answer the cache can serve now for
   * `key`: its tags, for the cache tier in front. Undefined when nothing servable is kept (an answer loaded while what
   * it depends on changed is sent, but must not be kept by the tier either) or it depends on nothing nameable.
   */
  surrogateKeys(key: string): string | undefined;
  /** Lookups answered from the cache and loaded, since start (for the metrics). */
  stats?(): { hits: number; misses: number };
}

export type Load<T> = (track: (tags: Iterable<string>) => void) => Promise<T>;

/**
 * `use` a value at once when it is here (returning nothing: the warm path of a route makes no promise), else when it
 * comes, returning that promise; it rejects when the value's promise or `use` fails.
 */
export function whenReady<T>(value: T | Promise<T>, use: (value: T) => void): Promise<void> | undefined {
  if (value instanceof Promise) return value.then(use);
  use(value);
  return undefined;
}

/** `use` the cached value, at once when the cache can serve it, else once it is loaded (whenReady). */
export function useCached<T>(cache: RecordCache, key: string, load: Load<T>, use: (value: T) => void): Promise<void> | undefined {
  return whenReady(cache.getNow(key, load), use);
}

interface Entry {
  value: unknown;
  tags: string[];
  /**
   * The invalidation count when its load began, or when it was last found fresh: a tag invalidated after that makes
   * it stale.
   */
  at: number;
  /** Its surrogate keys, made the first time the cache tier asks (surrogateKeys). */
  keys?: string;
}

export class MemoryRecordCache implements RecordCache {
  /**
   * Least recently used first out (lru-cache). A Map re-ordered by delete-and-set, evicting its first key, was
   * 28% of a cold lookup's CPU: V8's ordered maps keep deleted slots until they rehash, so reaching the first live
   * key walked every slot deleted before it (docs/performance.md).
   */
  private readonly entries: LRUCache<string, Entry>;
  /**
   * tag → the invalidation count when it was last invalidated. An entry is stale when one of its tags was
   * invalidated after its load began; it is dropped when next asked for, or evicted. Invalidating is a write per
   * tag, and keeping an answer costs nothing beyond the LRU: an index from tags to keys cost a cache miss a Set per
   * new tag, plus the untagging of what it evicted (8% of a miss).
   */
  private stamps = new Map<string, number>();
  /** Entries whose load began before this count are stale (invalidateAll, a sweep of `stamps`). */
  private floor = 0;
  private invalidations = 0;
  /** Loads under way, by key (single flight). */
  private readonly flights = new Map<string, Promise<unknown>>();
  private vouchedAt = Number.NEGATIVE_INFINITY;
  private readonly loading = new AsyncLocalStorage<Set<string>>();
  private hits = 0;
  private misses = 0;

  /**
   * `staleAfterMs`: serve from the cache only while the log was read completely less than this long ago (the
   * follower vouches after each read); undefined trusts the cache without a follower (unit tests).
   */
  constructor(
    private readonly maxEntries = 20_000,
    private readonly staleAfterMs?: number,
  ) {
    this.entries = new LRUCache<string, Entry>({ max: maxEntries });
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

  /**
   * Whether nothing the entry depends on was invalidated since its load began. Found fresh, it is fresh as of now:
   * its count moves up, and until the next invalidation its hits skip the walk over its tags (a Map lookup each,
   * about 300 ns a hit once writes have left stamps).
   */
  private fresh(entry: Entry): boolean {
    if (entry.at === this.invalidations) return true;
    if (entry.at < this.floor) return false;
    for (const t of entry.tags) {
      const stamp = this.stamps.get(t);
      if (stamp !== undefined && stamp > entry.at) return false;
    }
    entry.at = this.invalidations;
    return true;
  }

  /** The entry for `key` when it may be served: the cache is trusted and nothing it depends on changed since. */
  private servable(key: string, trusted: boolean): Entry | undefined {
    const hit = trusted ? this.entries.get(key) : undefined;
    if (hit && !this.fresh(hit)) {
      this.entries.delete(key);
      return undefined;
    }
    return hit;
  }

  /** A hit: counted, and its tags passed up to the load it is part of, if any. */
  private served<T>(hit: Entry, parent: Set<string> | undefined): T {
    this.hits++;
    if (parent) for (const t of hit.tags) parent.add(t);
    return hit.value as T;
  }

  getOrLoad<T>(key: string, load: Load<T>): Promise<T> {
    // A promise from a miss comes back as it is (Promise.resolve of a native promise is that promise).
    return Promise.resolve(this.getNow(key, load));
  }

  getNow<T>(key: string, load: Load<T>): T | Promise<T> {
    const parent = this.loading.getStore();
    const trusted = this.trusted();
    const hit = this.servable(key, trusted);
    return hit ? this.served<T>(hit, parent) : this.miss(key, load, parent, trusted);
  }

  peek<T>(key: string): T | undefined {
    const hit = this.servable(key, this.trusted());
    return hit ? this.served<T>(hit, this.loading.getStore()) : undefined;
  }

  private async miss<T>(key: string, load: Load<T>, parent: Set<string> | undefined, trusted: boolean): Promise<T> {
    // Inside another load (a finished JSON body built from a record, say): the outer answer is what the next request
    // finds, so the inner value is not kept (it would take a second slot per miss and halve what the cache holds)
    // and needs no flight of its own; its tags are the outer answer's.
    if (parent) {
      this.misses++;
      return load((more) => {
        for (const t of more) parent.add(t);
      });
    }
    // Single flight: a request for a key that is already loading waits for that load rather than starting another
    // (a burst on one cold record is one query, not fifty). Only while trusted and while no change has been applied
    // since the load began: invalidate() forgets every flight, so a request after a change never gets an older read.
    const flying = trusted ? this.flights.get(key) : undefined;
    if (flying) {
      this.hits++;
      return flying as Promise<T>;
    }
    this.misses++;
    const at = this.invalidations;
    const tags = new Set<string>();
    const flight = this.loading.run(tags, load, (more: Iterable<string>) => {
      for (const t of more) tags.add(t);
    });
    if (trusted) this.flights.set(key, flight);
    let value: T;
    try {
      value = await flight;
    } finally {
      if (this.flights.get(key) === flight) this.flights.delete(key);
    }
    // Kept with the count its load began at: a change applied while it was read, to anything it depends on, makes
    // it stale from the start (fresh() says so on the next request).
    const entry: Entry = { value, tags: [...tags], at };
    if (trusted && this.fresh(entry)) this.entries.set(key, entry);
    return value;
  }

  surrogateKeys(key: string): string | undefined {
    const entry = this.servable(key, this.trusted());
    if (!entry || entry.tags.length === 0) return undefined;
    return (entry.keys ??= entry.tags.map(surrogateKey).join(' '));
  }

  stats(): { hits: number; misses: number } {
    return { hits: this.hits, misses: this.misses };
  }

  invalidate(tags: Iterable<string>): void {
    const at = ++this.invalidations;
    this.flights.clear();
    for (const t of tags) this.stamps.set(t, at);
    // Bounded: past four stamps per entry, drop what is stale and start the stamps again (rare: that many distinct
    // tags changed). Loads under way began before the sweep and are not kept; what survives is fresh as of now.
    if (this.stamps.size > 4 * this.maxEntries) this.sweep();
  }

  private sweep(): void {
    const now = ++this.invalidations;
    // What is fresh is fresh as of now (fresh() moves its count up), so it survives the stamps it was checked against.
    for (const [key, entry] of this.entries.entries()) if (!this.fresh(entry)) this.entries.delete(key);
    this.stamps = new Map();
    this.floor = now;
  }

  invalidateAll(): void {
    this.floor = ++this.invalidations;
    this.flights.clear();
    this.stamps = new Map();
    this.entries.clear();
  }

  /** How many cached answers are still fresh (tests and benchmarks; it walks them all). */
  get size(): number {
    let n = 0;
    for (const entry of this.entries.values()) if (this.fresh(entry)) n++;
    return n;
  }
}
