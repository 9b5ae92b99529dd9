// `npx tsx bench/work.ts`: the workflow's heavy calls on the embedded database.
//
//   npx tsx bench/work.ts [--contributors 10000] [--seconds 10] [--connections 50] [--rounds 3]
//
// 1. GET /api/v1/contributors?topic= over `--contributors` contributors with topic expertise (autocannon, the app
//    in its own process so the load generator does not share its event loop).
// 2. POST /api/v1/submissions/decide with 500 decisions in one call, `--rounds` times: each round makes 500
//    pending submissions through the service, then times the HTTP call (accept all, reject all, then mixed).
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from './client.js';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { createRuntime, type Runtime } from '../src/deps.js';
import { createAccount } from '../src/domain/accounts/account.service.js';
import { createApiKey } from '../src/domain/api-keys/api-key.service.js';
import { registerPages } from '../src/domain/pages/page.service.js';
import type { Load } from '../src/domain/pages/record-cache.js';
import { createPublisher, verifyDomainByOperator } from '../src/domain/publishers/publisher.service.js';
import { submitWork } from '../src/domain/submissions/submission.service.js';
import { createPrng } from '../src/demo/prng.js';

const HERE = fileURLToPath(import.meta.url);
const TOPICS = ['health', 'climate', 'economy', 'science', 'politics', 'technology', 'education', 'food'];

const config = (dataDir: string) => ({ ...testConfig({ dataDir, rateLimitAllowlist: ['127.0.0.1'], logLevel: 'silent' }) });

