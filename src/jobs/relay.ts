// The webhook relay (SPEC §10), run by `credence serve`. Two steps, each safe to run twice and in several
// processes at once:
//
// 1. Fan-out: read events the outbox has not relayed yet, in id order, and make one delivery per event and
//    matching endpoint (the body built now by the endpoint's surface presenter), marking the events relayed in the
//    same transaction. A crash before the commit leaves the events for the next pass; the unique (endpoint, event)
//    index makes a repeat harmless. On PostgreSQL one process fans out at a time.
// 2. Send: for each enabled endpoint with a delivery due, claim the endpoint (a lease, so one process sends to it
//    at a time), then send its queue head by head, oldest event first: a later delivery waits while an earlier one
//    is pending. Endpoints are worked on concurrently, so a slow receiver only delays itself. Every send is taken
//    from its destination's count for the minute (WEBHOOK_HOST_DELIVERIES_PER_MINUTE, one row per destination that
//    every process shares); what the minute cannot take waits, unattempted, for the next.
//
// `tick()` runs one pass and waits for every due delivery to be attempted (tests drive it with their clock);
// `start()` runs passes every `pollMs`, or at once after `wake()`.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { isUniqueViolation } from '../db/errors.js';
import { normaliseTopic } from '../domain/accounts/rules.js';
import type { Deps } from '../domain/deps.js';
import type { EventType } from '../domain/events/outbox.js';
import { EVENTS_BY_FORMAT, type OutboxEvent, type PayloadBuilder, type WebhookFormat } from '../domain/webhooks/events.js';
import { type PanelUpdatedFacts, panelTopics } from '../domain/webhooks/facts.js';
import * as store from '../domain/webhooks/webhook.store.js';
import { minuteOf } from '../domain/webhooks/schedule.js';
import { destinationOf } from '../domain/webhooks/target.js';
import { keepAliveAgents, type Resolve } from '../net/safe-fetch.js';
import { presentApiWebhookEvent, presentContributorWebhookEvent } from '../surfaces/integration-v1/webhook-events.presenter.js';
import { presentV1WebhookEvent } from '../surfaces/public-v1/webhook-events.presenter.js';
import { ATTEMPT_TIMEOUT_MS, recordScheduled, recordSuccesses, sendOnce, type SendOptions, type Success } from '../domain/webhooks/attempt.js';

export interface RelayLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface RelayOptions {
  /** How often the outbox is read when nothing wakes the relay sooner. */
  pollMs?: number;
  /** Endpoints sent to at once by this process. */
  concurrency?: number;
  /** How long a claim on an endpoint lasts without renewal; comfortably longer than one attempt's 10 s. */
  leaseMs?: number;
  /** Jitter of the retry schedule, in [0, 1). */
  random?: () => number;
  /** The resolver behind the connect-time address check. */
  resolve?: Resolve;
  /** Distinguishes this process in leases. */
  instanceId?: string;
  log?: RelayLog;
  /** Told of every attempt's outcome (the metrics). */
  onAttempt?: (outcome: 'success' | 'failure') => void;
  /** Payload presenters per format (the surfaces' own by default). */
  builders?: Record<WebhookFormat, PayloadBuilder>;
}

const FANOUT_BATCH = 500;
/** Deliveries of one endpoint read at once; they are still sent one by one, in order. */
const QUEUE_BATCH = 50;
/** Successes recorded together at most: a crash sends at most this many deliveries again. */
const SUCCESS_RUN = 20;
/** …and for this long at most, so the health fields stay current with a slow receiver. */
const SUCCESS_RUN_MS = 100;
const PRUNE_EVERY_MS = 3_600_000;
const REPAIR_EVERY_MS = 60_000;
/**
 * Passes woken by writes start at least this far apart. A pass costs the same for one event as for twenty (a
 * transaction of five or six statements), so at 200 single-page writes a second a 5 ms gap made a pass per write
 * (a fifth of a registration's CPU on PostgreSQL); 20 ms takes about four at once and adds at most 20 ms to commit
 * to delivery (aim: p99 under 250 ms).
 */
