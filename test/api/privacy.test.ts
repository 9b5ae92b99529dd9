// Nothing private in any public answer (the bar): on a database seeded with the demo data and its work in
// progress, every public route, JSON and HTML, is read for real ids, and no account's email, no hash and no secret
// appears in any of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.js';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let anon: Client;
let secrets: string[];
beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['0.0.0.0/0'] });
  await seedDemo(t.runtime.deps, () => {});
  // The transparency log over everything the seed published, so its entries and proofs are read too.
  await integrate(t.runtime.deps);
  anon = new Client(t.baseUrl);
  const db = t.runtime.deps.db;
  const accounts = await db.selectFrom('accounts').select(['email', 'password_hash']).execute();
  const hashes = [
    ...(await db.selectFrom('sessions').select('token_hash').execute()).map((r) => r.token_hash),
    ...(await db.selectFrom('api_keys').select('key_hash').execute()).map((r) => r.key_hash),
  ];
  secrets = [...accounts.flatMap((a) => [a.email, a.password_hash.split('$').at(-1)!]), ...hashes];
}, 120_000);
afterAll(async () => t?.close());

async function publicPaths(): Promise<string[]> {
  const db = t.runtime.deps.db;
  const pages = await db.selectFrom('pages').select(['id', 'url']).orderBy('id').limit(40).execute();
  const contributions = await db.selectFrom('contributions').select('id').orderBy('id', 'desc').limit(40).execute();
  // A page without accepted work has no /v1 record yet (404); its lookup and its page still show.
  const withRecord = new Set((await db.selectFrom('contributions').select('page_id').distinct().execute()).map((r) => r.page_id));
  const accounts = await db.selectFrom('accounts').select(['id', 'username']).execute();
  const publishers = await db.selectFrom('publishers').select('slug').execute();
  const requests = await db.selectFrom('requests').select('id').execute();
  const statements = await db.selectFrom('panel_statements').select('slug').execute();
  const logSize = Number((await db.selectFrom('log_state').select('tree_size').executeTakeFirstOrThrow()).tree_size);
  const enc = encodeURIComponent;
  return [
    '/',
    '/requests',
    '/panels',
    '/api/v1/publishers?per_page=100',
    '/api/v1/review-requests?per_page=100',
    '/api/v1/contributors?per_page=100',
    '/api/v1/contributors?topic=health&per_page=100',
    ...pages.flatMap((p) => [
      `/api/v1/pages/lookup?url=${enc(p.url)}`,
      ...(withRecord.has(p.id) ? [`/v1/pages/record?url=${enc(p.url)}`] : []),
      `/api/v1/articles/${p.id}`,
      `/records/${p.id}`,
      `/api/v1/embed/by-url?url=${enc(p.url)}`,
    ]),
    ...contributions.map((c) => `/proofs/${c.id}`),
    ...accounts.flatMap((a) => [`/api/v1/contributors/${a.username}`, `/v1/contributors/${a.id}`, `/contributors/${a.username}`]),
    ...publishers.flatMap((p) => [`/api/v1/publishers/${p.slug}`, `/publishers/${p.slug}`]),
    ...requests.map((r) => `/api/v1/review-requests/${r.id}`),
    ...statements.flatMap((s) => [`/v1/panels/${s.slug}`, `/panels/${s.slug}`]),
    '/v1/log/checkpoint',
    '/v1/log/key',
    ...Array.from({ length: Math.ceil(logSize / 1000) }, (_, i) => `/v1/log/entries?start=${i * 1000}&limit=1000`),
    ...(logSize > 0 ? [`/v1/log/proof/inclusion?index=${logSize - 1}`, '/v1/log/proof/consistency?first=1'] : []),
  ];
}

describe('privacy of public answers', () => {
  it('shows no email, hash or secret anywhere, as JSON or as a page', async () => {
    const paths = await publicPaths();
    expect(paths.length).toBeGreaterThan(300);
    const leaks: string[] = [];
    for (const path of paths) {
      for (const accept of ['application/json', 'text/html']) {
        const res = await anon.get(path, { headers: { accept } });
        expect(res.status, `${path} (${accept})`).toBeLessThan(400);
        for (const secret of secrets) if (res.text.includes(secret)) leaks.push(`${path} (${accept}) shows ${secret.slice(0, 12)}…`);
        if (res.text.includes('@demo.credence.example')) leaks.push(`${path} (${accept}) shows a demo email`);
      }
    }
    expect(leaks).toEqual([]);
  }, 120_000);

  it('keeps the change feed to the public record: no private field, no pending, rejected or withdrawn work', async () => {
    const db = t.runtime.deps.db;
    const submissions = await db.selectFrom('submissions').select(['reason', 'decision_note', 'sources', 'status']).execute();
    const never = [
      ...submissions.flatMap((s) => [s.reason, s.decision_note ?? '', ...(JSON.parse(s.sources) as string[])]).filter((v) => v.length > 8),
    ];
    const accepted = new Set((await db.selectFrom('contributions').select('id').execute()).map((c) => c.id));
    // Work its person took back was public, and its withdrawal is an entry of its own.
    const withdrawn = new Set((await db.selectFrom('withdrawn_contributions').select('id').execute()).map((c) => c.id));
    for (const [path, words] of [['/api/v1/changes', 'api'], ['/v1/changes', 'v1']] as const) {
      let after = 0;
      let seen = 0;
      const leaks: string[] = [];
      const saidWithdrawn = new Set<number>();
      for (;;) {
        const res = await anon.get(`${path}?after=${after}&limit=500`);
        expect(res.status, res.text).toBe(200);
        for (const secret of [...secrets, ...never]) if (res.text.includes(secret)) leaks.push(`${path}?after=${after} shows ${secret.slice(0, 12)}…`);
        if (res.text.includes('@demo.credence.example')) leaks.push(`${path} shows a demo email`);
        for (const e of res.body.data as { kind: string; contribution?: { id: number | string } }[]) {
          const id = Number(String(e.contribution?.id).replace(/^ctb_/, ''));
          if (e.kind === 'contribution.withdrawn') saidWithdrawn.add(id);
          if (e.contribution) expect(accepted.has(id) || withdrawn.has(id), `${e.kind} ${id}`).toBe(true);
          if (e.contribution && words === 'v1') expect(String(e.contribution.id)).toMatch(/^ctb_\d+$/);
        }
        seen += res.body.data.length;
        after = res.body.meta.next_cursor;
        if (!res.body.meta.has_more) break;
      }
      expect(leaks).toEqual([]);
      expect(seen).toBeGreaterThan(100);
      expect([...withdrawn].filter((id) => !saidWithdrawn.has(id)), 'every withdrawal is an entry').toEqual([]);
    }
  }, 120_000);
});
