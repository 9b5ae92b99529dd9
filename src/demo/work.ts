// The demo's work in progress, through the same services people use: requests in every state, submissions with
// evidence, accepted corrections with their before and after, a rejection and a withdrawal, so the marketplace,
// records, proofs, inboxes and profiles all show real content. Deterministic; a second run sees its marker (the
// first demo publisher has requests) and leaves everything alone.
import { findAccountByUsername } from '../domain/accounts/account.store.js';
import type { Deps } from '../domain/deps.js';
import { findPageByLookupKey } from '../domain/pages/page.store.js';
import { parsePageUrl } from '../domain/pages/url-keys.js';
import { findPublisherBySlug } from '../domain/publishers/publisher.store.js';
import { cancelRequest, openRequests, takeRequest } from '../domain/requests/request.service.js';
import { decide, type Evidence, submitWork, withdrawSubmission } from '../domain/submissions/submission.service.js';
import type { WorkKind } from '../domain/work-kinds.js';
import { DEMO_CONTRIBUTORS } from './demo-data.js';
import { type DemoPage, planDemo } from './demo-plan.js';
import { createPrng } from './prng.js';

// The work runs from START, one to five hours a step, and ends some days before the demo's reference date
// (2026-11-21, the last page is registered on 2026-11-16): no accepted work is dated in the future of the dataset,
// and work only touches pages registered before it starts (both held by seed.test.ts).
export const WORK_START = '2026-10-18T09:00:00.000Z';
export const WORK_END_BEFORE = '2026-11-21T00:00:00.000Z';
const START = Date.parse(WORK_START);
const HOUR = 3_600_000;

/** What a correction fixes, by topic: a figure, a name or a date misread, with the source that shows it. */
const CORRECTIONS: Record<string, { before: string; after: string; reason: string; source: string }[]> = {
  health: [
    { before: 'The trial enrolled 1,200 patients over two years.', after: 'The trial enrolled 2,100 patients over two years.', reason: 'The registry entry and the paper’s abstract both give 2,100 participants.', source: 'https://trials.example/registry/NCT-0451' },
    { before: 'Vaccination rates fell to 70 percent last year.', after: 'Vaccination rates fell to 79 percent last year.', reason: 'The regional health office’s annual table reports 79.2 percent.', source: 'https://health-office.example/tables/2025' },
  ],
  climate: [
    { before: 'The reservoir is at 12 percent of capacity.', after: 'The reservoir is at 21 percent of capacity.', reason: 'The water board’s daily level report for that date reads 21 percent.', source: 'https://waterboard.example/levels/2026-10' },
    { before: 'Average summer temperatures rose 3 degrees since 1990.', after: 'Average summer temperatures rose 1.3 degrees since 1990.', reason: 'The weather service’s station series shows +1.3 °C.', source: 'https://weather.example/series/summer' },
  ],
  economy: [
    { before: 'Unemployment rose to 6.8 percent in September.', after: 'Unemployment rose to 5.8 percent in September.', reason: 'The statistics office’s September release gives 5.8 percent, seasonally adjusted.', source: 'https://stats.example/labour/2026-09' },
    { before: 'The budget grew by 14 million.', after: 'The budget grew by 41 million.', reason: 'The council’s adopted budget, page 12, shows an increase of 41 million.', source: 'https://council.example/budget-2027.pdf' },
  ],
  science: [
    { before: 'The study was published in 2019.', after: 'The study was published in 2021.', reason: 'The journal’s page lists publication in March 2021.', source: 'https://journal.example/articles/2021-0317' },
  ],
  politics: [
    { before: 'The motion passed 31 to 18.', after: 'The motion passed 31 to 19.', reason: 'The assembly’s published roll call counts 19 votes against.', source: 'https://assembly.example/votes/2026-118' },
  ],
  technology: [
    { before: 'The outage lasted six days.', after: 'The outage lasted six hours.', reason: 'The operator’s incident report gives a duration of 6 h 12 min.', source: 'https://status.example/incidents/0923' },
  ],
  education: [
    { before: 'Class sizes average 34 pupils.', after: 'Class sizes average 24 pupils.', reason: 'The school board’s census puts the average at 24.3.', source: 'https://schools.example/census-2026' },
  ],
  food: [
    { before: 'The recall covers 40 tonnes of flour.', after: 'The recall covers 4 tonnes of flour.', reason: 'The food agency’s recall notice lists 4,000 kg.', source: 'https://food-agency.example/recalls/2026-77' },
  ],
};

