// The target of `npm run bench:instructions`, run under valgrind: plain JavaScript (no TypeScript loader to
// instrument), loading the compiled service as bench/server.ts does, or the bare target (bare.mjs).
//   node instructions-server.mjs <app|bare> <dataDir> <port>
import { bareApp } from './bare.mjs';

const [target, dataDir, port] = process.argv.slice(2);
let app;
if (target === 'bare') {
  app = bareApp();
} else {
  const dist = new URL('../dist/', import.meta.url);
  const { buildApp } = await import(new URL('app.js', dist).href);
  const { loadConfig } = await import(new URL('config.js', dist).href);
  const { createRuntime } = await import(new URL('deps.js', dist).href);
  const rt = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_ALLOWLIST: '127.0.0.1' }));
  const cache = rt.deps.recordCache;
  // Under valgrind the process runs some 50 times slower, and one collection pause can outlast the cache's 1 s bound
  // on the change follower's last read, dropping every answer: the count would then include reloading them. The
  // cache is vouched for from now on (what the follower invalidates still goes), so a warm request stays a hit.
  cache.vouch(Number.POSITIVE_INFINITY);
  // SIGUSR2: print the cache's hits and misses so far (the parent checks a counted segment missed nothing).
  process.on('SIGUSR2', () => {
    const { hits, misses } = cache.stats();
    console.log(`stats ${hits} ${misses}`);
  });
  ({ app } = await buildApp(rt.deps));
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
console.log(`listening ${process.pid}`);
