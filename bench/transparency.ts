// `npx tsx bench/transparency.ts`: what the transparency log costs, on the embedded database.
//
//   npx tsx bench/transparency.ts [--entries 1000000] [--decisions 200] [--proofs 2000]
//
// 1. Accept decisions one at a time through the service, with the log's sequencer off and on (woken after every
//    decision, as `serve` does), alternating, and compare their latency; then the CPU the sequencer spends per
//    appended entry.
// 2. A tree of `--entries` leaves built directly (as the sequencer would, in large batches), then inclusion and
//    consistency proofs against it: server CPU per proof, in the service and through HTTP (inject), beside
//    /healthz through the same path.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { createRuntime } from '../src/deps.js';
import { createAccount } from '../src/domain/accounts/account.service.js';
import { registerPages } from '../src/domain/pages/page.service.js';
import { createPublisher, verifyDomainByOperator } from '../src/domain/publishers/publisher.service.js';
import { decide, submitWork } from '../src/domain/submissions/submission.service.js';
import * as logStore from '../src/domain/transparency/log.store.js';
import { consistencyProof, inclusionProof, integrate } from '../src/domain/transparency/log.service.js';
import { appendLeaves, leafHash, rootOf } from '../src/domain/transparency/merkle.js';
import { checkpointText } from '../src/domain/transparency/note.js';
import { startLogSequencer } from '../src/jobs/log-sequencer.js';
import { createPrng } from '../src/demo/prng.js';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '1000000' },
    decisions: { type: 'string', default: '200' },
    proofs: { type: 'string', default: '2000' },
  },
});

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function runtimeAt(dir: string) {
  // The bench's address skips rate limits, as a trusted caller would (RATE_LIMIT_ALLOWLIST).
  return createRuntime(testConfig({ dataDir: dir, logSigningKey: randomBytes(32).toString('base64'), logLevel: 'silent', rateLimitAllowlist: ['127.0.0.1'] }));
}

