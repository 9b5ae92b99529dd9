// Prometheus metrics (prom-client), one registry per app so tests can build many apps in one process. What an
// operator watches: request rate and latency by route, the record cache's hit rate, the relay's backlog and lag,
// webhook delivery outcomes, rate-limit refusals, and the process's own figures (CPU, memory, event-loop lag).
// Served only where the operator said (METRICS_PORT, or METRICS_TOKEN on the main port): never public by default.
import { Counter, collectDefaultMetrics, Gauge, type Histogram, type MetricValueWithName, Registry } from 'prom-client';
import type { Deps } from '../domain/deps.js';
import { outboxBacklog, pendingDeliveries } from '../domain/webhooks/webhook.store.js';
import { feedStreamsOf } from '../surfaces/changes.streams.js';

export interface Metrics {
  registry: Registry;
  /** One answered request: its route pattern (bounded), method and status. */
  request(route: string, method: string, status: number, seconds: number): void;
  /** One webhook attempt's outcome. */
  attempt(outcome: 'success' | 'failure', format?: string): void;
}

export function createMetrics(deps: Deps): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'credence_' });

  // Requests are counted in a small structure of our own (one entry per route pattern and method, so bounded) and
  // handed to prom-client at scrape time: its inc() and observe() hash the label object on every call, sorting the
  // label names and building strings, about 5 µs per request on a warm lookup. The exposition is the
  // same, names, labels, buckets and help included, and so is what `serve --workers` sums across workers.
  const series = new RequestSeries();
  new Counter({
    name: 'credence_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
    collect() {
      for (const n of series.answers()) {
        if (n.count > n.reported) this.inc({ route: n.route, method: n.method, status: String(n.status) }, n.count - n.reported);
        n.reported = n.count;
      }
    },
  });
  // prom-client takes any object with a name, help, type and get() (its cluster aggregation registers such objects
  // itself); get() answers in the shape Histogram.get() does, so the text and the workers' sum are unchanged.
  registry.registerMetric(series.histogram('credence_http_request_duration_seconds', 'Time from the request arriving to the answer being sent, by route pattern and method') as unknown as Histogram);
  const refusals = new Counter({
    name: 'credence_rate_limit_refusals_total',
    help: 'Requests refused with 429 rate_limited, by route pattern',
    labelNames: ['route'],
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'credence_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome (success: a 2xx answer)',
    labelNames: ['outcome'],
    registers: [registry],
  });

  // The cache counts for itself (two integer increments per lookup); the counters catch up at each scrape.
  const seen = { hits: 0, misses: 0 };
  new Counter({
    name: 'credence_record_cache_requests_total',
    help: 'Record-cache reads by result (hit: answered from memory; miss: loaded from the database)',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      const now = deps.recordCache.stats?.();
      if (!now) return;
      this.inc({ result: 'hit' }, now.hits - seen.hits);
      this.inc({ result: 'miss' }, now.misses - seen.misses);
      seen.hits = now.hits;
      seen.misses = now.misses;
    },
  });

  // The change feed's live streams: how many are open, and what reading the log costs them. The follower
  // reads each entry once for the whole process; streams read it themselves only to catch up from their cursor.
  new Gauge({
    name: 'credence_feed_streams_open',
    help: 'Live change-feed streams (Server-Sent Events) open in this process',
    registers: [registry],
    collect() {
      this.set(feedStreamsOf(deps)?.open ?? 0);
    },
  });
  const logReads = { entries: 0, catchUps: 0 };
  new Counter({
    name: 'credence_change_log_entries_read_total',
    help: 'Change-log entries read by this process’s change follower: once each, whatever number of live streams it is fanned out to',
    registers: [registry],
    collect() {
      this.inc(deps.changes.entriesRead - logReads.entries);
      logReads.entries = deps.changes.entriesRead;
    },
  });
  new Counter({
    name: 'credence_feed_catch_up_reads_total',
    help: 'Change-log queries made by live streams catching up from their cursor (when they open, or over a gap); new entries reach caught-up streams without any',
    registers: [registry],
    collect() {
      const n = feedStreamsOf(deps)?.catchUpReads ?? 0;
      this.inc(n - logReads.catchUps);
      logReads.catchUps = n;
    },
  });

  // Backlog figures are read from the database at scrape time (a bounded count each); a scrape while the database
  // is down leaves them at their last value rather than failing the whole scrape.
  const backlog = new Gauge({ name: 'credence_relay_backlog_events', help: 'Committed events the relay has not fanned out yet (counted up to 10,000)', registers: [registry], aggregator: 'max' });
  const lag = new Gauge({ name: 'credence_relay_lag_seconds', help: 'Age of the oldest event not fanned out yet (0 when none)', registers: [registry], aggregator: 'max' });
  const pending = new Gauge({ name: 'credence_webhook_deliveries_pending', help: 'Deliveries waiting to be sent (queued or retrying)', registers: [registry], aggregator: 'max' });
  const pendingAge = new Gauge({ name: 'credence_webhook_oldest_pending_seconds', help: 'Age of the oldest delivery waiting to be sent (0 when none)', registers: [registry], aggregator: 'max' });
  new Gauge({
    name: 'credence_relay_scrape_ok',
    help: '1 when the backlog figures above were read at this scrape, 0 when the database could not be read',
    registers: [registry],
    // Several workers read the same database: the figures are the same, so the cluster shows one, not a sum.
    aggregator: 'min',
    async collect() {
      try {
        const [events, deliveries] = await Promise.all([outboxBacklog(deps.db), pendingDeliveries(deps.db)]);
        const now = deps.clock.now().getTime();
        const age = (iso: string | null) => (iso ? Math.max(0, (now - Date.parse(iso)) / 1000) : 0);
        backlog.set(events.events);
        lag.set(age(events.oldestAt));
        pending.set(deliveries.deliveries);
        pendingAge.set(age(deliveries.oldestAt));
        this.set(1);
      } catch {
        this.set(0);
      }
    },
  });

  return {
    registry,
    request(route, method, status, seconds) {
      series.record(route, method, status, seconds);
      if (status === 429) refusals.inc({ route });
    },
    attempt(outcome) {
      attempts.inc({ outcome });
    },
  };
}

