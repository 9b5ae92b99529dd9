// `serve --workers N`: N processes sharing one port through node:cluster (the primary accepts connections and
// hands them to the workers in turn). The primary serves no request: it applies migrations once, forks the
// workers, starts again any that dies, serves the workers' metrics summed (METRICS_PORT), and on SIGTERM/SIGINT
// passes the signal on and waits for every worker to finish its requests.
import cluster, { type Worker } from 'node:cluster';
import http from 'node:http';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from '../config.js';

/** Set in a worker's environment: this worker runs the webhook relay (on SQLite only one does). */
export const RELAY_ENV = 'CREDENCE_WORKER_RELAY';

export interface PrimaryOptions {
  workers: number;
  /** Whether every worker may run the relay (PostgreSQL: endpoint leases and the fan-out lock make it safe). */
  relayInEvery: boolean;
  /** The arguments each worker runs `serve` with. */
  argv: string[];
  log: (line: string) => void;
}

export async function runPrimary(config: Config, opts: PrimaryOptions): Promise<void> {
  let stopping = false;
  const roles = new Map<Worker, boolean>();
  cluster.setupPrimary({ args: opts.argv });
  // Round-robin hand-off by the primary (the default everywhere but Windows): even spread under keep-alive load.
  cluster.schedulingPolicy = cluster.SCHED_RR;

  const fork = (relay: boolean): Worker => {
    const worker = cluster.fork({ [RELAY_ENV]: relay ? '1' : '0' });
    roles.set(worker, relay);
    return worker;
  };
  const listening = new Promise<void>((resolve) => {
    let n = 0;
    cluster.on('listening', () => {
      if (++n === opts.workers) resolve();
    });
  });
  for (let i = 0; i < opts.workers; i++) fork(opts.relayInEvery || i === 0);

  cluster.on('exit', (worker, code, signal) => {
    const relay = roles.get(worker) ?? false;
    roles.delete(worker);
    if (stopping) return;
    opts.log(`credence: worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    // A worker that dies at once (a bad setting) must not make the primary spin.
    setTimeout(() => {
      if (!stopping) fork(relay);
    }, 1000).unref();
  });

  let metricsServer: http.Server | undefined;
  if (config.metricsPort !== undefined) {
    const aggregator = new AggregatorRegistry();
    metricsServer = http.createServer((req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      aggregator.clusterMetrics().then(
        (text) => res.writeHead(200, { 'Content-Type': aggregator.contentType }).end(text),
        (err: unknown) => res.writeHead(500).end(String((err as Error).message)),
      );
    });
    await new Promise<void>((resolve) => metricsServer!.listen(config.metricsPort, config.metricsHost, resolve));
  }

  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    opts.log(`credence: ${signal}: stopping ${roles.size} workers`);
    for (const worker of roles.keys()) worker.process.kill(signal);
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 5000).unref();
    const wait = () => {
      if (roles.size === 0) {
        metricsServer?.close();
        process.exit(0);
      }
    };
    cluster.on('exit', wait);
    wait();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  await listening;
}
