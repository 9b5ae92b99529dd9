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

/**
 * What a correction fixes, by topic: a figure, a name or a date misread, with the source that shows it. Each fits the
 * headlines `fits` matches (demo-data.ts's HEADLINES), so a correction reads as part of the article it corrects.
 */
interface DemoCorrection {
  fits: RegExp;
  before: string;
  after: string;
  reason: string;
  source: string;
}
const CORRECTIONS: Record<string, DemoCorrection[]> = {
  health: [
    { fits: /early cancer detection|intermittent fasting/i, before: 'The trial enrolled 1,200 patients over two years.', after: 'The trial enrolled 2,100 patients over two years.', reason: 'The registry entry and the paper’s abstract both give 2,100 participants.', source: 'https://trials.example/registry/NCT-0451' },
    { fits: /vaccination rates slip|vaccine/i, before: 'Vaccination rates fell to 70 percent last year.', after: 'Vaccination rates fell to 79 percent last year.', reason: 'The regional health office’s annual table reports 79.2 percent.', source: 'https://health-office.example/tables/2025' },
    { fits: /waiting lists/i, before: 'The waiting list grew to 41,000 people.', after: 'The waiting list grew to 14,000 people.', reason: 'The hospital trust’s monthly figures give 14,012 people waiting.', source: 'https://hospital-trust.example/waiting/2026-10' },
  ],
  climate: [
    { fits: /drought restrictions|snowpack/i, before: 'The reservoir is at 12 percent of capacity.', after: 'The reservoir is at 21 percent of capacity.', reason: 'The water board’s daily level report for that date reads 21 percent.', source: 'https://waterboard.example/levels/2026-10' },
    { fits: /hottest/i, before: 'Average summer temperatures rose 3 degrees since 1990.', after: 'Average summer temperatures rose 1.3 degrees since 1990.', reason: 'The weather service’s station series shows +1.3 °C.', source: 'https://weather.example/series/summer' },
    { fits: /heat pumps/i, before: 'The heat pump cut the heating bill by 60 percent.', after: 'The heat pump cut the heating bill by 36 percent.', reason: 'The household’s meter readings, published with the article, show a 36 percent drop.', source: 'https://energy-trial.example/heat-pumps/readings' },
  ],
  economy: [
    { fits: /unemployment/i, before: 'Unemployment rose to 6.8 percent in September.', after: 'Unemployment rose to 5.8 percent in September.', reason: 'The statistics office’s September release gives 5.8 percent, seasonally adjusted.', source: 'https://stats.example/labour/2026-09' },
    { fits: /budget in numbers/i, before: 'The budget grew by 14 million.', after: 'The budget grew by 41 million.', reason: 'The adopted budget, page 12, shows an increase of 41 million.', source: 'https://treasury.example/budget-2027.pdf' },
    { fits: /minimum wage/i, before: 'The minimum wage rises to 11.40 an hour.', after: 'The minimum wage rises to 12.40 an hour.', reason: 'The government’s order sets the new rate at 12.40.', source: 'https://labour-ministry.example/minimum-wage-2027' },
  ],
  science: [
    { fits: /replication|psychology result/i, before: 'The original study was published in 2019.', after: 'The original study was published in 2011.', reason: 'The journal’s page lists publication in March 2011.', source: 'https://journal.example/articles/2011-0317' },
    { fits: /comet/i, before: 'The comet will pass 4 million kilometres from Earth.', after: 'The comet will pass 40 million kilometres from Earth.', reason: 'The minor planet centre’s orbit gives a closest approach of 0.27 AU, about 40 million km.', source: 'https://minor-planets.example/orbits/c-2026' },
    { fits: /earthquake swarm/i, before: 'The largest quake measured 4.3.', after: 'The largest quake measured 3.4.', reason: 'The geological survey’s event list gives magnitude 3.4.', source: 'https://quakes.example/events/2026-10' },
  ],
  politics: [
    { fits: /council in .* approves|parliament debates/i, before: 'The motion passed 31 to 18.', after: 'The motion passed 31 to 19.', reason: 'The published roll call counts 19 votes against.', source: 'https://assembly.example/votes/2026-118' },
    { fits: /turnout/i, before: 'Turnout was 24 percent.', after: 'Turnout was 28 percent.', reason: 'The returning officer’s declaration gives 28.1 percent.', source: 'https://elections.example/results/2026-local' },
    { fits: /foreign aid/i, before: 'Foreign aid is 7 percent of state spending.', after: 'Foreign aid is 0.7 percent of state spending.', reason: 'The finance ministry’s outturn tables put it at 0.7 percent.', source: 'https://finance.example/outturn/2025' },
  ],
  technology: [
    { fits: /ransomware/i, before: 'The outage lasted six days.', after: 'The outage lasted six hours.', reason: 'The operator’s incident report gives a duration of 6 h 12 min.', source: 'https://status.example/incidents/0923' },
    { fits: /charging points/i, before: 'The town now has 310 public charging points.', after: 'The town now has 130 public charging points.', reason: 'The national charge-point register lists 130.', source: 'https://chargepoints.example/register' },
    { fits: /rural broadband/i, before: 'Only 40 percent of rural homes can get fast broadband.', after: 'Only 54 percent of rural homes can get fast broadband.', reason: 'The telecoms regulator’s coverage report gives 54 percent.', source: 'https://telecoms.example/coverage-2026' },
  ],
  education: [
    { fits: /class sizes/i, before: 'Class sizes average 34 pupils.', after: 'Class sizes average 31 pupils.', reason: 'The school board’s census puts the average at 31.2.', source: 'https://schools.example/census-2026' },
    { fits: /maths teachers/i, before: 'There are 48 unfilled maths posts.', after: 'There are 84 unfilled maths posts.', reason: 'The education authority’s vacancy list shows 84.', source: 'https://schools.example/vacancies-2026' },
    { fits: /school buildings/i, before: 'The survey covered 120 schools.', after: 'The survey covered 210 schools.', reason: 'The survey’s method section lists 210 schools.', source: 'https://schools.example/buildings-survey' },
  ],
  food: [
    { fits: /fishing quotas/i, before: 'The cod quota falls by 40 percent.', after: 'The cod quota falls by 14 percent.', reason: 'The fisheries ministry’s quota table shows a cut of 14 percent.', source: 'https://fisheries.example/quotas/2027' },
    { fits: /olive oil/i, before: 'Olive oil prices rose 150 percent in two years.', after: 'Olive oil prices rose 105 percent in two years.', reason: 'The statistics office’s price index for olive oil shows +105 percent.', source: 'https://stats.example/prices/olive-oil' },
    { fits: /food banks/i, before: 'Food banks handed out 12,000 parcels last month.', after: 'Food banks handed out 21,000 parcels last month.', reason: 'The food bank network’s monthly report counts 21,000 parcels.', source: 'https://foodbanks.example/reports/2026-10' },
  ],
};

