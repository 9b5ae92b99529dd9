// A benchmark target, run as a child process so the load generator does not share its event loop:
//   app   the real service (createRuntime + buildApp) on the fixture database, rate limits lifted for 127.0.0.1
//         through the operator setting RATE_LIMIT_ALLOWLIST, as an operator would for a trusted caller;
//   bare  a Fastify route returning a constant object: the ceiling for this machine, process model and client;
//         and one returning a constant object as large as a lookup answer.
// It listens on an ephemeral loopback port and tells the parent over IPC; the parent asks for cache counts
// between scenarios (and, with --cpu-prof, to profile the measured seconds) and stops it with SIGTERM.
import fs from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';
import type { FastifyInstance } from 'fastify';
import { bareApp } from './bare.mjs';
import type { Load, RecordCache } from '../src/domain/pages/record-cache.js';
import { compiled } from './compiled.js';

export type TargetName = 'app' | 'bare' | 'app-pg';

export type ParentMessage = { type: 'stats' } | { type: 'profile-start' } | { type: 'profile-stop'; file: string };
export type ChildMessage =
  | { type: 'listening'; port: number }
  | { type: 'profiling' }
  | { type: 'profiled'; file: string }
  | {
      type: 'stats';
      cacheCalls: number;
      cacheMisses: number;
      rssBytes: number;
      cpuMicros: number;
      /** The kernel's part of cpuMicros: sending on loopback sockets, mostly. */
      systemMicros: number;
      /** Time in V8's garbage collection pauses (PerformanceObserver 'gc' entries), on the main thread. */
      gcMicros: number;
      elapsedMicros: number;
    };

/** Counts record-cache calls and loads; one increment and one closure per lookup, too small to show. */
class CountingCache implements RecordCache {
  calls = 0;
  misses = 0;
  constructor(private readonly inner: RecordCache) {}
  getOrLoad<T>(key: string, load: Load<T>): Promise<T> {
    return Promise.resolve(this.getNow(key, load));
  }
  getNow<T>(key: string, load: Load<T>): T | Promise<T> {
    this.calls++;
    return this.inner.getNow(key, (track) => {
      this.misses++;
      return load(track);
    });
  }
  peek<T>(key: string): T | undefined {
    this.calls++;
    return this.inner.peek<T>(key);
  }
  invalidate(tags: Iterable<string>): void {
    this.inner.invalidate(tags);
  }
  invalidateAll(): void {
    this.inner.invalidateAll();
  }
  surrogateKeys(key: string): string | undefined {
    return this.inner.surrogateKeys(key);
  }
}

async function start(target: TargetName, dataDir: string, databaseUrl: string): Promise<{ app: FastifyInstance; cache?: CountingCache; close(): Promise<void> }> {
  if (target === 'bare') {
    const app = bareApp();
    return { app, close: () => app.close() };
  }
  // The compiled service, as users run it (compiled.ts).
  const { buildApp } = await compiled<typeof import('../src/app.js')>('app');
  const { loadConfig } = await compiled<typeof import('../src/config.js')>('config');
  const { createRuntime } = await compiled<typeof import('../src/deps.js')>('deps');
  // app-pg: the same app on the same data loaded into PostgreSQL (a schema of its own).
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_ALLOWLIST: '127.0.0.1',
    ...(target === 'app-pg' ? { DATABASE_URL: databaseUrl } : {}),
  });
  const rt = await createRuntime(config);
  const cache = new CountingCache(rt.deps.recordCache);
  rt.deps.recordCache = cache;
  const { app } = await buildApp(rt.deps);
  return {
    app,
    cache,
    async close() {
      await app.close();
      await rt.close();
    },
  };
}

async function main(): Promise<void> {
  const [target, dataDir, databaseUrl = ''] = process.argv.slice(2) as [TargetName, string, string?];
  if (!process.send) throw new Error('bench/server.ts runs as a child of bench/run.ts');
  const send = (m: ChildMessage) => process.send!(m);
  const server = await start(target, dataDir, databaseUrl);
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const address = server.app.server.address();
  send({ type: 'listening', port: typeof address === 'object' && address ? address.port : 0 });

  // Counters since the previous ask. CPU time is this process's own (user + system), whatever the client's speed.
  let gcMicros = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMicros += e.duration * 1000;
  }).observe({ entryTypes: ['gc'] });
  let cpuSince = process.cpuUsage();
  let hrSince = process.hrtime.bigint();
  // --cpu-prof: V8's sampling profiler over the measured seconds only, through the inspector.
  let session: Session | null = null;
  process.on('message', (m: ParentMessage) => {
    if (m.type === 'profile-start') {
      session = new Session();
      session.connect();
      void session
        .post('Profiler.enable')
        .then(() => session!.post('Profiler.start'))
        .then(() => send({ type: 'profiling' }));
      return;
    }
    if (m.type === 'profile-stop') {
      const s = session!;
      session = null;
      void s.post('Profiler.stop').then(({ profile }) => {
        s.disconnect();
        fs.writeFileSync(m.file, JSON.stringify(profile));
        send({ type: 'profiled', file: m.file });
      });
      return;
    }
    if (m.type !== 'stats') return;
    const c = server.cache;
    const cpu = process.cpuUsage(cpuSince);
    const now = process.hrtime.bigint();
    send({
      type: 'stats',
      cacheCalls: c?.calls ?? 0,
      cacheMisses: c?.misses ?? 0,
      rssBytes: process.memoryUsage().rss,
      cpuMicros: cpu.user + cpu.system,
      systemMicros: cpu.system,
      gcMicros,
      elapsedMicros: Number((now - hrSince) / 1000n),
    });
    if (c) c.calls = c.misses = 0;
    gcMicros = 0;
    cpuSince = process.cpuUsage();
    hrSince = now;
  });
  process.once('SIGTERM', () => {
    void server.close().then(() => process.exit(0));
  });
  // The parent went away without stopping us (killed, crashed): do not linger.
  process.once('disconnect', () => process.exit(0));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
