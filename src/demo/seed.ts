// `credence seed --demo` (and `serve --demo`): six publications with verified .example domains, 42 accounts with
// profiles, and 360 pages, most with authors (demo-data.ts holds the fixed parts, demo-plan.ts derives the rest). Everything goes through the services, so events, reputation and
// the record cache stay as consistent as after real use. Safe to run again: a complete dataset is seen in a few
// queries and left alone; a run that stopped half-way is finished (existing accounts, publishers and pages are
// kept, and registering a known page again is a skip).
import { createAccount, updateOwnProfile } from '../domain/accounts/account.service.js';
import { hashPassword } from '../domain/accounts/password.js';
import { findAccountByUsername } from '../domain/accounts/account.store.js';
import type { BatchItem } from '../domain/batch.js';
import type { Deps } from '../domain/deps.js';
import { registerPages, type PageInput } from '../domain/pages/page.service.js';
import { createPublisher, verifyDomainByOperator } from '../domain/publishers/publisher.service.js';
import {
  countPagesByPublisher,
  findDomain,
  findMembership,
  findPublisherBySlug,
  verifiedDomainsOf,
} from '../domain/publishers/publisher.store.js';
import { DEMO_PASSWORD, demoEmail } from './demo-data.js';
import { type DemoPage, type DemoPlan, planDemo } from './demo-plan.js';
import { seedDemoPanels } from './panels.js';
import { seedDemoWork } from './work.js';
import { confirmDemoClaims, seedDemoConsent } from './consent.js';

// The accounts and publications "joined" before the first demo page was written.
const JOINED_AT = '2025-11-01T09:00:00.000Z';
// scrypt runs on libuv's thread pool (4 threads by default): a few sign-ups at once use it without flooding it.
const SIGNUP_CONCURRENCY = 4;
const PROGRESS_EVERY = 60;

export async function seedDemo(deps: Deps, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const plan = planDemo();
  const example = examplePage(plan);
  if (await isComplete(deps, plan)) {
    log(`demo data already present: ${plan.publishers.length} publishers, ${plan.pages.length} pages, ${plan.people.length} accounts`);
    // Each later part has its own marker, so a database seeded before it existed gains it now.
    await seedDemoPanels(deps, log);
    await seedDemoWork(deps, log);
    await seedDemoConsent(deps, log);
    tryIt(deps, log, example);
    return;
  }
  const progress = new Progress(log, plan);
  const accountIds = await ensureAccounts(deps, plan, progress);
  const publisherIds = await ensurePublishers(deps, plan, accountIds, progress);
  await ensurePages(deps, plan, publisherIds, accountIds, progress);
  await seedDemoPanels(deps, log);
  await seedDemoWork(deps, log);
  await seedDemoConsent(deps, log);
  log(`demo data ready in ${((Date.now() - started) / 1000).toFixed(1)} s (every demo account's password is ${DEMO_PASSWORD})`);
  tryIt(deps, log, example);
}

/** Services as if called at `iso`: demo pages carry the dates they were "published", not the seeding day. */
const at = (deps: Deps, iso: string): Deps => ({ ...deps, clock: { now: () => new Date(iso) } });

/** Pages are registered last, publisher by publisher, so every publisher holding all its pages means done. */
async function isComplete(deps: Deps, plan: DemoPlan): Promise<boolean> {
  const ids: number[] = [];
  for (const p of plan.publishers) {
    const row = await findPublisherBySlug(deps.db, p.slug);
    if (!row) return false;
    ids.push(row.id);
  }
  const [domains, counts] = await Promise.all([verifiedDomainsOf(deps.db, ids), countPagesByPublisher(deps.db, ids)]);
  return plan.publishers.every(
    (p, i) => (domains.get(ids[i]!) ?? []).includes(p.domain) && (counts.get(ids[i]!) ?? 0) >= p.pages,
  );
}

async function ensureAccounts(deps: Deps, plan: DemoPlan, progress: Progress): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const joined = at(deps, JOINED_AT);
  // The demo accounts share one public password: hashing it once spares a second of scrypt per account.
  const passwordHash = await hashPassword(DEMO_PASSWORD, deps.config.scryptLogN);
  await inPool(plan.people, SIGNUP_CONCURRENCY, async (person) => {
    const email = demoEmail(person.username);
    const existing = await findAccountByUsername(deps.db, person.username);
    if (existing && existing.email !== email) {
      throw new Error(`the demo username ${person.username} belongs to a non-demo account (${existing.id}); seed into a fresh database`);
    }
    const id = existing?.id ?? (await createAccount(joined, { email, password: DEMO_PASSWORD, name: person.name, username: person.username }, { passwordHash })).user_id;
    // A run that stopped between sign-up and profile left the summary empty.
    if (!existing || existing.summary !== person.summary) {
      await updateOwnProfile(joined, id, { summary: person.summary, topics: person.topics });
    }
    ids.set(person.username, id);
    progress.step('accounts');
  });
  return ids;
}