const MIN_PASS_GAP_MS = 20;
/** Finished deliveries and their attempts are kept this long, for the attempt log and redelivery. */
export const RETENTION_DAYS = 30;

const consoleLog: RelayLog = {
  error: (obj, msg) => console.error(msg, obj),
  info: () => {},
};

/** An endpoint an event may go to, with the events it subscribed to. */
interface Target {
  id: number;
  format: WebhookFormat;
  enabled: number;
  from_event_id: number;
  subscribed: string[];
}

/** An outbox row as the presenters read it, its facts parsed. */
const outboxEvent = (r: { id: number; type: string; publisher_id: number | null; page_id: number | null; account_id: number | null; payload: string; created_at: string }): OutboxEvent => ({
  id: r.id,
  type: r.type as EventType,
  publisherId: r.publisher_id,
  pageId: r.page_id,
  accountId: r.account_id,
  facts: JSON.parse(r.payload) as unknown,
  createdAt: r.created_at,
});

export function defaultBuilders(siteUrl: string): Record<WebhookFormat, PayloadBuilder> {
  return {
    v1: (e) => presentV1WebhookEvent(siteUrl, e),
    api_v1: (e) => presentApiWebhookEvent(siteUrl, e),
    contributor: (e) => presentContributorWebhookEvent(siteUrl, e),
  };
}

export class WebhookRelay {
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly random: () => number;
  private readonly instanceId: string;
  private readonly log: RelayLog;
  private readonly builders: Record<WebhookFormat, PayloadBuilder>;
  private readonly sendOptions: SendOptions;
  private readonly onAttempt: (outcome: 'success' | 'failure') => void;
  private readonly agents = keepAliveAgents();
  /** Endpoints this process is sending to, and the work on each. */
  private readonly active = new Map<number, Promise<void>>();
  private running = false;
  /** Set while stop() waits: workers finish the attempt under way and send nothing more. */
  private stopping = false;
  private loop: Promise<void> | null = null;
  private woken = false;
  private wakeUp: (() => void) | null = null;
  private lastPrune = 0;
  /**
   * Whether a delivery may have become due since the last look: the fan-out queued one, a worker ended (something
   * may have arrived for its endpoint meanwhile), or a poll interval passed (retries come due with time, and other
   * processes fan out too). A pass woken by a write whose event no endpoint wants then skips the look.
   */
  private dueMaybe = true;
  private lastDueLook = 0;
  private lastRepair = Date.now();
  /** Attempts made by this relay, for tick()'s report. */
  private attempts = 0;

  constructor(
    private readonly deps: Deps,
    opts: RelayOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? 100;
    this.concurrency = opts.concurrency ?? 32;
    this.leaseMs = opts.leaseMs ?? 20_000;
    this.random = opts.random ?? Math.random;
    this.instanceId = opts.instanceId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.log = opts.log ?? consoleLog;
    this.builders = opts.builders ?? defaultBuilders(deps.config.siteUrl);
    this.onAttempt = opts.onAttempt ?? (() => {});
    const resolve = opts.resolve ?? deps.resolve;
    this.sendOptions = {
      allowPrivate: deps.config.webhookAllowPrivate,
      ...(resolve ? { resolve } : {}),
      // Connections are reused across attempts (a TCP connect and close per delivery was a third of its CPU).
      agents: this.agents,
    };
  }