const NOTES: Record<Exclude<WorkKind, 'author' | 'correction'>, { summary: string; reason: string; source: string }> = {
  review: { summary: 'Reviewed the methods and the conclusions', reason: 'Read against the underlying report; the claims follow from it.', source: 'https://library.example/report' },
  fact_check: { summary: 'Checked every figure against its source', reason: 'Each number matches the cited table; two links updated to their permanent addresses.', source: 'https://data.example/tables' },
  edit: { summary: 'Tightened the explanation of the method', reason: 'The method section was hard to follow; shortened it without changing a claim.', source: 'https://style.example/guide' },
  source: { summary: 'Added the primary source for the main claim', reason: 'The article quoted a press release; the dataset it describes is public.', source: 'https://open-data.example/dataset/42' },
};

type Step = 'open' | 'taken' | 'pending' | 'fulfilled' | 'rejected' | 'withdrawn' | 'cancelled';
// Each publisher gets one request in each state, plus unasked work.
const STEPS: Step[] = ['open', 'open', 'taken', 'pending', 'fulfilled', 'fulfilled', 'rejected', 'withdrawn', 'cancelled'];
const KINDS: WorkKind[] = ['correction', 'fact_check', 'review', 'correction', 'source', 'edit'];

export async function seedDemoWork(deps: Deps, log: (line: string) => void): Promise<void> {
  const plan = planDemo();
  const first = await findPublisherBySlug(deps.db, plan.publishers[0]!.slug);
  if (!first) return;
  const marker = await deps.db.selectFrom('requests').select('id').where('publisher_id', '=', first.id).executeTakeFirst();
  if (marker) {
    log('demo work already present');
    return;
  }
  const rng = createPrng(20261102);
  const specialists = DEMO_CONTRIBUTORS.map((c) => c.username);
  const ids = new Map<string, number>();
  for (const u of [...specialists, ...plan.publishers.map((p) => p.owner.username)]) {
    const a = await findAccountByUsername(deps.db, u);
    if (a) ids.set(u, a.id);
  }
  let clock = START;
  const tick = () => {
    clock += HOUR * (1 + rng.int(5));
    return { ...deps, clock: { now: () => new Date(clock) } } as Deps;
  };
  let made = 0;
  // Nobody checks a page they are named an author of (docs/decisions/authors-do-not-check-their-own-pages.md): the
  // next specialist in the round does it instead.
  const notAnAuthor = (start: number, page: DemoPage): string => {
    for (let k = 0; k < specialists.length; k++) {
      const u = specialists[(start + k) % specialists.length]!;
      if (!page.authors.includes(u)) return u;
    }
    return specialists[start % specialists.length]!;
  };

  for (const publisher of plan.publishers) {
    const pub = await findPublisherBySlug(deps.db, publisher.slug);
    const ownerId = ids.get(publisher.owner.username);
    if (!pub || ownerId === undefined) continue;
    const pages = plan.pages.filter((p) => p.publisher === publisher.slug && p.registeredAt < WORK_START);
    for (let i = 0; i < STEPS.length; i++) {
      const step = STEPS[i]!;
      const page = pages[(i * 7 + 3) % pages.length]!;
      const kind = KINDS[(i + made) % KINDS.length]!;
      const specialist = notAnAuthor(made * 5 + i, page);
      await playRequest(tick, { pubId: pub.id, ownerId, specialistId: ids.get(specialist)!, page, kind, step, pick: rng.int(1000) });
      made++;
    }
    // Unasked work: contributors volunteer reviews, fact checks and sources; most are accepted.
    for (let i = 0; i < 6; i++) {
      const page = pages[(i * 11 + 5) % pages.length]!;
      const kind = (['review', 'fact_check', 'source', 'correction'] as const)[i % 4]!;
      const specialist = notAnAuthor(made * 3 + i * 7, page);
      const submissionId = await submit(tick(), ids.get(specialist)!, page, kind, rng.int(1000), undefined);
      if (submissionId !== null && i !== 5) await decide(tick(), ownerId, [pub.id], [{ index: 0, ok: true, value: { submission_id: submissionId, decision: 'accept', note: 'Thank you.' } }]);
    }
    log(`seeding demo work: ${publisher.slug} done`);
  }
}

