// The benchmark's data: publishers with verified domains and accounts made through the services (as the demo
// does), then many pages and their accepted contributions inserted in bulk. Bulk rows are fixture setup, not
// product behaviour, so they skip the per-page service path; they still use the real URL keys (url-keys.ts) and
// the real reputation recompute, so every page looks exactly as if it had been registered. Outbox events are
// not written: nothing on the read path reads them.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createRuntime } from '../src/deps.js';
import { createAccount, updateOwnProfile } from '../src/domain/accounts/account.service.js';
import { createApiKey } from '../src/domain/api-keys/api-key.service.js';
import { createPublisher, verifyDomainByOperator } from '../src/domain/publishers/publisher.service.js';
import { embedKeyHash } from '../src/domain/pages/key-hash.js';
import { parsePageUrl } from '../src/domain/pages/url-keys.js';
import { recomputeReputation } from '../src/domain/reputation/reputation.store.js';
import { DEMO_CONTRIBUTORS, DEMO_PUBLISHERS, type DemoTopic, HEADLINES, SLOTS, demoEmail } from '../src/demo/demo-data.js';
import { slugify } from '../src/demo/demo-plan.js';
import { createPrng } from '../src/demo/prng.js';
import type { WorkKind } from '../src/db/schema.js';

export interface Fixture {
  /** Every registered page URL, in id order. */
  urls: string[];
  /** The URLs of pages with accepted work: the ones with a /v1 record (a page without any is 404 there). */
  recorded: string[];
  pages: number;
  contributions: number;
  buildSeconds: number;
  /** A publisher key and its verified host, for a CMS that registers pages while others read. */
  cms: { key: string; host: string };
}

const ROWS_PER_INSERT = 500; // 10 columns: 5,000 bound values, far below SQLite's limit
const ROWS_PER_TRANSACTION = 10_000;
const NOW = '2026-11-21T00:00:00.000Z';
const FIRST_DAY = Date.parse('2024-01-01T00:00:00.000Z');
const DAY_MS = 86_400_000;

/** Other accepted work, as a share of pages: realistic records have more than authors. */
const EXTRA_ROLES: { role: WorkKind; share: number; summary: string }[] = [
  { role: 'review', share: 0.12, summary: 'Reviewed the medical and scientific claims' },
  { role: 'fact_check', share: 0.1, summary: 'Checked the figures against the published sources' },
  { role: 'correction', share: 0.03, summary: 'Corrected a figure' },
  { role: 'source', share: 0.05, summary: 'Added the primary source' },
];

/**
 * `keep`, when given, inserts only the pages whose embed key hash it keeps, out of the `pages` the fixture would make:
 * every random draw is made as for the whole fixture, so the pages kept (and their work) are exactly those the whole
 * fixture holds, and a bucket of kept pages is that bucket of the whole fixture (bench/extension.ts's `--sample`).
 */
