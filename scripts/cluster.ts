// A local cluster: N `credence serve` instances on one PostgreSQL and one Redis behind HAProxy (Debian's package),
// all on loopback. One module for everyone: `npm run cluster` starts one and keeps it up until Ctrl-C, and the
// cluster tests and the cluster benchmark import LocalCluster from here.
//
//   npm run cluster -- [--instances N] [--port P] [--workers W] [--database-url URL] [--redis-url URL] [--cache]
//
// With --cache, Varnish (Debian's varnish and varnish-modules, for xkey) stands in front of HAProxy with
// deploy/varnish/credence.vcl, on the given port; the instances purge it (CACHE_PURGE_URLS; docs/cache.md).
//
// Without --database-url/--redis-url it starts a private PostgreSQL (initdb + pg_ctl in a temporary folder) and a
// private Redis (redis-server on a free port), and removes them at the end. HAProxy is installed with apt-get when
// missing (as .ci/run does for Chromium).
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const MAIN = path.join(ROOT, 'src/main.ts');
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what}: not ready within ${timeoutMs} ms`);
}

/** A process's output, the last 256 KB of it. */
class Output {
  text = '';
  /** Characters added since the start, dropped ones included: a mark for since(). */
  total = 0;
  add(d: Buffer): void {
    const s = d.toString();
    this.text += s;
    this.total += s.length;
    if (this.text.length > 262_144) this.text = this.text.slice(-262_144);
  }
  /** What was added after `mark` (a value of `total`), as far as it is still kept. */
  since(mark: number): string {
    return this.text.slice(Math.max(0, this.text.length - (this.total - mark)));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Private servers the cluster (or a test) may stop and start at will: never the shared ones.

/** PostgreSQL in a temporary folder. As root, initdb and the server run as the `postgres` user. */
export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private static asPostgres(cmd: string, args: string[]): [string, string[]] {
    return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  }

  static async start(): Promise<PrivatePostgres> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-pg-'));
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
    const [cmd, args] = PrivatePostgres.asPostgres(`${PG_BIN}/initdb`, ['-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    execFileSync(cmd, args, { stdio: 'ignore' });
    const pg = new PrivatePostgres(dir, await freePort());
    await pg.startServer();
    return pg;
  }

  async startServer(): Promise<void> {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 -c shared_buffers=64MB`;
    const [cmd, args] = PrivatePostgres.asPostgres(`${PG_BIN}/pg_ctl`, ['-D', path.join(this.dir, 'data'), '-l', path.join(this.dir, 'log'), '-o', opts, '-w', 'start']);
    execFileSync(cmd, args, { stdio: 'ignore' });
  }

  /** Stop at once (`-m fast`: sessions are cut, as in a crash or failover seen from the clients). */
  async stopServer(): Promise<void> {
    const [cmd, args] = PrivatePostgres.asPostgres(`${PG_BIN}/pg_ctl`, ['-D', path.join(this.dir, 'data'), '-m', 'fast', '-w', 'stop']);
    spawnSync(cmd, args, { stdio: 'ignore' });
  }

  async destroy(): Promise<void> {
    await this.stopServer();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** redis-server on a free loopback port, no persistence. */
export class PrivateRedis {
  private child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort());
    await r.startServer();
    return r;
  }

  async startServer(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitFor('redis', () => portAnswers(this.port), 10_000);
  }

  async stopServer(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async destroy(): Promise<void> {
    await this.stopServer();
  }
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The cluster.

export interface ClusterOptions {
  instances?: number;
  /** The balancer's port (a free one when absent). */
  port?: number;
  /** Processes per instance (`serve --workers`). */
  workers?: number;
  /** Given servers; private ones are started when absent. */
  databaseUrl?: string;
  redisUrl?: string;
  /** Varnish in front of the balancer, purged by the instances (docs/cache.md). */
  cache?: boolean;
  /** More settings for every instance. */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface Instance {
  index: number;
  port: number;
  child: ChildProcess | null;
  output: Output;
}

export function ensureHaproxy(log: (line: string) => void = () => {}): string {
  const found = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => fs.existsSync(p));
  if (found) return found;
  log('installing haproxy (apt-get)');
  execFileSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null'], { stdio: 'inherit' });
  return '/usr/sbin/haproxy';
}

const VARNISHD = '/usr/sbin/varnishd';
const XKEY_VMOD = '/usr/lib/x86_64-linux-gnu/varnish/vmods/libvmod_xkey.so';
const VCL = path.join(ROOT, 'deploy/varnish/credence.vcl');

/** Varnish and varnish-modules' xkey (Debian's packages), installed with apt-get when missing; a clear error without. */
export function ensureVarnish(log: (line: string) => void = () => {}): string {
  const present = () => fs.existsSync(VARNISHD) && fs.readdirSync(path.dirname(XKEY_VMOD), { withFileTypes: true }).some((f) => f.name === 'libvmod_xkey.so');
  const has = () => {
    try {
      return present();
    } catch {
      return false;
    }
  };
  if (has()) return VARNISHD;
  log('installing varnish and varnish-modules (apt-get)');
  spawnSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq varnish varnish-modules >/dev/null'], { stdio: 'inherit' });
  if (!has()) throw new Error(`the cache tier needs Debian's varnish and varnish-modules (xkey): ${VARNISHD} or ${XKEY_VMOD} is missing and apt-get could not install them`);
  return VARNISHD;
}

/** Varnish on a port of its own in front of `backendPort`, with deploy/varnish/credence.vcl. */
export class LocalVarnish {
  private child: ChildProcess | null = null;
  readonly output = new Output();
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly backendPort: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(port: number, backendPort: number, log: (line: string) => void = () => {}): Promise<LocalVarnish> {
    ensureVarnish(log);
    const v = new LocalVarnish(fs.mkdtempSync(path.join(os.tmpdir(), 'credence-varnish-')), port, backendPort);
    const vcl = fs.readFileSync(VCL, 'utf8').replace('@@BACKEND_HOST@@', '127.0.0.1').replace('@@BACKEND_PORT@@', String(backendPort)).replace('@@PURGERS@@', '');
    fs.writeFileSync(path.join(v.dir, 'credence.vcl'), vcl);
    await v.startServer();
    return v;
  }

  async startServer(): Promise<void> {
    // -F: in the foreground, a child of this process; -j none: no privilege separation (a local cluster, maybe run as
    // root, in a temporary folder); -n: its own working directory, so several can run on one machine.
    const args = ['-F', '-j', 'none', '-n', path.join(this.dir, 'work'), '-a', `127.0.0.1:${this.port}`, '-f', path.join(this.dir, 'credence.vcl'), '-s', 'malloc,128m', '-T', 'none', '-p', 'ban_lurker_sleep=0.1'];
    this.child = spawn(VARNISHD, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d: Buffer) => this.output.add(d));
    this.child.stderr!.on('data', (d: Buffer) => this.output.add(d));
    const child = this.child;
    await waitFor(`varnish`, async () => {
      if (child.exitCode !== null) throw new Error(`varnishd exited: ${this.output.text}`);
      return portAnswers(this.port);
    }, 30_000).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}: ${this.output.text}`);
    });
  }

  async stopServer(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  /** Varnish's own counters (varnishstat), by name: `MAIN.client_req`, `MAIN.backend_req`, … */
  counters(): Record<string, number> {
    const out = execFileSync('varnishstat', ['-n', path.join(this.dir, 'work'), '-1', '-j'], { encoding: 'utf8' });
    const json = JSON.parse(out) as { counters?: Record<string, { value: number }> } & Record<string, { value: number }>;
    const counters = json.counters ?? json;
    return Object.fromEntries(Object.entries(counters).filter(([, v]) => typeof v === 'object' && v !== null && 'value' in v).map(([k, v]) => [k, v.value]));
  }

  async destroy(): Promise<void> {
    await this.stopServer();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

export class LocalCluster {
  readonly instances: Instance[] = [];
  postgres: PrivatePostgres | null = null;
  redis: PrivateRedis | null = null;
  private haproxy: ChildProcess | null = null;
  /** With `cache`: Varnish in front, at `port`; HAProxy then listens on `originPort`. */
  varnish: LocalVarnish | null = null;
  originPort = 0;
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-cluster-'));
  port = 0;
  databaseUrl = '';
  redisUrl = '';
  private readonly log: (line: string) => void;
  /** One transparency-log key for every instance (each has a DATA_DIR of its own, where it would make its own). */
  private readonly signingKey = randomBytes(32).toString('base64');

  private constructor(private readonly opts: ClusterOptions) {
    this.log = opts.log ?? (() => {});
  }

  /** The front's base URL: Varnish's with `cache`, else the balancer's. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The balancer's base URL, behind the cache when there is one. */
  get originUrl(): string {
    return `http://127.0.0.1:${this.originPort}`;
  }

  static async start(opts: ClusterOptions = {}): Promise<LocalCluster> {
    const c = new LocalCluster(opts);
    try {
      await c.boot();
    } catch (err) {
      await c.stop();
      throw err;
    }
    return c;
  }

  private async boot(): Promise<void> {
    const haproxyBin = ensureHaproxy(this.log);
    if (this.opts.databaseUrl) this.databaseUrl = this.opts.databaseUrl;
    else {
      this.postgres = await PrivatePostgres.start();
      this.databaseUrl = this.postgres.url;
      this.log(`private PostgreSQL at ${this.databaseUrl}`);
    }
    if (this.opts.redisUrl) this.redisUrl = this.opts.redisUrl;
    else {
      this.redis = await PrivateRedis.start();
      this.redisUrl = this.redis.url;
      this.log(`private Redis at ${this.redisUrl}`);
    }
    this.port = this.opts.port ?? (await freePort());
    this.originPort = this.opts.cache ? await freePort() : this.port;
    if (this.opts.cache) ensureVarnish(this.log);
    // Migrations once, before any instance starts.
    const migrated = spawnSync(TSX, [MAIN, 'migrate'], { env: this.env(0), cwd: ROOT, encoding: 'utf8' });
    if (migrated.status !== 0) throw new Error(`credence migrate failed: ${migrated.stderr}`);
    const n = this.opts.instances ?? 2;
    for (let i = 0; i < n; i++) this.instances.push({ index: i, port: await freePort(), child: null, output: new Output() });
    await Promise.all(this.instances.map((_, i) => this.startInstance(i)));
    fs.writeFileSync(path.join(this.dir, 'haproxy.cfg'), this.haproxyConfig());
    const out = new Output();
    this.haproxy = spawn(haproxyBin, ['-db', '-f', path.join(this.dir, 'haproxy.cfg')], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.haproxy.stdout!.on('data', (d: Buffer) => out.add(d));
    this.haproxy.stderr!.on('data', (d: Buffer) => out.add(d));
    await waitFor(`haproxy (${out.text})`, async () => (await this.serversUp()) === n, 30_000);
    this.log(`balancer at ${this.originUrl} over ${n} instances (${this.instances.map((i) => i.port).join(', ')})`);
    if (this.opts.cache) {
      this.varnish = await LocalVarnish.start(this.port, this.originPort, this.log);
      this.log(`cache (Varnish with xkey) at ${this.url} in front of the balancer`);
    }
  }

  env(index: number): Record<string, string> {
    return {
      ...(process.env as Record<string, string>),
      HOST: '127.0.0.1',
      PORT: String(this.instances[index]?.port ?? 8080),
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: this.redisUrl,
      SITE_URL: `http://127.0.0.1:${this.port}`,
      // HAProxy adds X-Forwarded-For: callers are told apart by their own address, not the balancer's.
      TRUST_PROXY: '127.0.0.1',
      DATA_DIR: path.join(this.dir, `data-${index}`),
      LOG_LEVEL: 'warn',
      LOG_SIGNING_KEY: process.env.LOG_SIGNING_KEY ?? this.signingKey,
      ...(this.opts.cache ? { CACHE_PURGE_URLS: this.url } : {}),
      ...(this.opts.workers && this.opts.workers > 1 ? { WORKERS: String(this.opts.workers) } : {}),
      ...this.opts.env,
    };
  }

  /** Start instance i (again) and wait until it serves. */
  async startInstance(i: number): Promise<void> {
    const inst = this.instances[i]!;
    // A restarted instance serves when *this* start says so, not the one before it.
    const mark = inst.output.total;
    // Node with tsx's loader (not the tsx command, which would stand between a signal and the server).
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve'], { env: this.env(i), stdio: ['ignore', 'pipe', 'pipe'], detached: true, cwd: ROOT });
    inst.child = child;
    child.stdout!.on('data', (d: Buffer) => inst.output.add(d));
    child.stderr!.on('data', (d: Buffer) => inst.output.add(d));
    await waitFor(`instance ${i} (${inst.output.text.slice(-2000)})`, async () => {
      if (child.exitCode !== null) throw new Error(`instance ${i} exited: ${inst.output.text.slice(-2000)}`);
      return inst.output.since(mark).includes('serving');
    });
  }

  /** kill -9 of instance i's process group: nothing of it runs on. */
  async kill(i: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.instances[i]!.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // gone already
    }
    await exited;
  }

  /** How many servers HAProxy has UP, from its stats socket. */
  async serversUp(): Promise<number> {
    const stat = await this.haproxyCommand('show stat');
    return stat.split('\n').filter((l) => l.startsWith('credence,s') && l.split(',')[17] === 'UP').length;
  }

  /** Whether HAProxy holds server i UP. */
  async serverUp(i: number): Promise<boolean> {
    const stat = await this.haproxyCommand('show stat');
    return stat.split('\n').some((l) => l.startsWith(`credence,s${i},`) && l.split(',')[17] === 'UP');
  }

  haproxyCommand(command: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const s = net.connect(path.join(this.dir, 'haproxy.sock'));
      let out = '';
      s.on('data', (d: Buffer) => (out += d.toString()));
      s.once('error', reject);
      s.once('connect', () => s.end(`${command}\n`));
      s.once('close', () => resolve(out));
    });
  }

  private haproxyConfig(): string {
    const servers = this.instances.map((inst) => `  server s${inst.index} 127.0.0.1:${inst.port} check`).join('\n');
    // The same instances again as unchecked backups: used only when /readyz has taken every instance out (the
    // database is down), so callers get the service's own 503 in its envelope rather than the balancer's page.
    const backups = this.instances.map((inst) => `  server b${inst.index} 127.0.0.1:${inst.port} backup`).join('\n');
    return `global
  maxconn 4096
  stats socket ${path.join(this.dir, 'haproxy.sock')} mode 600 level admin

defaults
  mode http
  timeout connect 1s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 10s
  # A connection that cannot be made is tried again on another instance. A request already sent is tried again
  # only when it is safe to repeat (GET, HEAD; see the frontend): a POST the dying instance may have committed is
  # never sent twice (a decision replayed on the other instance answered 409 "already decided"), so only requests
  # in flight on an instance that dies can fail, and they fail as the balancer's 502/503.
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response response-timeout
  option forwardfor

frontend credence_in
  bind 127.0.0.1:${this.originPort}
  http-request disable-l7-retry unless METH_GET || METH_HEAD
  default_backend credence

backend credence
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  option allbackups
  default-server inter 500ms fastinter 250ms downinter 500ms fall 2 rise 2
${servers}
${backups}
`;
  }

  async stop(): Promise<void> {
    await Promise.all(this.instances.map((_, i) => this.kill(i, 'SIGTERM').catch(() => {})));
    await this.varnish?.destroy();
    if (this.haproxy && this.haproxy.exitCode === null) {
      const exited = new Promise((resolve) => this.haproxy!.once('exit', resolve));
      this.haproxy.kill('SIGTERM');
      await exited;
    }
    await this.redis?.destroy();
    await this.postgres?.destroy();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// `npm run cluster`

async function cli(argv: string[]): Promise<void> {
  const { parseArgs } = await import('node:util');
  const { values } = parseArgs({
    args: argv,
    options: {
      instances: { type: 'string', default: '2' },
      port: { type: 'string' },
      workers: { type: 'string' },
      'database-url': { type: 'string' },
      'redis-url': { type: 'string' },
      cache: { type: 'boolean', default: false },
    },
  });
  const cluster = await LocalCluster.start({
    instances: Number(values.instances),
    ...(values.port ? { port: Number(values.port) } : {}),
    ...(values.workers ? { workers: Number(values.workers) } : {}),
    ...(values['database-url'] ? { databaseUrl: values['database-url'] } : {}),
    ...(values['redis-url'] ? { redisUrl: values['redis-url'] } : {}),
    cache: values.cache,
    log: (line) => console.log(line),
  });
  console.log(`Credence cluster serving ${cluster.url} (Ctrl-C stops everything)`);
  const stop = async () => {
    await cluster.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  cli(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
