// `npm run bench:extension`: the browser extension's private lookup at scale, on SQLite. For each size, the fixture of
// `npm run bench` (bench/fixture.ts: pages inserted in bulk with their embed key hashes and accepted work), then for
// each prefix length of 2 to 5 hex digits, over buckets drawn at random: the pages a bucket holds, the records it
// answers, its answer's bytes (raw and gzip) and the server CPU to build it (bucketAnswer, what the route sends); the
// route itself over HTTP at the chosen BUCKET_HEX (wall time at the origin, with an ETag revalidation); and the host
// list's size at the fixture's and at synthetic domain counts. Writes bench/reports/extension-latest.json.
//
// With `--sample`, a size's fixture inserts only the pages of the buckets measured (bench/fixture.ts `keep`): the
// same pages and work those buckets hold in the whole fixture, so a million pages are measured without writing them.
// Prefixes of 3 to 5 digits inside the sampled 3-digit buckets are measured then, not 2.
//
//   npm run bench:extension -- [--sizes 100000,1000000] [--samples 40] [--sample]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { buildFixture } from './fixture.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = path.join(ROOT, 'bench/reports/extension-latest.json');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '100000,1000000' }, samples: { type: 'string', default: '40' }, sample: { type: 'boolean', default: false } },
});
const sizes = values.sizes.split(',').map(Number);
const samples = Number(values.samples);
/** The i-th sampled prefix's 8 hex digits: a bucket of any length is its first digits. */
const drawn = (i: number) => ((i * 2_654_435_761 + 97) >>> 0).toString(16).padStart(8, '0');
const sampledBuckets = new Set(Array.from({ length: samples }, (_, i) => drawn(i).slice(0, 3)));

async function measure(pages: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-ext-bench-'));
  try {
    const keep = values.sample ? (hash: string) => sampledBuckets.has(hash.slice(0, 3)) : undefined;
    const fixture = await buildFixture({ dataDir, pages, log: (l) => console.error(l), ...(keep ? { keep } : {}) });
    const { loadConfig } = await import('../src/config.js');
    const { createRuntime } = await import('../src/deps.js');
    const { buildApp } = await import('../src/app.js');
    const { bucketAnswer } = await import('../src/surfaces/public-v1/extension.routes.js');
    const { BUCKET_HEX } = await import('../src/domain/pages/key-hash.js');
    const rt = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_ALLOWLIST: '127.0.0.1' }));
    const { app } = await buildApp(rt.deps);
    try {
      const byLength = [];
      for (let len = values.sample ? 3 : 2; len <= 5; len++) {
        const held: number[] = [];
        const records: number[] = [];
        const raw: number[] = [];
        const gz: number[] = [];
        const cpu: number[] = [];
        for (let i = 0; i < samples; i++) {
          const prefix = drawn(i).slice(0, len);
          const { count } = (await rt.deps.db
            .selectFrom('pages')
            .select((eb) => eb.fn.countAll<number>().as('count'))
            .where('embed_key_hash', '>=', prefix)
            .where('embed_key_hash', '<', `${prefix}g`)
            .executeTakeFirstOrThrow()) as { count: number };
          const t0 = process.cpuUsage();
          const { body } = await bucketAnswer(rt.deps, prefix);
          const t = process.cpuUsage(t0);
          held.push(Number(count));
          records.push((JSON.parse(body) as { records: unknown[] }).records.length);
          raw.push(Buffer.byteLength(body));
          gz.push(zlib.gzipSync(body, { level: 6 }).length);
          cpu.push((t.user + t.system) / 1000);
        }
        const row = {
          prefixHex: len,
          buckets: 16 ** len,
          pagesPerBucket: median(held),
          recordsPerBucket: median(records),
          answerBytes: median(raw),
          answerGzipBytes: median(gz),
          answerGzipBytesP95: p95(gz),
          cpuMs: Number(median(cpu).toFixed(2)),
        };
        console.error(JSON.stringify({ pages, ...row }));
        byLength.push(row);
      }
      // The route at BUCKET_HEX over HTTP at the origin: wall time per request, and a revalidation (304).
      const walls: number[] = [];
      let etag = '';
      for (let i = 0; i < samples; i++) {
        const prefix = (values.sample ? drawn(i) : ((i * 40_503 + 11) >>> 0).toString(16).padStart(8, '0')).slice(0, BUCKET_HEX);
        const t0 = performance.now();
        const res = await app.inject({ method: 'GET', url: `/v1/extension/buckets/${prefix}`, headers: { 'accept-encoding': 'gzip' } });
        walls.push(performance.now() - t0);
        etag = String(res.headers.etag);
        if (res.statusCode !== 200) throw new Error(`bucket ${prefix}: ${res.statusCode} ${res.body}`);
      }
      const hosts = await app.inject({ method: 'GET', url: '/v1/extension/hosts' });
      return {
        pages,
        inserted: fixture.pages,
        contributions: fixture.contributions,
        byLength,
        originWallMs: Number(median(walls).toFixed(2)),
        lastEtag: etag,
        hostList: { domains: (JSON.parse(hosts.body) as { domains: string[] }).domains.length, bytes: Buffer.byteLength(hosts.body) },
      };
    } finally {
      await app.close();
      await rt.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The host list at synthetic domain counts: names shaped like publishers' (a word or two and a suffix). */
function hostListSizes() {
  const words = ['daily', 'tribune', 'science', 'health', 'news', 'post', 'herald', 'review', 'journal', 'times', 'city', 'global'];
  const tlds = ['com', 'org', 'net', 'de', 'co.uk', 'fr', 'es', 'news'];
  return [1_000, 10_000, 100_000].map((n) => {
    const domains = Array.from({ length: n }, (_, i) => `${words[i % 12]}${words[(i * 7) % 12]}${i}.${tlds[i % tlds.length]}`).sort();
    const body = JSON.stringify({ domains, bucket_hex: 3 });
    return { domains: n, bytes: Buffer.byteLength(body), gzipBytes: zlib.gzipSync(body).length };
  });
}

const figures = [];
for (const size of sizes) figures.push(await measure(size));
const report = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadAfter: os.loadavg()[0] },
  command: `npm run bench:extension -- --sizes ${values.sizes} --samples ${samples}${values.sample ? ' --sample' : ''}`,
  sampled: values.sample,
  figures,
  hostList: hostListSizes(),
};
fs.mkdirSync(path.dirname(REPORT), { recursive: true });
fs.writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