async function ensurePublishers(deps: Deps, plan: DemoPlan, accountIds: Map<string, number>, progress: Progress) {
  const ids = new Map<string, number>();
  for (const p of plan.publishers) {
    const ownerId = accountIds.get(p.owner.username)!;
    let row = await findPublisherBySlug(deps.db, p.slug);
    if (!row) {
      await createPublisher(at(deps, JOINED_AT), ownerId, { name: p.name, slug: p.slug });
      row = (await findPublisherBySlug(deps.db, p.slug))!;
    } else if (!(await findMembership(deps.db, row.id, ownerId))) {
      throw new Error(`the demo publisher ${p.slug} exists without its demo owner; seed into a fresh database`);
    }
    if ((await findDomain(deps.db, row.id, p.domain))?.status !== 'verified') {
      await verifyDomainByOperator(at(deps, JOINED_AT), p.slug, p.domain);
    }
    ids.set(p.slug, row.id);
    progress.step('publishers');
  }
  return ids;
}

async function ensurePages(deps: Deps, plan: DemoPlan, publisherIds: Map<string, number>, accountIds: Map<string, number>, progress: Progress) {
  // One call per publisher and day, so each page (and its authors' credit) carries its own date. A day rarely has
  // more than a few pages of one publisher, far below the batch limit of 500.
  const groups = new Map<string, DemoPage[]>();
  for (const page of plan.pages) {
    const key = `${page.publisher} ${page.registeredAt}`;
    groups.set(key, [...(groups.get(key) ?? []), page]);
  }
  for (const pages of groups.values()) {
    const first = pages[0]!;
    const items: BatchItem<PageInput>[] = pages.map((p, index) => ({
      index,
      ok: true,
      value: { url: p.url, title: p.title, topic: p.topic, authors: p.authors },
    }));
    const results = await registerPages(at(deps, first.registeredAt), publisherIds.get(first.publisher)!, items);
    const failed = results.find((r) => r.status === 'failed');
    if (failed) throw new Error(`demo page ${pages[failed.index]!.url} could not be registered: ${failed.error?.message ?? 'unknown error'}`);
    // Naming an author is a claim until they confirm it; the demo's authors wrote their pages, and say so.
    const pageIds = new Set(results.flatMap((r) => (r.id === undefined ? [] : [r.id])));
    for (const author of new Set(pages.flatMap((p) => p.authors))) await confirmDemoClaims(at(deps, first.registeredAt), accountIds.get(author)!, pageIds);
    for (let i = 0; i < pages.length; i++) progress.step('pages');
  }
}

/** The first featured page (the README's example), so the printed curl and the docs agree. */
function examplePage(plan: DemoPlan): DemoPage {
  const featured = plan.publishers.flatMap((p) => (p.featured ?? []).map((f) => `https://${p.host}${f.path}`));
  return plan.pages.find((p) => p.url === featured[0]) ?? plan.pages.find((p) => p.authors.length > 0)!;
}

function tryIt(deps: Deps, log: (line: string) => void, page: DemoPage): void {
  const site = deps.config.siteUrl;
  // Demo URLs hold only [a-z0-9:/.-], so they read better unescaped and are still a valid query value.
  log(`try it: curl '${site}/api/v1/pages/lookup?url=${page.url}'`);
  log(`        curl '${site}/v1/pages/record?url=${page.url}'`);
  log(`log in as any demo account, e.g. ${demoEmail(page.authors[0]!)} with password ${DEMO_PASSWORD}`);
}

/** Run `fn` over `items` with at most `limit` calls in flight; the first failure stops new calls and is thrown. */
async function inPool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** `seeding demo data: accounts 42/42, publishers 6/6, pages 120/360`, every so often and at each stage's end. */
type Stage = 'accounts' | 'publishers' | 'pages';

class Progress {
  private readonly done: Record<Stage, number> = { accounts: 0, publishers: 0, pages: 0 };
  private readonly total: Record<Stage, number>;

  constructor(
    private readonly log: (line: string) => void,
    plan: DemoPlan,
  ) {
    this.total = { accounts: plan.people.length, publishers: plan.publishers.length, pages: plan.pages.length };
  }

  step(stage: Stage): void {
    const n = ++this.done[stage];
    const every = stage === 'pages' ? PROGRESS_EVERY : stage === 'accounts' ? 14 : this.total[stage];
    if (n % every === 0 || n === this.total[stage]) {
      const parts = (Object.keys(this.done) as Stage[]).map((k) => `${k} ${this.done[k]}/${this.total[k]}`);
      this.log(`seeding demo data: ${parts.join(', ')}`);
    }
  }
}
