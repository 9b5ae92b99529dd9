// Built page records, cached because lookups are the hot path and records change rarely. Any write that can
// change a record (registration, accepted work, a name, a domain's verification) calls invalidateAll() after its
// transaction commits: a coarse rule that cannot miss a dependency. With Redis the invalidation reaches every
// instance (issue: cache invalidation shared by every instance).
export interface RecordCache {
  /** The cached value, or load() it. A value loaded while an invalidation happened is returned but not kept. */
  getOrLoad<T>(key: string, load: () => Promise<T>): Promise<T>;
  invalidateAll(): void;
  /** Lookups answered from the cache and loaded, since start (for the metrics). */
  stats?(): { hits: number; misses: number };
}

export class MemoryRecordCache implements RecordCache {
  private entries = new Map<string, unknown>();
  private generation = 0;
  private hits = 0;
  private misses = 0;
  /** Set by a shared bus to hear of every local invalidation. */
  onInvalidate: (() => void) | undefined;

  constructor(private readonly maxEntries = 20_000) {}

  async getOrLoad<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.entries.has(key)) {
      this.hits++;
      const hit = this.entries.get(key) as T;
      // Re-inserting keeps the Map in least-recently-used order, so eviction drops what nobody reads.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    this.misses++;
    const generation = this.generation;
    const value = await load();
    // A write that committed while we were reading may have made `value` stale: do not keep it.
    if (generation === this.generation) {
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      this.entries.set(key, value);
    }
    return value;
  }

  stats(): { hits: number; misses: number } {
    return { hits: this.hits, misses: this.misses };
  }

  invalidateAll(): void {
    this.clearLocal();
    this.onInvalidate?.();
  }

  /** Clear without telling others (the message came from another instance). */
  clearLocal(): void {
    this.generation++;
    this.entries = new Map();
  }
}
