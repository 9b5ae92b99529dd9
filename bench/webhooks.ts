// `npx tsx bench/webhooks.ts`: webhook delivery on the embedded database. A receiver in its own process answers
// 200 at once and notes when each delivery arrived; this process runs the real relay (fan-out, signing, sending,
// recording) against a temporary SQLite file, as `credence serve` does.
//
//   npx tsx bench/webhooks.ts [--events 10000] [--endpoints 10] [--rate 200] [--seconds 10]
//
// 1. Throughput: `--events` events are committed while the relay is stopped, then it starts; deliveries per second
//    until every one arrived, to one endpoint (strictly in order, one at a time) and to `--endpoints` endpoints.
// 2. Commit to delivery: events committed one by one through the page service at `--rate` per second for
//    `--seconds`, the relay running and woken after each commit as serve's request hook does; p50 and p99 of the
//    time from the commit returning to the receiver having the body. Also without the wake-up (polling only).
import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { testConfig } from '../src/config.js';
import { createRuntime, type Runtime } from '../src/deps.js';
import { createAccount } from '../src/domain/accounts/account.service.js';
import { appendEvent } from '../src/domain/events/outbox.js';
import { registerPages } from '../src/domain/pages/page.service.js';
import { createPublisher, verifyDomainByOperator } from '../src/domain/publishers/publisher.service.js';
import { registerWebhook } from '../src/domain/webhooks/webhook.service.js';
import { WebhookRelay } from '../src/jobs/relay.js';

const HERE = fileURLToPath(import.meta.url);
const now = () => performance.timeOrigin + performance.now();

type FromReceiver = { type: 'listening'; port: number } | { type: 'arrivals'; arrivals: [string, number][] };

// ---------------------------------------------------------------------------------------------------------------
// The receiver process: answers 200 to everything, keeps (delivery id, arrival time) per path.

function receiver(): void {
  let arrivals: [string, number][] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      arrivals.push([`${req.url} ${String(req.headers['x-service-delivery'])}`, now()]);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  // Connections opened by the relay: with reuse, far fewer than deliveries (printed at exit).
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1', () => process.send!({ type: 'listening', port: (server.address() as AddressInfo).port }));
  process.on('message', (m: { type: string }) => {
    if (m.type === 'arrivals') {
      process.send!({ type: 'arrivals', arrivals });
      arrivals = [];
    }
    if (m.type === 'exit') {
      console.log(`receiver: ${connections} connections opened in all`);
      server.close(() => process.exit(0));
      // Kept-alive connections would hold close() open: end them.
      server.closeAllConnections();
    }
  });
}

// ---------------------------------------------------------------------------------------------------------------

interface Receiver {
  port: number;
  take(): Promise<[string, number][]>;
  stop(): void;
}

async function startReceiver(): Promise<Receiver> {
  const child = fork(HERE, ['--receiver'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m: FromReceiver) => m.type === 'listening' && resolve(m.port)));
  return {
    port,
    take: () =>
      new Promise((resolve) => {
        child.once('message', (m: FromReceiver) => m.type === 'arrivals' && resolve(m.arrivals));
        child.send({ type: 'arrivals' });
      }),
    stop: () => child.send({ type: 'exit' }),
  };
}

const quiet = { error: (obj: object, msg: string) => console.error(msg, obj), info: () => {} };

async function setup(rt: Runtime, endpoints: number, port: number, tag: string) {
  const deps = rt.deps;
  const user = await createAccount(deps, { email: `${tag}@bench.test`, password: 'bench-password-123', name: tag, username: tag });
  const pub = await createPublisher(deps, user.user_id, { name: tag, slug: tag });
  await verifyDomainByOperator(deps, tag, `${tag}.example`);
  for (let i = 0; i < endpoints; i++) {
    await registerWebhook(deps, user.user_id, { url: `http://127.0.0.1:${port}/${tag}/${i}`, events: ['page.registered'], publisher: tag });
  }
  return { publisherId: pub.id, domain: `${tag}.example` };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

async function throughput(rt: Runtime, rx: Receiver, events: number, endpoints: number) {
  const tag = `tp-${endpoints}-${Date.now().toString(36)}`;
  const { publisherId } = await setup(rt, endpoints, rx.port, tag);
  // Commit the events first (fixture setup: straight into the outbox, 500 per transaction).
  const created = new Date().toISOString();
  for (let i = 0; i < events; i += 500) {
    await rt.deps.db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(events, i + 500); j++) {
        await appendEvent(trx, {
          type: 'page.registered',
          publisherId,
          pageId: null,
          payload: { page_id: j + 1, url: `https://${tag}.example/p/${j}`, title: `Page ${j}`, topic: 'health' },
          now: created,
        });
      }
    });
  }
  await rx.take();
  const relay = new WebhookRelay(rt.deps, { log: quiet, pollMs: 20 });
  const started = now();
  const cpuBefore = process.cpuUsage();
  relay.start();
  const expected = events * endpoints;
  let got = 0;
  let last = started;
  while (got < expected) {
    await new Promise((r) => setTimeout(r, 100));
    const batch = (await rx.take()).filter(([k]) => k.startsWith(`/${tag}/`));
    got += batch.length;
    if (batch.length) last = Math.max(last, ...batch.map(([, at]) => at));
    if (now() - started > 600_000) throw new Error(`only ${got} of ${expected} deliveries in 10 minutes`);
  }
  await relay.stop();
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = (last - started) / 1000;
  return { endpoints, deliveries: expected, seconds, perSecond: expected / seconds, cpuUsPerDelivery: (cpu.user + cpu.system) / expected };
}