/** The child: the real app on the bench database, answering until told to stop. */
async function serve(dataDir: string): Promise<void> {
  const runtime = await createRuntime(config(dataDir));
  const { app } = await buildApp(runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  process.on('message', () => void app.close().then(() => runtime.close()).then(() => process.exit(0)));
}

async function buildContributors(rt: Runtime, n: number): Promise<void> {
  const db = rt.deps.db;
  const rng = createPrng(10_000);
  const now = new Date().toISOString();
  const BATCH = 500;
  for (let start = 0; start < n; start += BATCH) {
    // Fixture setup, not the thing measured: rows go in directly, in large transactions.
    await db.transaction().execute(async (trx) => {
      const rows = Array.from({ length: Math.min(BATCH, n - start) }, (_, i) => {
        const k = start + i;
        const accepted = rng.int(40);
        return {
          email: `bench-${k}@bench.example`,
          username: `bench-contributor-${k}`,
          name: `Bench Contributor ${k}`,
          summary: '',
          topics: '[]',
          password_hash: 'scrypt$16384$8$1$x$x',
          trust_score: Math.round(rng.next() * 100) / 100,
          contribution_score: accepted * 5,
          accepted_count: accepted,
          level: accepted >= 10 ? ('trusted' as const) : accepted >= 3 ? ('contributor' as const) : ('newcomer' as const),
          created_at: now,
          updated_at: now,
        };
      });
      const ids = await trx.insertInto('accounts').values(rows).returning('id').execute();
      const topics = ids.flatMap(({ id }) => {
        const picked = new Set([TOPICS[rng.int(TOPICS.length)]!, TOPICS[rng.int(TOPICS.length)]!]);
        return [...picked].map((topic) => ({ account_id: id, topic, weight: rng.int(200), accepted: rng.int(40), authority: Math.round(rng.next() * 100) / 100 }));
      });
      await trx.insertInto('account_topics').values(topics).execute();
    });
    process.stdout.write(`\r  contributors ${Math.min(start + BATCH, n).toLocaleString('en')}/${n.toLocaleString('en')}`);
  }
  process.stdout.write('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      contributors: { type: 'string', default: '10000' },
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      rounds: { type: 'string', default: '3' },
    },
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-work-'));
  const rt = await createRuntime(config(dataDir));
  try {
    console.log('building the fixture');
    await buildContributors(rt, Number(values.contributors));
    const owner = await createAccount(rt.deps, { email: 'owner@bench.example', password: 'bench-password-1', name: 'Owner', username: 'bench-owner' });
    await createPublisher(rt.deps, owner.user_id, { name: 'Bench', slug: 'bench' });
    await verifyDomainByOperator(rt.deps, 'bench', 'bench.example');
    const { secret } = await createApiKey(rt.deps, owner.user_id, { name: 'bench', publisher: 'bench' });
    const worker = await createAccount(rt.deps, { email: 'worker@bench.example', password: 'bench-password-1', name: 'Worker', username: 'bench-worker' });
    const [page] = await registerPages(rt.deps, (await rt.deps.db.selectFrom('publishers').select('id').where('slug', '=', 'bench').executeTakeFirstOrThrow()).id, [
      { index: 0, ok: true, value: { url: 'https://bench.example/decide', title: 'Decide', topic: 'health' } },
    ]);

    const child = fork(HERE, ['--serve', dataDir], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
    const base = `http://127.0.0.1:${port}`;

    console.log(`GET /api/v1/contributors?topic= over ${Number(values.contributors).toLocaleString('en')} contributors`);
    // Every topic and its first 50 pages (400 distinct answers): the first visit of each reads the database, later
    // ones are served from the record cache, as a popular directory would be.
    const rng = createPrng(3);
    const paths = Array.from({ length: 1000 }, () => `/api/v1/contributors?topic=${TOPICS[rng.int(TOPICS.length)]}&page=${1 + rng.int(50)}`);
    let i = 0;
    const result = await autocannon({
      url: base,
      connections: Number(values.connections),
      duration: Number(values.seconds),
      warmup: { connections: Number(values.connections), duration: 2 },
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length]! }) }],
    });
    // The uncached cost of one directory page, measured in this process on the same database.
    const { searchContributors } = await import('../src/domain/contributors/contributor.service.js');
    const uncachedLoad = <T>(_k: string, load: Load<T>) => load(() => {});
    const uncached = { ...rt.deps, recordCache: { getOrLoad: uncachedLoad, getNow: uncachedLoad, peek: () => undefined, invalidate: () => {}, invalidateAll: () => {}, surrogateKeys: () => undefined } };
    const t0 = performance.now();
    for (let k = 0; k < 200; k++) await searchContributors(uncached, { topic: TOPICS[k % TOPICS.length] }, 1 + (k % 50), 20);
    const uncachedMs = (performance.now() - t0) / 200;
    console.log(`  uncached, in process: ${uncachedMs.toFixed(2)} ms per directory page`);
    const directory = { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
    console.log(`  ${directory.rps} req/s, p50 ${directory.p50} ms, p99 ${directory.p99} ms, non-2xx ${directory.non2xx}`);

    console.log('POST /api/v1/submissions/decide, 500 decisions per call');
    const rounds: { decision: string; ms: number; created: number; updated: number }[] = [];
    for (let r = 0; r < Number(values.rounds); r++) {
      const items = Array.from({ length: 500 }, (_, k) => ({
        index: k,
        ok: true as const,
        value: { article_ref_id: page!.id!, role: 'review' as const, summary: `Review ${r}-${k}`, evidence: { reason: 'Read it', sources: [] } },
      }));
      const submitted = await submitWork(rt.deps, worker.user_id, items);
      const decision = r === 0 ? 'accept' : r === 1 ? 'reject' : 'mixed';
      const body = submitted.map((s, k) => ({
        submission_id: s.id!,
        decision: decision === 'mixed' ? (k % 2 ? 'accept' : 'reject') : decision,
        note: 'bench',
      }));
      const started = performance.now();
      const res = await fetch(`${base}/api/v1/submissions/decide`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': secret },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data: { summary: { created: number; updated: number; failed: number } } };
      const ms = performance.now() - started;
      if (json.data.summary.failed) throw new Error(`decisions failed: ${JSON.stringify(json.data.summary)}`);
      rounds.push({ decision, ms: Math.round(ms), created: json.data.summary.created, updated: json.data.summary.updated });
      console.log(`  ${decision}: ${Math.round(ms)} ms for 500 (${(ms / 500).toFixed(2)} ms each; created ${json.data.summary.created}, updated ${json.data.summary.updated})`);
    }
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
    console.log('\n| measure | figure |\n|---|---|');
    console.log(`| GET /api/v1/contributors?topic= (${Number(values.contributors).toLocaleString('en')} contributors), 400 distinct pages | ${directory.rps.toLocaleString('en')} req/s, p50 ${directory.p50} ms, p99 ${directory.p99} ms |`);
    console.log(`| one directory page uncached (service call in process) | ${uncachedMs.toFixed(2)} ms |`);
    for (const r of rounds) console.log(`| decide 500 in one call (${r.decision}) | ${r.ms.toLocaleString('en')} ms (${(r.ms / 500).toFixed(2)} ms per decision) |`);
  } finally {
    await rt.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--serve') void serve(process.argv[3]!);
else
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
