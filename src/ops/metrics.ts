// Prometheus metrics (prom-client), one registry per app so tests can build many apps in one process. What an
// operator watches: request rate and latency by route, the record cache's hit rate, the relay's backlog and lag,
// webhook delivery outcomes, rate-limit refusals, and the process's own figures (CPU, memory, event-loop lag).
// Served only where the operator said (METRICS_PORT, or METRICS_TOKEN on the main port): never public by default.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Deps } from '../domain/deps.js';
import { outboxBacklog, pendingDeliveries } from '../domain/webhooks/webhook.store.js';

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

  const requests = new Counter({
    name: 'credence_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'credence_http_request_duration_seconds',
    help: 'Time from the request arriving to the answer being sent, by route pattern and method',
    labelNames: ['route', 'method'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
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
      requests.inc({ route, method, status: String(status) });
      duration.observe({ route, method }, seconds);
      if (status === 429) refusals.inc({ route });
    },
    attempt(outcome) {
      attempts.inc({ outcome });
    },
  };
}