async function latency(rt: Runtime, rx: Receiver, rate: number, seconds: number, wake: boolean) {
  const tag = `lat-${wake ? 'wake' : 'poll'}-${Date.now().toString(36)}`;
  const { publisherId, domain } = await setup(rt, 1, rx.port, tag);
  const relay = new WebhookRelay(rt.deps, { log: quiet });
  relay.start();
  await rx.take();
  const committed = new Map<number, number>();
  const total = rate * seconds;
  const cpuBefore = process.cpuUsage();
  const interval = 1000 / rate;
  const t0 = now();
  for (let i = 0; i < total; i++) {
    // Open loop: each commit at its planned time, whatever the previous ones cost.
    const wait = t0 + i * interval - now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const [r] = await registerPages(rt.deps, publisherId, [{ index: 0, ok: true, value: { url: `https://${domain}/l/${i}`, title: `L${i}`, topic: 'health' } }]);
    const at = now();
    const ev = await rt.deps.db.selectFrom('events').select('id').where('page_id', '=', r!.id!).where('type', '=', 'page.registered').executeTakeFirstOrThrow();
    committed.set(ev.id, at);
    if (wake) relay.wake();
  }
  const arrivals = new Map<number, number>();
  const deadline = now() + 60_000;
  while (arrivals.size < total && now() < deadline) {
    for (const [k, at] of await rx.take()) {
      if (!k.startsWith(`/${tag}/`)) continue;
      const id = Number(k.split(' ')[1]);
      if (!arrivals.has(id)) arrivals.set(id, at);
    }
    if (arrivals.size < total) await new Promise((r) => setTimeout(r, 100));
  }
  await relay.stop();
  const cpu = process.cpuUsage(cpuBefore);
  const lagsInOrder = [...committed].map(([id, at]) => (arrivals.get(id) ?? Infinity) - at);
  if (process.env.BENCH_DEBUG) console.log(lagsInOrder.map((l, i) => `${i}:${Math.round(l)}`).filter((_x, i) => lagsInOrder[i]! > 150).join(' '));
  const lags = [...lagsInOrder].sort((a, b) => a - b);
  return {
    wake,
    rate,
    events: total,
    delivered: arrivals.size,
    p50: percentile(lags, 50),
    p99: percentile(lags, 99),
    max: lags.at(-1)!,
    cpuUsPerEvent: (cpu.user + cpu.system) / total,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      events: { type: 'string', default: '10000' },
      endpoints: { type: 'string', default: '10' },
      rate: { type: 'string', default: '200' },
      seconds: { type: 'string', default: '10' },
    },
  });
  const cpus = os.cpus();
  console.log(
    `credence webhook bench ${new Date().toISOString()}: ${os.availableParallelism()} CPUs (${cpus[0]?.model.trim()}), ` +
      `${Math.round(os.totalmem() / 1024 ** 3)} GiB, node ${process.version}, SQLite (embedded)`,
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-webhooks-'));
  const rt = await createRuntime(testConfig({ dataDir: dir, webhookAllowPrivate: true, siteUrl: 'https://credence.bench', webhookHostDeliveriesPerMinute: 10_000_000 }));
  const rx = await startReceiver();
  try {
    const events = Number(values.events);
    const aims: string[] = [];
    for (const endpoints of [1, Number(values.endpoints)]) {
      const n = endpoints === 1 ? events : Math.ceil(events / endpoints);
      const r = await throughput(rt, rx, n, endpoints);
      console.log(
        `throughput: ${r.deliveries} deliveries to ${r.endpoints} endpoint(s) in ${r.seconds.toFixed(2)} s: ${Math.round(r.perSecond)} deliveries/s ` +
          `(relay process: ${Math.round(r.cpuUsPerDelivery)} µs CPU per delivery)`,
      );
      if (endpoints === 10) aims.push(`${r.perSecond >= 2500 ? 'PASS' : 'FAIL'}  deliveries to ten endpoints: ${Math.round(r.perSecond)}/s (aim 2,500/s)`);
    }
    for (const wake of [true, false]) {
      const r = await latency(rt, rx, Number(values.rate), Number(values.seconds), wake);
      console.log(
        `commit to delivery (${r.wake ? 'woken by the commit' : 'polling only, every 100 ms'}), ${r.events} events at ${r.rate}/s: ` +
          `p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(1)} ms (${r.delivered} delivered; ` +
          `${Math.round(r.cpuUsPerEvent)} µs CPU per event, commit and delivery)`,
      );
      if (wake && r.rate === 200) aims.push(`${r.p99 < 250 ? 'PASS' : 'FAIL'}  commit to delivery at 200 commits/s: p99 ${r.p99.toFixed(0)} ms (aim < 250 ms)`);
    }
    for (const a of aims) console.log(a);
  } finally {
    rx.stop();
    await rt.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--receiver')) receiver();
else
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