async function decisions(n: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-tlog-'));
  const rt = await runtimeAt(dir);
  try {
    const owner = await createAccount(rt.deps, { email: 'owner@bench.example', password: 'bench-password-1', name: 'Owner', username: 'bench-owner' });
    await createPublisher(rt.deps, owner.user_id, { name: 'Bench', slug: 'bench' });
    await verifyDomainByOperator(rt.deps, 'bench', 'bench.example');
    const worker = await createAccount(rt.deps, { email: 'worker@bench.example', password: 'bench-password-1', name: 'Worker', username: 'bench-worker' });
    const pubId = (await rt.deps.db.selectFrom('publishers').select('id').where('slug', '=', 'bench').executeTakeFirstOrThrow()).id;
    const [page] = await registerPages(rt.deps, pubId, [{ index: 0, ok: true, value: { url: 'https://bench.example/decide', title: 'Decide', topic: 'health' } }]);
    await integrate(rt.deps);
    const results: Record<'off' | 'on', number[]> = { off: [], on: [] };
    const rounds = 6;
    for (let r = 0; r < rounds; r++) {
      const mode = r % 2 === 0 ? 'off' : 'on';
      const per = Math.ceil(n / rounds);
      const items = Array.from({ length: per }, (_, k) => ({
        index: k,
        ok: true as const,
        value: { article_ref_id: page!.id!, role: 'review' as const, summary: `Review ${r}-${k}`, evidence: { reason: 'Read it', sources: [] } },
      }));
      const submitted = await submitWork(rt.deps, worker.user_id, items);
      const sequencer = mode === 'on' ? startLogSequencer(rt.deps, { pollMs: 1000, log: { error: (o, m) => console.error(m, o), info: () => {} } }) : null;
      for (const s of submitted) {
        const t0 = performance.now();
        const [res] = await decide(rt.deps, owner.user_id, [pubId], [{ index: 0, ok: true, value: { submission_id: s.id!, decision: 'accept', note: 'bench' } }]);
        results[mode].push(performance.now() - t0);
        if (res!.status !== 'created') throw new Error(`decision failed: ${JSON.stringify(res)}`);
        sequencer?.wake();
      }
      await sequencer?.stop();
      await integrate(rt.deps);
    }
    // The sequencer's own cost: append a backlog made with it off, and time that pass.
    const backlog = Array.from({ length: 200 }, (_, k) => ({
      index: k,
      ok: true as const,
      value: { article_ref_id: page!.id!, role: 'review' as const, summary: `Backlog ${k}`, evidence: { reason: 'Read it', sources: [] } },
    }));
    const sub = await submitWork(rt.deps, worker.user_id, backlog);
    await decide(rt.deps, owner.user_id, [pubId], sub.map((s, k) => ({ index: k, ok: true as const, value: { submission_id: s.id!, decision: 'accept' as const, note: 'bench' } })));
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    const pass = await integrate(rt.deps);
    const passCpu = cpuMs(c0);
    const passWall = performance.now() - w0;
    return { results, appended: pass.appended, passCpu, passWall, entriesPerDecision: pass.appended / 200 };
  } finally {
    await rt.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function bigTree(entries: number, proofs: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-tlog-'));
  const rt = await runtimeAt(dir);
  try {
    const db = rt.deps.db;
    let size = 0;
    let frontier: Buffer[] = [];
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const CHUNK = 20_000;
    while (size < entries) {
      const n = Math.min(CHUNK, entries - size);
      const leaves = Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`{"kind":"bench.entry","seq":${size + i + 1}}`)));
      const grown = appendLeaves(size, frontier, leaves);
      await db.transaction().execute(async (trx) => {
        await logStore.insertNodes(trx, grown.made);
        await logStore.saveState(trx, { tree_size: grown.size, root_hash: rootOf(grown.frontier) }, new Date().toISOString());
      });
      size = grown.size;
      frontier = grown.frontier;
    }
    const signer = rt.deps.transparency.signer();
    const root = rootOf(frontier);
    await logStore.insertCheckpoint(db, {
      tree_size: size,
      root_hash: root,
      verifier_key: signer.verifierKey,
      note: signer.sign(checkpointText({ origin: rt.deps.transparency.origin, size, root })),
      created_at: new Date().toISOString(),
    });
    const build = { wallS: (performance.now() - t0) / 1000, cpuS: cpuMs(c0) / 1000 };

    const rng = createPrng(12);
    const indexes = Array.from({ length: proofs }, () => rng.int(size));
    // Warm up prepared statements and the page cache, as a running server would be.
    for (const i of indexes.slice(0, 100)) await inclusionProof(rt.deps, i);
    let c = process.cpuUsage();
    let w = performance.now();
    let hashes = 0;
    for (const i of indexes) hashes += (await inclusionProof(rt.deps, i)).hashes.length;
    const inclusion = { cpuUs: (cpuMs(c) * 1000) / proofs, wallUs: ((performance.now() - w) * 1000) / proofs, hashes: hashes / proofs };
    c = process.cpuUsage();
    w = performance.now();
    for (const i of indexes) await consistencyProof(rt.deps, Math.max(1, i));
    const consistency = { cpuUs: (cpuMs(c) * 1000) / proofs, wallUs: ((performance.now() - w) * 1000) / proofs };

    const { app } = await buildApp(rt.deps);
    await app.ready();
    const inject = async (paths: string[]) => {
      for (const p of paths.slice(0, 100)) await app.inject({ method: 'GET', url: p, remoteAddress: '127.0.0.1' });
      const cc = process.cpuUsage();
      for (const p of paths) {
        const res = await app.inject({ method: 'GET', url: p, remoteAddress: '127.0.0.1' });
        if (res.statusCode !== 200) throw new Error(`${p}: ${res.statusCode} ${res.body}`);
      }
      return (cpuMs(cc) * 1000) / paths.length;
    };
    const httpHealth = await inject(indexes.map(() => '/healthz'));
    const httpInclusion = await inject(indexes.map((i) => `/v1/log/proof/inclusion?index=${i}`));
    const httpCheckpoint = await inject(indexes.map(() => '/v1/log/checkpoint'));
    await app.close();
    const bytes = fs.statSync(path.join(dir, 'credence.sqlite')).size;
    return { size, build, inclusion, consistency, httpHealth, httpInclusion, httpCheckpoint, bytes };
  } finally {
    await rt.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  console.log(`Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, ${new Date().toISOString()}`);
  const d = await decisions(Number(values.decisions));
  console.log('\naccept decisions, one per call (service, in process):');
  for (const mode of ['off', 'on'] as const) {
    const xs = d.results[mode];
    console.log(`  sequencer ${mode}: ${xs.length} decisions, mean ${mean(xs).toFixed(2)} ms, p50 ${pct(xs, 50).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms`);
  }
  console.log(`  sequencer pass over a backlog: ${d.appended} entries (${d.entriesPerDecision.toFixed(1)} per accept) in ${d.passWall.toFixed(1)} ms wall, ${d.passCpu.toFixed(1)} ms CPU: ${((d.passCpu * 1000) / d.appended).toFixed(0)} µs CPU per entry`);
  const t = await bigTree(Number(values.entries), Number(values.proofs));
  console.log(`\ntree of ${t.size.toLocaleString('en')} entries built in ${t.build.wallS.toFixed(1)} s (${t.build.cpuS.toFixed(1)} s CPU); database ${(t.bytes / 1e6).toFixed(0)} MB`);
  console.log(`  inclusion proof (service): ${t.inclusion.cpuUs.toFixed(0)} µs CPU, ${t.inclusion.wallUs.toFixed(0)} µs wall, ${t.inclusion.hashes.toFixed(1)} hashes`);
  console.log(`  consistency proof (service): ${t.consistency.cpuUs.toFixed(0)} µs CPU, ${t.consistency.wallUs.toFixed(0)} µs wall`);
  console.log(`  HTTP (inject), CPU per request: /healthz ${t.httpHealth.toFixed(0)} µs, /v1/log/proof/inclusion ${t.httpInclusion.toFixed(0)} µs, /v1/log/checkpoint ${t.httpCheckpoint.toFixed(0)} µs`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