/** The duration histogram's upper bounds, in seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Answers of one route, method and status; `reported` is what the requests counter has been given so far. */
interface Answers {
  route: string;
  method: string;
  status: number;
  count: number;
  reported: number;
}

interface Series {
  route: string;
  method: string;
  statuses: Map<number, Answers>;
  /** Observations per bucket (not cumulative: the exposition adds them up), then the sum and count of all. */
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * Answered requests by route pattern and method: a few Map reads and additions per request, no label object. Routes
 * are patterns and methods a fixed few, so the entries are bounded.
 */
class RequestSeries {
  private readonly byRoute = new Map<string, Map<string, Series>>();
  // Both in the order first seen, as prom-client lists its series.
  private readonly ordered: Series[] = [];
  private readonly answered: Answers[] = [];

  record(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map()));
    let s = byMethod.get(method);
    if (!s) {
      s = { route, method, statuses: new Map(), buckets: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 };
      byMethod.set(method, s);
      this.ordered.push(s);
    }
    const n = s.statuses.get(status);
    if (n) n.count++;
    else {
      const first = { route, method, status, count: 1, reported: 0 };
      s.statuses.set(status, first);
      this.answered.push(first);
    }
    // The first bound at or above the value, as prom-client's observe() finds it; past the last, only +Inf counts.
    for (let i = 0; i < DURATION_BUCKETS.length; i++) {
      if (seconds <= DURATION_BUCKETS[i]!) {
        s.buckets[i]!++;
        break;
      }
    }
    s.sum += seconds;
    s.count++;
  }

  answers(): readonly Answers[] {
    return this.answered;
  }

  /** A metric object prom-client's Registry accepts, reading these series at each scrape. */
  histogram(name: string, help: string) {
    const values = (): MetricValueWithName<string>[] => {
      const out: MetricValueWithName<string>[] = [];
      for (const s of this.ordered) {
        const labels = { route: s.route, method: s.method };
        let total = 0;
        DURATION_BUCKETS.forEach((le, i) => {
          total += s.buckets[i]!;
          out.push({ value: total, metricName: `${name}_bucket`, labels: { le, ...labels } });
        });
        out.push(
          { value: s.count, metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels } },
          { value: s.sum, metricName: `${name}_sum`, labels: { ...labels } },
          { value: s.count, metricName: `${name}_count`, labels: { ...labels } },
        );
      }
      return out;
    };
    return {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({ name, help, type: 'histogram', aggregator: 'sum', values: values() }),
      reset: () => {
        this.byRoute.clear();
        this.ordered.length = 0;
        this.answered.length = 0;
      },
    };
  }
}