interface Play {
  pubId: number;
  ownerId: number;
  specialistId: number;
  page: DemoPage;
  kind: WorkKind;
  step: Step;
  pick: number;
}

async function playRequest(tick: () => Deps, p: Play): Promise<void> {
  const [opened] = await openRequests(tick(), p.pubId, p.ownerId, [
    {
      index: 0,
      ok: true,
      value: { url: p.page.url, kind: p.kind, topic: p.page.topic, title: requestTitle(p.kind, p.page), brief: brief(p.kind) },
    },
  ]);
  const requestId = opened?.id;
  if (requestId === undefined) return;
  if (p.step === 'open') return;
  if (p.step === 'cancelled') {
    await cancelRequest(tick(), [p.pubId], requestId);
    return;
  }
  await takeRequest(tick(), p.specialistId, requestId);
  if (p.step === 'taken') return;
  const submissionId = await submit(tick(), p.specialistId, p.page, p.kind, p.pick, requestId);
  if (submissionId === null || p.step === 'pending') return;
  if (p.step === 'withdrawn') {
    await withdrawSubmission(tick(), p.specialistId, submissionId);
    return;
  }
  const decision = p.step === 'fulfilled' ? 'accept' : 'reject';
  const note = decision === 'accept' ? 'Checked and accepted, thank you.' : 'The source does not support the change; happy to look at another one.';
  await decide(tick(), p.ownerId, [p.pubId], [{ index: 0, ok: true, value: { submission_id: submissionId, decision, note } }]);
}

async function submit(deps: Deps, accountId: number, page: DemoPage, kind: WorkKind, pick: number, requestId: number | undefined): Promise<number | null> {
  let summary: string;
  let evidence: Evidence;
  if (kind === 'correction') {
    const options = CORRECTIONS[page.topic] ?? CORRECTIONS.science!;
    const c = options[pick % options.length]!;
    summary = `Corrected: ${c.after}`;
    evidence = { before: c.before, after: c.after, reason: c.reason, sources: [c.source] };
  } else {
    const n = NOTES[kind as keyof typeof NOTES];
    summary = n.summary;
    evidence = { reason: n.reason, sources: [n.source] };
  }
  const key = parsePageUrl(page.url);
  const row = key ? await findPageByLookupKey(deps.db, key.lookupKey) : undefined;
  if (!row) return null;
  const [r] = await submitWork(deps, accountId, [
    { index: 0, ok: true, value: { ...(requestId !== undefined ? { request_id: requestId } : { article_ref_id: row.id, role: kind }), summary, evidence } },
  ]);
  if (r?.error) throw new Error(`demo submission on ${page.url} failed: ${r.error.message}`);
  return r?.id ?? null;
}

const requestTitle = (kind: WorkKind, page: DemoPage) =>
  `${{ review: 'Review', fact_check: 'Fact-check', edit: 'Edit', correction: 'Check the figures in', source: 'Source', author: 'Write' }[kind]} “${page.title}”`;

const brief = (kind: WorkKind) =>
  ({
    review: 'A specialist read of the method and the conclusions, please.',
    fact_check: 'Every figure against its source; flag anything we cannot support.',
    edit: 'The explanation of the method is hard to follow.',
    correction: 'Readers wrote in about one of the numbers; please check them all.',
    source: 'We quote a press release; find the primary source.',
    author: '',
  })[kind];
