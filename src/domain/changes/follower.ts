// Every process follows the change log: it reads each committed entry after its cursor and drops exactly the cached
// answers the entry touches. Correctness needs only the database: a timer reads the log every `pollMs` (one
// indexed read of `seq > cursor`, usually empty), a writer catches up right after its own commit (so a process
// reads its own writes), and a wake-up from elsewhere (Redis) only makes it read sooner. The cache serves an answer
// only while the last complete read of the log is younger than its `staleAfterMs` (1 s): a process that falls
// behind or cannot read the log drops everything and answers from the database until it has caught up.
import { performance } from 'node:perf_hooks';
import type { Db } from '../../db/schema.js';
import { tag } from '../pages/cache-tags.js';
import { bucketOf, embedKeyHash } from '../pages/key-hash.js';
import { parsePageUrl } from '../pages/url-keys.js';
import type { MemoryRecordCache } from '../pages/record-cache.js';
import { type ChangeRow, lastSeq, listChangeRowsAfter, type OpenedChange, withOpenings } from './change.store.js';

export interface FollowerOptions {
  pollMs?: number;
  /** Entries read per query. */
  batch?: number;
  /** Further behind than this, drop everything and jump to the end rather than apply each entry. */
  maxBehind?: number;
  onError?: (err: unknown) => void;
}

/** The cache tags an entry touches. Kinds added later are covered by their ids and their body's `page.url`. */
export function tagsOfChange(row: ChangeRow): string[] {
  const tags: string[] = [];
  if (row.page_id !== null) tags.push(tag.page(row.page_id));
  if (row.account_id !== null) tags.push(tag.account(row.account_id));
  if (row.panel_id !== null) tags.push(tag.panel(row.panel_id));
  // A publisher's own fields and its domains show in all its records; its pages' changes touch only those pages.
  if (row.publisher_id !== null && /^(publisher|domain)\./.test(row.kind)) tags.push(tag.publisher(row.publisher_id));
  if (row.kind.startsWith('contributor.') || row.kind === 'page.updated') tags.push(tag.contributors);
  const body = JSON.parse(row.body) as { page?: { url?: unknown }; domain?: unknown };
  if (typeof body.domain === 'string') tags.push(tag.domain(body.domain));
  const url = typeof body.page?.url === 'string' ? parsePageUrl(body.page.url) : null;
  if (url) tags.push(tag.lookup(url.lookupKey), tag.embed(url.embedKey), tag.bucket(bucketOf(embedKeyHash(url.embedKey))));
  if (row.kind.startsWith('domain.')) tags.push(tag.hosts);
  // The panels' list shows each current question: a new version, or a decision withholding one, changes it.
  if (row.kind === 'panel.issued' || ((row.kind as string) === 'moderation.decided' && row.panel_id !== null)) tags.push(tag.panels);
  // A decision withholding text changes the log's entry bundles and entries (withholding.ts): the cache tier drops them.
  if ((row.kind as string) === 'moderation.decided') tags.push(tag.log);
  // Credentials' status lists follow the record (credentials/credential.service.ts).
  if (/^(contribution\.withdrawn|contributor\.erased|page\.notice|moderation\.decided)$/.test(row.kind)) tags.push(tag.credentials);
  return tags;
}

/**
 * An advance of the follower's cursor from `from` to `to`: `rows` are every entry in between, in order, or null when
 * the follower did not read them for this listener (it jumped over them far behind, the listener subscribed during
 * the read, or asked for none); a listener that needs them then reads them itself.
 */
export type AdvanceListener = (advance: { from: number; to: number; rows: readonly OpenedChange[] | null }) => void;

export class ChangeFollower {
  private cursor: number | null = null;
  private current: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** Each listener, and whether it is handed the entries (with their openings) or only told of the advance. */
  private readonly listeners = new Map<AdvanceListener, boolean>();
  /** Entries read from the log by this follower: each committed entry once, whatever listens. */
  entriesRead = 0;
  /** Set by a shared bus: tell the other processes this one committed (a wake-up, never needed for correctness). */
  wake: (() => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly cache: Pick<MemoryRecordCache, 'invalidate' | 'invalidateAll' | 'vouch'>,
    private readonly opts: FollowerOptions = {},
  ) {}

  /** The seq this process has applied (0 before the first read). */
  get position(): number {
    return this.cursor ?? 0;
  }

  async start(): Promise<void> {
    await this.catchUp();
    // unref: a CLI verb that built the runtime still exits when its work is done.
    this.timer = setInterval(() => void this.catchUp(), this.opts.pollMs ?? 250).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Hear of every advance of the cursor, with the entries read (the feed's live streams fan them out, so an entry
   * is read from the database once per process however many streams are open). `entries: false`: only the advance
   * (rows null), so the follower reads no openings for this listener. Returns the unsubscribe.
   */
  onAdvance(listener: AdvanceListener, { entries = true }: { entries?: boolean } = {}): () => void {
    this.listeners.set(listener, entries);
    return () => this.listeners.delete(listener);
  }

  /** After this process committed a change: apply it here now, and wake the others. */
  async committed(): Promise<void> {
    await this.catchUp();
    this.wake?.();
  }

  /** Read and apply every entry committed before this call. Concurrent calls share reads. */
  catchUp(): Promise<void> {
    if (!this.current) {
      this.current = this.read().finally(() => {
        this.current = null;
      });
      return this.current;
    }
    // A read under way may have started before the caller's commit: queue one more, shared by every waiter.
    this.next ??= this.current.then(() => {
      this.next = null;
      return this.catchUp();
    });
    return this.next;
  }

  private async read(): Promise<void> {
    const startedAt = performance.now();
    const from = this.cursor;
    // The entries between `from` and the new cursor, all of them, or null when the follower jumped over some (or no
    // listener takes entries: kept, and their openings read, only for those). A listener that subscribes during a
    // read begun without one is handed null, and reads them itself.
    let read: OpenedChange[] | null = [...this.listeners.values()].includes(true) ? [] : null;
    try {
      if (this.cursor === null) {
        // A fresh process: nothing before now needs applying once the cache is empty.
        this.cursor = await lastSeq(this.db);
        this.cache.invalidateAll();
      } else {
        const batch = this.opts.batch ?? 1000;
        let applied = 0;
        for (;;) {
          const rows = await listChangeRowsAfter(this.db, this.cursor, batch);
          if (read) read.push(...(await withOpenings(this.db, rows)));
          this.entriesRead += rows.length;
          for (const row of rows) this.cache.invalidate(tagsOfChange(row));
          if (rows.length > 0) this.cursor = rows[rows.length - 1]!.seq;
          applied += rows.length;
          if (rows.length < batch) break;
          if (applied >= (this.opts.maxBehind ?? 10_000)) {
            // Emptied after the read, so no answer loaded before it survives; later entries come next time.
            this.cursor = await lastSeq(this.db);
            this.cache.invalidateAll();
            read = null;
            break;
          }
        }
      }
      this.cache.vouch(startedAt);
    } catch (err) {
      // The log cannot be read: what is cached can no longer be vouched for.
      this.cache.invalidateAll();
      this.opts.onError?.(err);
      return;
    }
    if (from !== null && this.cursor !== from) for (const [l, entries] of this.listeners) l({ from, to: this.cursor, rows: entries ? read : null });
  }
}
