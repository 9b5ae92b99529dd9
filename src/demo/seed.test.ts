import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../test/client.js';
import { startTestApp, type TestApp } from '../../test/harness.js';
import type { DB } from '../db/schema.js';
import { DEMO_CONSENT_PAGES } from './consent.js';
import { planDemo } from './demo-plan.js';
import { seedDemo } from './seed.js';
import { correctionsFor, WORK_END_BEFORE } from './work.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const plan = planDemo();

const count = async (table: keyof DB) =>
  Number((await t.runtime.deps.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

async function counts() {
  const db = t.runtime.deps.db;
  return {
    accounts: await count('accounts'),
    publishers: await count('publishers'),
    domains: await count('domains'),
    pages: await count('pages'),
    // The base dataset's own rows; the work in progress (requests, submissions, accepted work) is counted apart.
    contributions: Number(
      (await db.selectFrom('contributions').select((eb) => eb.fn.countAll<number>().as('n')).where('role', '=', 'author').executeTakeFirstOrThrow()).n,
    ),
    events: Number(
      (await db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('type', '=', 'page.registered').executeTakeFirstOrThrow()).n,
    ),
  };
}

async function seed(): Promise<string[]> {
  const lines: string[] = [];
  await seedDemo(t.runtime.deps, (line) => lines.push(line));
  return lines;
}

describe('the demo plan', () => {
  it('is the same on every call, with a few hundred distinct pages under .example domains', () => {
    expect(planDemo()).toEqual(plan);
    expect(plan.pages.length).toBeGreaterThanOrEqual(300);
    expect(plan.pages.length).toBeLessThanOrEqual(400);
    expect(new Set(plan.pages.map((p) => p.url)).size).toBe(plan.pages.length);
    for (const p of plan.pages) expect(new URL(p.url).hostname).toMatch(/\.example$/);
    expect(plan.pages.filter((p) => p.authors.length > 0).length / plan.pages.length).toBeGreaterThan(0.8);
    for (const p of plan.publishers) expect(plan.pages.filter((x) => x.publisher === p.slug)).toHaveLength(p.pages);
  });

  it('holds the page the README looks up', () => {
    expect(plan.pages.map((p) => p.url)).toContain('https://dailyledger.example/health/measles-cases-rise-in-three-states');
  });
});

describe('seedDemo', () => {
  it('loads the dataset with progress, and a second run changes nothing', async () => {
    const first = await seed();
    expect(first).toContain(`seeding demo data: accounts ${plan.people.length}/${plan.people.length}, publishers ${plan.publishers.length}/${plan.publishers.length}, pages ${plan.pages.length}/${plan.pages.length}`);
    expect(first.some((l) => l.startsWith(`try it: curl '${t.config.siteUrl}/api/v1/pages/lookup?url=https://`))).toBe(true);
    const after = await counts();
    expect(after).toMatchObject({
      accounts: plan.people.length,
      publishers: plan.publishers.length,
      domains: plan.publishers.length,
      // The consent states (demo/consent.ts) add pages: one authorship published by a standing permission, one
      // withdrawn, so as many authorships as the plan names.
      pages: plan.pages.length + DEMO_CONSENT_PAGES,
      contributions: plan.pages.reduce((n, p) => n + p.authors.length, 0),
      // One page.registered event per page, written by the service.
      events: plan.pages.length + DEMO_CONSENT_PAGES,
    });

    const work = async () => ({
      requests: await count('requests'),
      submissions: await count('submissions'),
      allContributions: await count('contributions'),
      allEvents: await count('events'),
    });
    const workAfter = await work();
    expect(workAfter.requests).toBeGreaterThan(0);
    const second = await seed();
    expect(second[0]).toMatch(/^demo data already present/);
    expect(await counts()).toEqual(after);
    expect(await work()).toEqual(workAfter);
  }, 180_000);

  it('serves a seeded page’s record over HTTP', async () => {
    const page = plan.pages.find((p) => p.authors.length > 0)!;
    const api = new Client(t.baseUrl);
    const look = await api.get(`/api/v1/pages/lookup?url=${encodeURIComponent(page.url)}`);
    expect(look.status, look.text).toBe(200);
    expect(look.body.data).toMatchObject({ has_record: true, registered: true, status: 'verified', title: page.title, topic: page.topic });
    expect(look.body.data.contributors.author.map((a: { username: string }) => a.username).sort()).toEqual([...page.authors].sort());
    const v1 = await api.get(`/v1/pages/record?url=${encodeURIComponent(page.url)}`);
    expect(v1.status, v1.text).toBe(200);
    // The credit carries the page's own date, not the seeding day.
    expect(v1.body.contributions[0]).toMatchObject({ role: 'author', accepted: page.registeredAt.slice(0, 10) });
  });

  it('finishes a run that stopped half-way', async () => {
    const full = await counts();
    const last = plan.publishers.at(-1)!;
    const db = t.runtime.deps.db;
    const publisher = await db.selectFrom('publishers').select('id').where('slug', '=', last.slug).executeTakeFirstOrThrow();
    const pageIds = (await db.selectFrom('pages').select('id').where('publisher_id', '=', publisher.id).execute()).map((r) => r.id);
    // As if the process died before registering the last publication's pages.
    await db.deleteFrom('contributions').where('page_id', 'in', pageIds).execute();
    await db.deleteFrom('events').where('page_id', 'in', pageIds).execute();
    await db.deleteFrom('pages').where('publisher_id', '=', publisher.id).execute();
    expect((await counts()).pages).toBe(plan.pages.length + DEMO_CONSENT_PAGES - last.pages);

    const lines = await seed();
    expect(lines[0]).not.toMatch(/already present/);
    expect(await counts()).toEqual(full);
  });
});

describe('the demo work', () => {
  it('has requests and submissions in every state, and accepted corrections with their change', async () => {
    await seed();
    const db = t.runtime.deps.db;
    const requestStates = (await db.selectFrom('requests').select('status').distinct().execute()).map((r) => r.status).sort();
    expect(requestStates).toEqual(['cancelled', 'fulfilled', 'open', 'taken']);
    const submissionStates = (await db.selectFrom('submissions').select('status').distinct().execute()).map((r) => r.status).sort();
    expect(submissionStates).toEqual(['accepted', 'pending', 'rejected', 'withdrawn']);
    const correction = await db
      .selectFrom('contributions as c')
      .innerJoin('pages as p', 'p.id', 'c.page_id')
      .select(['p.url', 'c.change_to'])
      .where('c.role', '=', 'correction')
      .executeTakeFirstOrThrow();
    const v1 = await new Client(t.baseUrl).get(`/v1/pages/record?url=${encodeURIComponent(correction.url)}`);
    expect(v1.body.contributions).toContainEqual(expect.objectContaining({ role: 'correction', change: expect.objectContaining({ to: correction.change_to }) }));
    const market = await new Client(t.baseUrl).get('/api/v1/review-requests');
    expect(market.body.meta.total).toBeGreaterThan(10);
  });

  it('corrects only what its page is about: each correction fits its article’s headline', async () => {
    await seed();
    const rows = await t.runtime.deps.db
      .selectFrom('submissions as s')
      .innerJoin('pages as p', 'p.id', 's.page_id')
      .select(['s.summary', 'p.title', 'p.topic'])
      .where('s.kind', '=', 'correction')
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(correctionsFor({ topic: r.topic ?? '', title: r.title ?? '' }).map((c) => `Corrected: ${c.after}`), r.title ?? '').toContain(r.summary);
    // Most have a figure of their own to fix; the quoted name is the exception.
    expect(rows.filter((r) => !r.summary.includes('Lindquist')).length).toBeGreaterThan(rows.length / 2);
  });

  it('dates no work after the dataset’s reference date, and none before its page was registered', async () => {
    await seed();
    const db = t.runtime.deps.db;
    const latest = async (table: 'contributions' | 'submissions' | 'requests' | 'events', column: 'accepted_at' | 'created_at') =>
      Date.parse((await db.selectFrom(table).select((eb) => eb.fn.max<string>(column as never).as('m')).executeTakeFirstOrThrow()).m);
    expect(await latest('contributions', 'accepted_at')).toBeLessThan(Date.parse(WORK_END_BEFORE));
    expect(await latest('submissions', 'created_at')).toBeLessThan(Date.parse(WORK_END_BEFORE));
    expect(await latest('requests', 'created_at')).toBeLessThan(Date.parse(WORK_END_BEFORE));
    // A request the demo leaves held is taken on the real clock (so its take does not run out at the first start):
    // that take is the one event dated now; every other is the dataset's.
    const lastEvent = await db.selectFrom('events').select((eb) => eb.fn.max<string>('created_at').as('m')).where('type', '!=', 'request.taken').executeTakeFirstOrThrow();
    expect(Date.parse(lastEvent.m)).toBeLessThan(Date.parse(WORK_END_BEFORE));
    const early = await db
      .selectFrom('contributions as c')
      .innerJoin('pages as p', 'p.id', 'c.page_id')
      .select(['p.url', 'c.accepted_at', 'p.created_at'])
      .whereRef('c.accepted_at', '<', 'p.created_at')
      .execute();
    expect(early, JSON.stringify(early)).toEqual([]);
  });
});

describe('the demo consent', () => {
  it('shows every state: a standing permission, a pending claim, a declined one and a withdrawn authorship', async () => {
    await seed();
    const db = t.runtime.deps.db;
    const states = (await db.selectFrom('author_claims').select('state').distinct().execute()).map((r) => r.state).sort();
    expect(states).toEqual(['confirmed', 'declined', 'pending', 'withdrawn']);
    expect(await db.selectFrom('claim_preferences').select('preference').execute()).toEqual([{ preference: 'permit' }]);
    const consents = (await db.selectFrom('contributions').select('consent').where('role', '=', 'author').distinct().execute()).map((r) => r.consent).sort();
    expect(consents).toEqual(['confirmed', 'standing_permission']);
    expect(await count('withdrawn_contributions')).toBe(1);
  });
});