/** A correction for an article with no figure of its own above: a quoted expert's name, misspelled. Fits any page. */
const NAME_CORRECTION: DemoCorrection = {
  fits: /./,
  before: 'said Dr. Ana Lindqvist of the regional university.',
  after: 'said Dr. Ana Lindquist of the regional university.',
  reason: 'The university’s staff page spells her name Lindquist.',
  source: 'https://university.example/staff/lindquist',
};

/** The corrections that fit a page: those of its topic whose headline matches, else the quoted name. */
export function correctionsFor(page: { topic: string; title: string }): DemoCorrection[] {
  const fitting = (CORRECTIONS[page.topic] ?? []).filter((c) => c.fits.test(page.title));
  return fitting.length > 0 ? fitting : [NAME_CORRECTION];
}

/** The page a piece of work goes to: for a correction, the first from `start` with a figure of its own to fix. */
function pageFor(kind: WorkKind, pages: DemoPage[], start: number): DemoPage {
  const at = (k: number) => pages[(start + k) % pages.length]!;
  if (kind !== 'correction') return at(0);
  for (let k = 0; k < pages.length; k++) if (correctionsFor(at(k))[0] !== NAME_CORRECTION) return at(k);
  return at(0);
}

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
      const kind = KINDS[(i + made) % KINDS.length]!;
      const page = pageFor(kind, pages, (i * 7 + 3) % pages.length);
      const specialist = notAnAuthor(made * 5 + i, page);
      await playRequest(tick, deps, { pubId: pub.id, ownerId, specialistId: ids.get(specialist)!, page, kind, step, pick: rng.int(1000) });
      made++;
    }
    // Unasked work: contributors volunteer reviews, fact checks and sources; most are accepted.
    for (let i = 0; i < 6; i++) {
      const kind = (['review', 'fact_check', 'source', 'correction'] as const)[i % 4]!;
      const page = pageFor(kind, pages, (i * 11 + 5) % pages.length);
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

async function playRequest(tick: () => Deps, now: Deps, p: Play): Promise<void> {
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
  // A request left held is taken now, on the real clock: taken at the demo's past date it would run out at the
  // first start ("request takes expired") before anyone saw it held.
  if (p.step === 'taken') {
    await takeRequest(now, p.specialistId, requestId);
    return;
  }
  await takeRequest(tick(), p.specialistId, requestId);
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
    const options = correctionsFor(page);
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
