// The live streams of the change feed, one registry per process, shared by both surfaces:
//
// - Caps: a caller holds at most `feedStreamsPerClient` streams at once, counted against its address and, when signed
//   in (a key or a session), its account too: one budget each, shared, so signing in adds no streams to an
//   address's and changing address adds none to an account's. Answered 429 in the surface's envelope. A network (an
//   IPv4 /24, an IPv6 /64: what one party usually holds) holds at most `feedStreamsPerNetwork`, also 429, so many
//   addresses of one network cannot take the process's places. The process holds at most `feedStreamsMax` in all
//   (503), the backstop when many callers ask at once, and its last tenth goes only to networks holding no stream, so
//   callers from a few networks filling it still leave room for others.
// - Fan-out: the change follower reads each committed entry once and hands it here; each entry is presented once
//   per surface's words and the same bytes are written to every stream that is caught up. A stream reads the log
//   itself only to catch up (from its cursor when it opens, or over a gap the follower jumped).
// - Backpressure: a write never waits on one client. A stream whose unsent bytes pass `MAX_BUFFERED_BYTES` is
//   closed; its EventSource reconnects with Last-Event-ID and catches up from the log.
import type { ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { OpenedChange } from '../domain/changes/change.store.js';
import { type FeedFilter, readFeed } from '../domain/changes/feed.service.js';
import type { AdvanceListener } from '../domain/changes/follower.js';
import type { Deps } from '../domain/deps.js';
import { AppError } from '../http/errors.js';

export type FeedWords = 'v1' | 'api';

/** Unsent bytes a stream may have queued before it is closed as too slow (a few hundred entries). */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
/** Entries a catching-up stream reads at once. */
const CATCH_UP_BATCH = 200;
/** How often every stream gets a comment line, so proxies and clients know it is alive. */
const HEARTBEAT_MS = 15_000;
/** When a refused caller may try again: streams end only when their clients leave, so no exact time is known. */
const RETRY_AFTER_SECONDS = 30;

/** One entry as a surface writes it on a stream. */
export type PresentEvent = (row: OpenedChange, words: FeedWords) => string;

interface Stream {
  readonly words: FeedWords;
  /** A watcher's stream: only the entries the filter names, read from the log at each advance. */
  readonly filter: FeedFilter | undefined;
  readonly raw: ServerResponse;
  /** The last seq written (or the start). */
  cursor: number;
  /** Caught up: new entries come from the fan-out. */
  live: boolean;
  /** An advance came while catching up: read the log once more before going live. */
  again: boolean;
  closed: boolean;
  end(): void;
}

export class FeedStreams {
  private readonly streams = new Set<Stream>();
  private readonly perClient = new Map<string, number>();
  /** Places taken by admit() and not yet released (streams count from admission to their end). */
  private admitted = 0;
  private unsubscribe: (() => void) | null = null;
  private heartbeats: NodeJS.Timeout | undefined;
  /** Reads of the log made by streams catching up (the fan-out makes none); also a metric. */
  catchUpReads = 0;
  /** Streams closed because their client did not read fast enough. */
  slowClosed = 0;

  constructor(
    private readonly deps: Pick<Deps, 'db' | 'changes' | 'config'>,
    private readonly present: PresentEvent,
  ) {}

  get open(): number {
    return this.streams.size;
  }

  /** Open streams that have caught up and are fed by the fan-out alone. */
  get caughtUp(): number {
    let n = 0;
    for (const s of this.streams) if (s.live) n++;
    return n;
  }

  /**
   * The network an address belongs to: its IPv4 /24 (an IPv4-mapped IPv6 address counts as IPv4) or its IPv6 /64, the
   * smallest block a provider hands one customer. An address that does not parse is its own network.
   */
  static networkOf(ip: string): string {
    if (!ipaddr.isValid(ip)) return `net:${ip}`;
    let addr = ipaddr.parse(ip);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
    if (addr.kind() === 'ipv4') return `net:${(addr as ipaddr.IPv4).octets.slice(0, 3).join('.')}.0/24`;
    return `net:${(addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16)).join(':')}::/64`;
  }

  /** Whom a stream counts against: the address, its network, and the account when signed in (any key or session of it). */
  static clientsOf(req: FastifyRequest): string[] {
    const byAddress = [`ip:${req.ip}`, FeedStreams.networkOf(req.ip)];
    return req.principal.kind === 'anonymous' ? byAddress : [...byAddress, `account:${req.principal.accountId}`];
  }

  /**
   * Take a place for a new stream counted against each of `clients`, or throw the refusal (429 when any of them is
   * at the caller's cap, 503 for the process's). Call before anything is written, so the refusal goes out in the
   * surface's envelope.
   */
  admit(clients: string[]): () => void {
    const { feedStreamsPerClient, feedStreamsPerNetwork, feedStreamsMax } = this.deps.config;
    const network = clients.find((c) => c.startsWith('net:'));
    const held = network === undefined ? 0 : (this.perClient.get(network) ?? 0);
    if (held >= feedStreamsPerNetwork) {
      throw new AppError(
        429,
        'rate_limited',
        `At most ${feedStreamsPerNetwork} live streams at once per network (an IPv4 /24 or an IPv6 /64); close one, or retry in ${RETRY_AFTER_SECONDS} s`,
        undefined,
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    }
    if (clients.some((c) => c !== network && (this.perClient.get(c) ?? 0) >= feedStreamsPerClient)) {
      throw new AppError(
        429,
        'rate_limited',
        `At most ${feedStreamsPerClient} live streams at once per caller; close one, or retry in ${RETRY_AFTER_SECONDS} s`,
        undefined,
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    }
    // The last tenth of the places waits for networks that hold none: a few networks at their cap cannot fill it.
    const reserved = Math.ceil(feedStreamsMax / 10);
    if (this.admitted >= feedStreamsMax || (this.admitted >= feedStreamsMax - reserved && held > 0)) {
      throw new AppError(503, 'service_unavailable', `The live stream is at capacity; retry in ${RETRY_AFTER_SECONDS} s, or read the list`, undefined, {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      });
    }
    for (const c of clients) this.perClient.set(c, (this.perClient.get(c) ?? 0) + 1);
    this.admitted++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.admitted--;
      for (const c of clients) {
        const n = (this.perClient.get(c) ?? 1) - 1;
        if (n <= 0) this.perClient.delete(c);
        else this.perClient.set(c, n);
      }
    };
  }

  /**
   * Serve an admitted stream on `raw` (its head already written) from `after`: catch up from the log, then follow
   * the fan-out. `release` gives the place back when the stream ends.
   */
  attach(raw: ServerResponse, words: FeedWords, after: number, release: () => void, filter?: FeedFilter): void {
    const stream: Stream = {
      words,
      filter,
      raw,
      cursor: after,
      live: false,
      again: false,
      closed: false,
      end: () => {
        if (stream.closed) return;
        stream.closed = true;
        this.streams.delete(stream);
        release();
        if (this.streams.size === 0) {
          // Nothing to fan out to: the registry costs nothing while no stream is open.
          this.unsubscribe?.();
          this.unsubscribe = null;
          clearInterval(this.heartbeats);
          this.heartbeats = undefined;
        }
        raw.end();
      },
    };
    this.streams.add(stream);
    this.unsubscribe ??= this.deps.changes.onAdvance(this.onAdvance);
    this.heartbeats ??= setInterval(() => this.heartbeat(), HEARTBEAT_MS).unref();
    raw.on('close', stream.end);
    void this.catchUp(stream);
  }

  /** Write a chunk without waiting; a client that lets too much pile up is let go (it resumes by Last-Event-ID). */
  private write(stream: Stream, chunk: string): void {
    if (stream.closed) return;
    stream.raw.write(chunk);
    if (stream.raw.writableLength > MAX_BUFFERED_BYTES) {
      this.slowClosed++;
      // destroy, not end: end would wait for the same buffer to drain.
      stream.raw.destroy();
      stream.end();
    }
  }

  private heartbeat(): void {
    for (const s of this.streams) this.write(s, ': heartbeat\n\n');
  }

  /** Read the log from the stream's cursor until nothing is left, then go live. */
  private async catchUp(stream: Stream): Promise<void> {
    stream.live = false;
    try {
      do {
        stream.again = false;
        for (;;) {
          this.catchUpReads++;
          const { rows, hasMore } = await readFeed(this.deps, stream.cursor, CATCH_UP_BATCH, stream.filter);
          if (stream.closed) return;
          for (const row of rows) {
            this.write(stream, this.present(row, stream.words));
            stream.cursor = row.seq;
          }
          if (!hasMore) break;
          // A large backlog is written at the client's pace: wait for the socket before reading more.
          if (stream.raw.writableNeedDrain) await new Promise((resolve) => stream.raw.once('drain', resolve).once('close', resolve));
          if (stream.closed) return;
        }
      } while (stream.again);
      // Nothing came between the last read and now (this runs in the same turn): the fan-out carries on from here.
      stream.live = true;
    } catch {
      // The log cannot be read just now: end the stream; the client reconnects with Last-Event-ID.
      stream.end();
    }
  }

  /** The follower read new entries: present each once per words, write it to every stream that is caught up. */
  private readonly onAdvance: AdvanceListener = ({ from, to, rows }) => {
    const events: Partial<Record<FeedWords, string[]>> = {};
    const joined: Partial<Record<FeedWords, string>> = {};
    const eventsOf = (words: FeedWords) => (events[words] ??= rows!.map((r) => this.present(r, words)));
    for (const stream of [...this.streams]) {
      if (stream.closed || stream.cursor >= to) continue;
      if (!stream.live) {
        stream.again = true;
        continue;
      }
      if (rows === null || stream.cursor < from || stream.filter) {
        // A watcher's stream reads what its filter names (by the entries' id columns; a domain's pages may be new).
        // A gap the fan-out does not carry (the follower jumped, or the stream fell behind it): read it.
        void this.catchUp(stream);
        continue;
      }
      // Usually the stream is exactly at `from`; a stream whose catch-up read past it skips what it has.
      const list = eventsOf(stream.words);
      const first = rows.findIndex((r) => r.seq > stream.cursor);
      this.write(stream, first === 0 ? (joined[stream.words] ??= list.join('')) : list.slice(first).join(''));
      stream.cursor = to;
    }
  };

  /** End every stream (the server is closing). */
  closeAll(): void {
    for (const s of [...this.streams]) s.end();
  }
}

/** The registry of a process: one per runtime (keyed by its change follower), shared by both surfaces. */
const registries = new WeakMap<object, FeedStreams>();

export function feedStreams(deps: Pick<Deps, 'db' | 'changes' | 'config'>, present: PresentEvent): FeedStreams {
  let r = registries.get(deps.changes);
  if (!r) {
    r = new FeedStreams(deps, present);
    registries.set(deps.changes, r);
  }
  return r;
}

/** The registry of a runtime, if a surface made one (the metrics read it). */
export const feedStreamsOf = (deps: Pick<Deps, 'changes'>): FeedStreams | undefined => registries.get(deps.changes);