  /** Run passes in the background until stop(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stop reading the outbox and wait for the attempts under way (each ends within its 10 s). */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping = true;
    this.wake();
    await this.loop;
    this.loop = null;
    await Promise.allSettled([...this.active.values()]);
    this.agents.destroy();
    this.stopping = false;
  }

  /** Something was just written: look at the outbox now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** One pass: fan out every new event, then attempt every delivery due now and wait for the attempts. */
  async tick(): Promise<{ fannedOut: number; attempts: number }> {
    const before = this.attempts;
    const fannedOut = await this.fanOut();
    await this.replay();
    // An endpoint's work ends when its queue head is not due; another round picks up what became due meanwhile.
    for (let round = 0; round < 1000; round++) {
      await this.startDueWorkers();
      if (this.active.size === 0) break;
      await Promise.allSettled([...this.active.values()]);
    }
    return { fannedOut, attempts: this.attempts - before };
  }

  private async run(): Promise<void> {
    // The embedded database serves one process by design: leases it finds were left by a process that died.
    if (this.deps.dialect === 'sqlite') await store.clearLeases(this.deps.db).catch((err: unknown) => this.log.error({ err }, 'webhook relay: clearing leases failed'));
    // Failed passes in a row (the database is down): logged once, then retried less and less often, up to 5 s.
    let failures = 0;
    while (this.running) {
      const started = performance.now();
      try {
        await this.fanOut();
        await this.replay();
        if (this.dueMaybe || performance.now() - this.lastDueLook >= this.pollMs) await this.startDueWorkers();
        await this.pruneNowAndThen();
        if (failures > 0) this.log.info({ failures }, 'webhook relay passes succeed again');
        failures = 0;
      } catch (err) {
        if (failures === 0) this.log.error({ err }, 'webhook relay pass failed; retrying');
        failures++;
      }
      // Woken by every commit, the relay would make a pass per event under load; one pass per few milliseconds
      // takes the events of several commits at once for no visible delay.
      const backoff = failures === 0 ? 0 : Math.min(5000, this.pollMs * 2 ** Math.min(failures, 6));
      await this.sleep(failures === 0 ? this.pollMs : backoff, started + Math.max(MIN_PASS_GAP_MS, backoff));
    }
  }

  private sleep(ms: number, notBefore: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        this.woken = false;
        const early = notBefore - performance.now();
        if (early > 0 && this.running) setTimeout(resolve, early);
        else resolve();
      };
      const timer = setTimeout(done, ms);
      if (this.woken || !this.running) done();
      else this.wakeUp = done;
    });
  }

  /** Fan out every event not yet relayed; returns how many events were read. */
  async fanOut(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.deps.db.transaction().execute(async (trx) => {
        if (!(await store.lockFanout(trx, this.deps.dialect))) return 0;
        const rows = await store.unrelayedEvents(trx, FANOUT_BATCH);
        if (rows.length === 0) return 0;
        const now = this.deps.clock.now().toISOString();
        const events = rows.map(outboxEvent);

        // Panel statements reach the /v1 endpoints of publishers with pages on the statement's topic.
        const byTopic = new Map<string, Set<number>>();
        if (events.some((e) => e.type === 'panel.updated')) {
          const withV1 = await store.publishersWithEndpoints(trx, 'v1');
          for (const r of await store.pageTopicsOfPublishers(trx, withV1)) {
            const key = normaliseTopic(r.topic);
            if (!byTopic.has(key)) byTopic.set(key, new Set());
            byTopic.get(key)!.add(r.publisher_id);
          }
        }
        const targetsOf = (e: OutboxEvent): number[] =>
          e.type === 'panel.updated'
            ? [...new Set(panelTopics(e.facts as PanelUpdatedFacts).flatMap((t) => [...(byTopic.get(normaliseTopic(t)) ?? [])]))]
            : e.publisherId !== null
              ? [e.publisherId]
              : [];

        const publisherIds = [...new Set(events.flatMap(targetsOf))];
        const byPublisher = new Map<number, Target[]>();
        for (const ep of await store.endpointsOfPublishers(trx, publisherIds)) {
          const list = byPublisher.get(ep.publisher_id!) ?? [];
          list.push({ ...ep, subscribed: JSON.parse(ep.events) as string[] });
          byPublisher.set(ep.publisher_id!, list);
        }

        // A person's own endpoints: the events about them, and notices on pages the record names them on.
        const namedOn = new Map<number, number[]>();
        const noticed = events.flatMap((e) => (e.type === 'page.notice' && e.pageId !== null ? [e.pageId] : []));
        for (const r of await store.peopleNamedOn(trx, [...new Set(noticed)])) namedOn.set(r.page_id, [...(namedOn.get(r.page_id) ?? []), r.account_id]);
        const peopleOf = (e: OutboxEvent): number[] =>
          e.type === 'page.notice' ? (namedOn.get(e.pageId ?? 0) ?? []) : e.accountId !== null ? [e.accountId] : [];
        const byPerson = new Map<number, Target[]>();
        for (const ep of await store.ownEndpointsOf(trx, [...new Set(events.flatMap(peopleOf))])) {
          byPerson.set(ep.account_id, [...(byPerson.get(ep.account_id) ?? []), { ...ep, subscribed: JSON.parse(ep.events) as string[] }]);
        }
        const endpointsFor = (e: OutboxEvent): Target[] => [
          ...targetsOf(e).flatMap((id) => byPublisher.get(id) ?? []),
          ...peopleOf(e).flatMap((id) => byPerson.get(id) ?? []),
        ];

        const deliveries: Parameters<typeof store.insertDeliveries>[1] = [];
        const touched = new Set<number>();
        for (const e of events) {
          const bodies = new Map<WebhookFormat, string | null>();
          for (const ep of endpointsFor(e)) {
            if (e.id <= ep.from_event_id) continue;
            if (!EVENTS_BY_FORMAT[ep.format].includes(e.type) || !ep.subscribed.includes(e.type)) continue;
            if (!bodies.has(ep.format)) bodies.set(ep.format, this.build(ep.format, e));
            const body = bodies.get(ep.format);
            if (!body) continue;
            deliveries.push({ webhook_id: ep.id, event_id: e.id, event_type: e.type, body, status: ep.enabled === 1 ? 'pending' : 'held', now });
            if (ep.enabled === 1) touched.add(ep.id);
          }
        }
        await store.insertDeliveries(trx, deliveries);
        // SPEC §10: a new event for an endpoint retries its waiting deliveries first. Whoever can cause events can so
        // cause attempts, but not a disabling: that needs 24 hours of failing (schedule.ts).
        await store.pullQueuesForward(trx, [...touched], now);
        if (touched.size > 0) this.dueMaybe = true;
        await store.markRelayed(
          trx,
          rows.map((r) => r.id),
          now,
        );
        return rows.length;
      });
      total += n;
      if (n < FANOUT_BATCH) return total;
    }
  }

  /**
   * Carry out the owners' replay requests: each event since the request's time that the endpoint is owed
   * (its publication's, or a panel statement on one of its pages' topics for a /v1 endpoint; subscribed; after it was
   * registered) is queued again as a replay, its body built afresh. One request a transaction, done once: safe to
   * run twice, and under the fan-out lock so two processes do not both do it.
   */
  async replay(): Promise<number> {
    let done = 0;
    for (;;) {
      const more = await this.deps.db.transaction().execute(async (trx) => {
        if (!(await store.lockFanout(trx, this.deps.dialect))) return false;
        const [r] = await store.pendingReplays(trx, 1);
        if (!r) return false;
        const now = this.deps.clock.now().toISOString();
        const ep = await store.replayTarget(trx, r.webhook_id);
        let count = 0;
        if (ep) {
          const subscribed = JSON.parse(ep.events) as string[];
          const topics = new Set((await store.pageTopicsOfPublishers(trx, ep.publisher_id === null ? [] : [ep.publisher_id])).map((t) => normaliseTopic(t.topic)));
          let after = 0;
          for (;;) {
            const rows = await store.eventsSince(trx, { webhookId: ep.id, publisherId: ep.publisher_id, accountId: ep.account_id }, r.since, ep.from_event_id, after, FANOUT_BATCH);
            if (rows.length === 0) break;
            after = rows.at(-1)!.id;
            const queued: Parameters<typeof store.queueReplays>[1] = [];
            for (const row of rows) {
              const e = outboxEvent(row);
              if (!EVENTS_BY_FORMAT[ep.format].includes(e.type) || !subscribed.includes(e.type)) continue;
              if (e.type === 'panel.updated' && !panelTopics(e.facts as PanelUpdatedFacts).some((t) => topics.has(normaliseTopic(t)))) continue;
              const body = this.build(ep.format, e);
              if (!body) continue;
              queued.push({ webhook_id: ep.id, event_id: e.id, event_type: e.type, body, status: ep.enabled === 1 ? 'pending' : 'held', now });
            }
            await store.queueReplays(trx, queued);
            count += queued.length;
          }
          if (count > 0 && ep.enabled === 1) {
            await store.pullQueuesForward(trx, [ep.id], now);
            this.dueMaybe = true;
          }
        }
        await store.finishReplay(trx, r.id, count, now);
        return true;
      });
      if (!more) return done;
      done++;
    }
  }

  /** The body for one format, or null when the format has no such event or its facts cannot be read. */
  private build(format: WebhookFormat, e: OutboxEvent): string | null {
    try {
      const payload = this.builders[format](e);
      return payload === null || payload === undefined ? null : JSON.stringify(payload);
    } catch (err) {
      // One malformed event must not stop the outbox: it is logged and skipped for this format.
      this.log.error({ err, eventId: e.id, type: e.type, format }, 'webhook payload could not be built; event skipped');
      return null;
    }
  }

  private async startDueWorkers(): Promise<void> {
    const free = this.concurrency - this.active.size;
    if (free <= 0) return;
    // Cleared before the read: whatever sets it again meanwhile gets a look of its own.
    this.dueMaybe = false;
    this.lastDueLook = performance.now();
    const now = this.deps.clock.now();
    const ids = await store.dueEndpoints(this.deps.db, now.toISOString(), free, [...this.active.keys()]);
    for (const id of ids) {
      const until = new Date(now.getTime() + this.leaseMs);
      if (!(await store.claimEndpoint(this.deps.db, id, this.instanceId, now.toISOString(), until.toISOString()))) continue;
      const work = this.work(id, until.getTime())
        .catch((err: unknown) => this.log.error({ err, webhookId: id }, 'webhook delivery failed unexpectedly; will retry'))
        .finally(() => {
          this.active.delete(id);
          this.dueMaybe = true;
          // Anything that arrived for this endpoint while its work was ending is picked up now.
          if (this.running) this.wake();
        });
      this.active.set(id, work);
    }
  }

  /** Send one endpoint's due deliveries in order, while this process holds its lease. */
  private async work(webhookId: number, leaseUntilMs: number): Promise<void> {
    const db = this.deps.db;
    // Successes are recorded a few at a time (recordSuccesses); always before the queue is read again, so a
    // delivery that went through is never read as pending by the sender that sent it.
    let successes: Success[] = [];
    let runStarted = 0;
    let endpoint = await store.endpointForSend(db, webhookId);
    const flush = async () => {
      if (successes.length === 0) return;
      const run = successes;
      successes = [];
      this.attempts += run.length;
      for (let i = 0; i < run.length; i++) this.onAttempt('success');
      endpoint = await recordSuccesses(this.deps, webhookId, run);
    };
    try {
      while (!this.stopping && endpoint && endpoint.enabled === 1) {
        // Read before the queue: a delivery made after this read moves the sequence, and settleDue then refuses.
        const seq = endpoint.wake_seq;
        // The queue is read a batch at a time; only this process sends to this endpoint while it holds the lease.
        const batch = await store.queue(db, webhookId, QUEUE_BATCH);
        const head = batch[0];
        if (!head || head.next_attempt_at > this.deps.clock.now().toISOString()) {
          if (await store.settleDue(db, webhookId, head?.next_attempt_at ?? null, seq)) return;
          endpoint = await store.endpointForSend(db, webhookId);
          continue;
        }
        // The ceiling per destination, shared by every instance: take sends for the due head of the queue from the
        // host's minute; what the minute cannot take waits for the next one, in order, unattempted.
        const nowIso = this.deps.clock.now().toISOString();
        const dueCount = batch.findIndex((d) => d.next_attempt_at > nowIso);
        const want = dueCount === -1 ? batch.length : dueCount;
        const window = minuteOf(this.deps.clock.now());
        const host = destinationOf(endpoint.url);
        const granted = await store.takeHostSends(db, host, window.start, want, this.deps.config.webhookHostDeliveriesPerMinute);
        if (granted === 0) {
          await store.deferQueue(db, webhookId, window.end);
          continue;
        }
        let sent = 0;
        for (const delivery of batch) {
          const now = this.deps.clock.now();
          if (sent >= granted) break;
          if (this.stopping || !endpoint || endpoint.enabled !== 1 || delivery.next_attempt_at > now.toISOString()) break;
          sent++;
          // Every attempt starts with the lease good for longer than the attempt can last, so no other process can
          // take the endpoint and send the same delivery meanwhile. A lost lease means another process took over.
          if (leaseUntilMs - now.getTime() < ATTEMPT_TIMEOUT_MS + 5_000) {
            await flush();
            leaseUntilMs = now.getTime() + this.leaseMs;
            if (!(await store.renewLease(db, webhookId, this.instanceId, new Date(leaseUntilMs).toISOString()))) return;
          }
          const result = await sendOnce(endpoint, delivery, now, this.sendOptions);
          if (result.success) {
            if (successes.length === 0) runStarted = performance.now();
            successes.push({ delivery, result, started: now });
            if (successes.length >= SUCCESS_RUN || performance.now() - runStarted >= SUCCESS_RUN_MS) await flush();
            continue;
          }
          await flush();
          let recorded;
          try {
            recorded = await recordScheduled(this.deps, delivery, result, { started: now, finished: this.deps.clock.now() }, this.random);
          } catch (err) {
            // The endpoint was deleted while we were sending: its deliveries went with it.
            if (!(await store.endpointForSend(db, webhookId))) return;
            if (isUniqueViolation(err)) return;
            throw err;
          }
          this.attempts++;
          this.onAttempt('failure');
          if (recorded.disabled) {
            this.log.info({ webhookId }, 'webhook disabled after failing for 24 hours (20 failed attempts in a row or more); its deliveries are held');
            await store.returnHostSends(db, host, window.start, granted - sent);
            return;
          }
          endpoint = recorded.endpoint;
          // A failure holds the queue until its retry: read it again (its head is no longer due).
          break;
        }
        await flush();
        if (sent < granted) await store.returnHostSends(db, host, window.start, granted - sent);
        else if (granted < want) await store.deferQueue(db, webhookId, window.end);
      }
    } catch (err) {
      // The endpoint was deleted while its successes waited to be recorded: they went with it.
      if (await store.endpointForSend(db, webhookId)) throw err;
    } finally {
      await flush().catch(() => {});
      await store.releaseEndpoint(db, webhookId, this.instanceId).catch(() => {});
    }
  }

  /** Housekeeping on the way: forget old finished deliveries hourly; make due any queue left without a time. */
  private async pruneNowAndThen(): Promise<void> {
    const now = Date.now();
    if (now - this.lastRepair >= REPAIR_EVERY_MS) {
      this.lastRepair = now;
      const repaired = await store.repairDue(this.deps.db);
      if (repaired > 0) this.log.info({ repaired }, 'webhook relay: queues without a due time were made due');
    }
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    const before = new Date(this.deps.clock.now().getTime() - RETENTION_DAYS * 86_400_000).toISOString();
    await store.pruneFinished(this.deps.db, before);
    await store.pruneHostWindows(this.deps.db, new Date(this.deps.clock.now().getTime() - PRUNE_EVERY_MS).toISOString());
  }
}

/** The relay of `credence serve`: started at once, stopped at shutdown. */
export function startWebhookRelay(deps: Deps, opts: RelayOptions = {}): WebhookRelay {
  const relay = new WebhookRelay(deps, opts);
  relay.start();
  return relay;
}