export async function buildFixture(opts: {
  dataDir: string;
  pages: number;
  log: (line: string) => void;
  databaseUrl?: string;
  keep?: (embedKeyHash: string) => boolean;
}): Promise<Fixture> {
  const started = Date.now();
  // On PostgreSQL when a URL is given (the bench's PostgreSQL column), else the SQLite file in dataDir.
  const config = loadConfig({ DATA_DIR: opts.dataDir, LOG_LEVEL: 'silent', DATABASE_URL: opts.databaseUrl });
  const rt = await createRuntime(config);
  const { deps } = rt;
  const db = deps.db;
  const rng = createPrng(100_000);
  try {
    // People and publications through the services, a few sign-ups at a time (scrypt runs on the thread pool).
    const people = [...DEMO_PUBLISHERS.map((p) => p.owner), ...DEMO_CONTRIBUTORS];
    const ids = new Map<string, number>();
    for (let i = 0; i < people.length; i += 4) {
      await Promise.all(
        people.slice(i, i + 4).map(async (p) => {
          const r = await createAccount(deps, { email: demoEmail(p.username), password: 'bench-password-123', name: p.name, username: p.username });
          await updateOwnProfile(deps, r.user_id, { summary: p.summary, topics: p.topics });
          ids.set(p.username, r.user_id);
        }),
      );
    }
    const publisherIds: number[] = [];
    for (const p of DEMO_PUBLISHERS) {
      publisherIds.push((await createPublisher(deps, ids.get(p.owner.username)!, { name: p.name, slug: p.slug })).id);
      await verifyDomainByOperator(deps, p.slug, p.domain);
    }
    opts.log(`fixture: ${people.length} accounts and ${DEMO_PUBLISHERS.length} publishers with verified domains`);

    // Pages, shared between publishers in proportion to their demo sizes.
    const weights = DEMO_PUBLISHERS.map((p) => p.pages);
    const totalWeight = weights.reduce((a, b) => a + b, 0);
    const urls: string[] = [];
    const recorded: string[] = [];
    let contributions = 0;
    for (let start = 0; start < opts.pages; start += ROWS_PER_TRANSACTION) {
      const end = Math.min(opts.pages, start + ROWS_PER_TRANSACTION);
      await db.transaction().execute(async (trx) => {
        for (let chunk = start; chunk < end; chunk += ROWS_PER_INSERT) {
          const pages = [];
          const credits: { lookupKey: string; url: string; topic: DemoTopic; createdAt: string; kept: boolean }[] = [];
          for (let i = chunk; i < Math.min(end, chunk + ROWS_PER_INSERT); i++) {
            let pick = rng.int(totalWeight);
            let pi = 0;
            while (pick >= weights[pi]!) pick -= weights[pi++]!;
            const publisher = DEMO_PUBLISHERS[pi]!;
            const topic = rng.pick(publisher.sections);
            const title = rng.pick(HEADLINES[topic]).replace(/\{(\w+)\}/g, (_, slot: string) => rng.pick(SLOTS[slot] ?? [slot]));
            const createdAt = new Date(FIRST_DAY + rng.int(1050) * DAY_MS + rng.int(DAY_MS)).toISOString();
            const path = publisher.path({ section: topic, slug: `${slugify(title)}-${i + 1}`, date: createdAt });
            const url = parsePageUrl(`https://${publisher.host}${path}`);
            if (!url) throw new Error(`fixture made an invalid URL: ${path}`);
            const hash = embedKeyHash(url.embedKey);
            const kept = opts.keep?.(hash) ?? true;
            credits.push({ lookupKey: url.lookupKey, url: url.url, topic, createdAt, kept });
            if (!kept) continue;
            urls.push(url.url);
            pages.push({
              publisher_id: publisherIds[pi]!,
              url: url.url,
              lookup_key: url.lookupKey,
              embed_key: url.embedKey,
              embed_key_hash: hash,
              host: url.host,
              title: title.charAt(0).toUpperCase() + title.slice(1),
              topic,
              created_at: createdAt,
              updated_at: createdAt,
            });
          }
          const inserted = pages.length > 0 ? await trx.insertInto('pages').values(pages).returning(['id', 'lookup_key']).execute() : [];
          const idOf = new Map(inserted.map((r) => [r.lookup_key, r.id]));
          const rows = credits.flatMap((c) => {
            // Drawn for every page, kept or not, so the draws stay those of the whole fixture.
            const credited = creditsFor(rng, idOf.get(c.lookupKey) ?? 0, c.topic, c.createdAt, ids);
            if (!c.kept) return [];
            if (credited.length > 0) recorded.push(c.url);
            return credited;
          });
          for (let r = 0; r < rows.length; r += ROWS_PER_INSERT) {
            await trx.insertInto('contributions').values(rows.slice(r, r + ROWS_PER_INSERT)).execute();
          }
          contributions += rows.length;
        }
      });
      opts.log(`fixture: pages ${end.toLocaleString('en')}/${opts.pages.toLocaleString('en')}`);
    }
    // Reputation as the services keep it: counts, scores and levels from the contributions just written.
    // In a transaction, as the services call it: the change log's append locks its table on PostgreSQL.
    await db.transaction().execute((trx) => recomputeReputation(trx, [...ids.values()], NOW));
    const first = DEMO_PUBLISHERS[0]!;
    const cmsKey = await createApiKey(deps, ids.get(first.owner.username)!, { name: 'bench cms', publisher: first.slug });
    const cms = { key: cmsKey.secret, host: first.host };
    const fixture = { urls, recorded, pages: urls.length, contributions, buildSeconds: (Date.now() - started) / 1000, cms };
    opts.log(`fixture: ${fixture.pages.toLocaleString('en')} pages and ${contributions.toLocaleString('en')} contributions in ${fixture.buildSeconds.toFixed(1)} s`);
    return fixture;
  } finally {
    await rt.close();
  }
}

/** Accepted contributions for one page: usually an author (sometimes two), sometimes a review, check or fix. */
function creditsFor(rng: ReturnType<typeof createPrng>, pageId: number, topic: DemoTopic, at: string, ids: Map<string, number>) {
  const experts = DEMO_CONTRIBUTORS.filter((c) => c.topics.includes(topic));
  const credit = (username: string, role: WorkKind, summary: string, change?: { from: string; to: string }) => ({
    page_id: pageId,
    account_id: ids.get(username)!,
    role,
    summary,
    change_from: change?.from ?? null,
    change_to: change?.to ?? null,
    accepted_at: at,
    created_at: at,
  });
  const rows = [];
  const authors = new Set<string>();
  if (!rng.chance(0.12)) {
    authors.add(rng.pick(experts).username);
    if (rng.chance(0.15)) authors.add(rng.pick(experts).username);
  }
  for (const a of authors) rows.push(credit(a, 'author', 'Wrote this page'));
  for (const extra of EXTRA_ROLES) {
    if (!rng.chance(extra.share)) continue;
    const who = rng.pick(experts.filter((e) => !authors.has(e.username)));
    rows.push(credit(who.username, extra.role, extra.summary, extra.role === 'correction' ? { from: '12 percent', to: '21 percent' } : undefined));
  }
  return rows;
}

/** A schema of its own on the server at `url`, or null (said aloud) when the server cannot be reached. */
export async function postgresSchema(url: string): Promise<{ url: string; drop(): Promise<void> } | null> {
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch {
    console.log(`PostgreSQL at ${url} cannot be reached: the PostgreSQL columns are SKIPPED (--postgres URL to set one)`);
    return null;
  }
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  await admin.query(`create schema ${schema}`);
  await admin.end();
  return {
    url: `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}
