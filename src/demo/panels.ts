// The demo's expert panel statements: nine questions on the demo topics, several revised once or twice, issued
// through the panel service at the dates they were "issued" (so events, versions and panellists' levels are as after
// real use). Panellists who have demo accounts are linked to them; the others are outside experts. Places are the
// demo's invented ones. Safe to run again: a statement already at (or past) its demo version is left alone.
import type { Deps } from '../domain/deps.js';
import type { StatementContentInput } from '../domain/panels/panel.schema.js';
import { createStatement, issueVersion } from '../domain/panels/panel.service.js';
import { findStatementBySlug } from '../domain/panels/panel.store.js';

export interface DemoVersion {
  /** When the version was issued: ISO 8601 UTC. */
  issuedAt: string;
  content: StatementContentInput;
}

export interface DemoStatement {
  id: string;
  /** Version 1 first. */
  versions: DemoVersion[];
}

type Panellist = StatementContentInput['panel'][number];

const p = (name: string, role: string, vote: Panellist['vote'], username?: string): Panellist =>
  username ? { name, role, vote, username } : { name, role, vote };

/** A statement's versions, each written as what changed since the one before. */
function statement(id: string, first: DemoVersion, ...later: { issuedAt: string; changes: Partial<StatementContentInput> }[]): DemoStatement {
  const versions = [first];
  for (const next of later) {
    versions.push({ issuedAt: next.issuedAt, content: { ...versions[versions.length - 1]!.content, ...next.changes } });
  }
  return { id, versions };
}

export const DEMO_PANELS: DemoStatement[] = [
  statement(
    'vitamin-d-respiratory-infections',
    {
      issuedAt: '2026-02-10T10:00:00.000Z',
      content: {
        topic: 'health',
        question: 'Does taking a daily vitamin D supplement prevent colds, flu and other acute respiratory infections in adults?',
        answer:
          'Possibly, but only a little, and mainly in people whose vitamin D levels are low to begin with. Pooled trials suggest a small reduction in the share of people with at least one infection; in adults with adequate levels the effect is too small to measure. Large doses given monthly or less often do not appear to help.',
        certainty: 'low-moderate',
        vote: { agree: 5, dissent: 1 },
        panel: [
          p('Dr. Sana Qureshi', 'chair', 'agree', 'sana-qureshi'),
          p('Dr. Priya Raman', 'member', 'agree', 'priya-raman'),
          p('Dr. Noor Haddad', 'member', 'agree', 'noor-haddad'),
          p('Aisha Rahman, RD', 'member', 'agree', 'aisha-rahman'),
          p('Prof. Hugo Lindahl', 'methodologist', 'agree'),
          p('Dr. Miriam Achterberg', 'member', 'dissent'),
        ],
        revisit_by: '2026-08-31',
        reopen_triggers: ['new_study', 'source_corrected'],
      },
    },
    {
      issuedAt: '2026-07-14T09:30:00.000Z',
      changes: {
        answer:
          'Only for people who are deficient. A trial of more than 6,000 adults published this spring found no reduction in infections overall; pooled with earlier trials, the small benefit is confined to people who start with levels below 25 nmol/L. Routine supplementation of adults with adequate levels to prevent infections is not supported. Existing advice on winter supplements for bone health is unaffected.',
        certainty: 'moderate',
        vote: { agree: 6, dissent: 0 },
        panel: [
          p('Dr. Sana Qureshi', 'chair', 'agree', 'sana-qureshi'),
          p('Dr. Priya Raman', 'member', 'agree', 'priya-raman'),
          p('Dr. Noor Haddad', 'member', 'agree', 'noor-haddad'),
          p('Aisha Rahman, RD', 'member', 'agree', 'aisha-rahman'),
          p('Prof. Hugo Lindahl', 'methodologist', 'agree'),
          p('Dr. Miriam Achterberg', 'member', 'agree'),
        ],
        revisit_by: '2027-07-01',
        reopen_triggers: ['new_study'],
      },
    },
  ),

  statement(
    'measles-early-mmr-dose-outbreaks',
    {
      issuedAt: '2026-03-02T08:00:00.000Z',
      content: {
        topic: 'health',
        question: 'During the Port Alder measles outbreak, should infants aged 6 to 11 months be offered an early dose of the MMR vaccine?',
        answer:
          'Yes, in Port Alder while the outbreak alert is in force. An early dose gives substantial short-term protection and is safe at this age. Because the immune response to a dose given before the first birthday is weaker, it does not replace either of the two routine doses, which should still be given on schedule.',
        certainty: 'moderate',
        vote: { agree: 4, dissent: 0 },
        panel: [
          p('Dr. Amara Okafor', 'chair', 'agree', 'amara-okafor'),
          p('Beatriz Santos, RN', 'member', 'agree', 'beatriz-santos'),
          p('Dr. Yusuf Demir', 'member', 'agree'),
          p('Prof. Elisabeth Brandt', 'methodologist', 'agree'),
        ],
        revisit_by: '2026-06-30',
        reopen_triggers: ['alert_extended', 'new_study'],
      },
    },
    {
      issuedAt: '2026-04-20T14:00:00.000Z',
      changes: {
        question:
          'During the measles outbreak in Port Alder, Eastvale and Riverside County, should infants aged 6 to 11 months be offered an early dose of the MMR vaccine?',
        answer:
          'Yes, in Port Alder, Eastvale and Riverside County, the areas now covered by the extended outbreak alert. An early dose gives substantial short-term protection and is safe at this age. It does not replace either of the two routine doses, which should still be given on schedule; clinics should record early doses separately so that they are not counted as the first routine dose.',
        revisit_by: '2026-09-30',
      },
    },
    {
      issuedAt: '2026-10-05T11:00:00.000Z',
      changes: {
        answer:
          'No longer as a routine offer: the outbreak alert ended on 28 September after 42 days without a new case. Infants should follow the routine schedule. An early dose is still advisable before travel to any area with an active outbreak.',
        vote: { agree: 3, dissent: 1 },
        panel: [
          p('Dr. Amara Okafor', 'chair', 'agree', 'amara-okafor'),
          p('Beatriz Santos, RN', 'member', 'agree', 'beatriz-santos'),
          p('Dr. Yusuf Demir', 'member', 'dissent'),
          p('Prof. Elisabeth Brandt', 'methodologist', 'agree'),
        ],
        revisit_by: '2027-03-31',
        reopen_triggers: ['alert_extended'],
      },
    },
  ),

  statement(
    'heat-alert-threshold-older-adults',
    {
      issuedAt: '2026-05-18T07:45:00.000Z',
      content: {
        topic: 'climate',
        question: 'Should the heat-health alert for the Lakes district start at a lower temperature for people aged 75 and over?',
        answer:
          'Yes. Local mortality records for 2015 to 2025 show deaths among people aged 75 and over rising from a daily mean temperature of about 24 °C, two degrees below the current alert threshold. An earlier alert for care homes and home-care services would cover the days on which most of the excess deaths occurred.',
        certainty: 'low-moderate',
        vote: { agree: 4, dissent: 1 },
        panel: [
          p('Clara Jensen', 'chair', 'agree', 'clara-jensen'),
          p('Dr. Amara Okafor', 'member', 'agree', 'amara-okafor'),
          p('Prof. Tobias Lindqvist', 'member', 'agree'),
          p('Dr. Asha Nair', 'member', 'agree'),
          p('Dr. Martin Keane', 'member', 'dissent'),
        ],
        revisit_by: '2026-10-31',
        reopen_triggers: ['new_study', 'alert_extended'],
      },
    },
    {
      issuedAt: '2026-08-03T06:30:00.000Z',
      changes: {
        answer:
          'Yes. Records for the Lakes district and, since the alert area was extended in July, for Kingsbridge show deaths among people aged 75 and over rising from a daily mean temperature of about 24 °C. The July heatwave added 38 days of data and narrowed the estimate. An alert at 24 °C for care homes and home-care services is recommended for both areas.',
        certainty: 'moderate',
        vote: { agree: 5, dissent: 0 },
        panel: [
          p('Clara Jensen', 'chair', 'agree', 'clara-jensen'),
          p('Dr. Amara Okafor', 'member', 'agree', 'amara-okafor'),
          p('Prof. Tobias Lindqvist', 'member', 'agree'),
          p('Dr. Asha Nair', 'member', 'agree'),
          p('Dr. Martin Keane', 'member', 'agree'),
        ],
        revisit_by: '2027-04-30',
      },
    },
  ),

  statement(
    'sea-level-rise-port-alder-2050',
    {
      issuedAt: '2026-04-09T12:00:00.000Z',
      content: {
        topic: 'climate',
        question: 'How much higher will mean sea level be at Port Alder in 2050 than it was in 2000?',
        answer:
          'Between 20 and 35 centimetres, most likely about 27. The range to 2050 depends little on future emissions because much of the rise is already committed; emissions matter far more for the rise after 2050. The local figure is above the global projection because the land at Port Alder is slowly sinking, by about 1 mm a year at the harbour gauge.',
        certainty: 'high',
        vote: { agree: 4, dissent: 0 },
        panel: [
          p('Dr. Elena Rossi', 'chair', 'agree', 'elena-rossi'),
          p('Dr. Ingrid Halvorsen', 'member', 'agree', 'ingrid-halvorsen'),
          p('Prof. Henrik Dahl', 'member', 'agree'),
          p('Dr. Lucia Ferrante', 'methodologist', 'agree'),
        ],
        revisit_by: '2027-04-30',
        reopen_triggers: ['new_study', 'source_corrected'],
      },
    },
    {
      issuedAt: '2026-09-22T10:15:00.000Z',
      changes: {
        answer:
          'Between 18 and 32 centimetres, most likely about 25. The harbour authority has corrected a datum shift in the Port Alder tide-gauge record: the land is sinking by about 0.6 mm a year, not 1 mm, which lowers the local estimate by 2 centimetres. The range to 2050 still depends little on future emissions; emissions matter far more for the rise after 2050.',
        revisit_by: '2027-09-30',
      },
    },
  ),

  statement(
    'minimum-wage-youth-employment',
    {
      issuedAt: '2026-06-08T09:00:00.000Z',
      content: {
        topic: 'economy',
        question: 'Did April’s minimum-wage increase reduce employment among workers aged 16 to 24?',
        answer:
          'No reduction in employment can be detected in the first two months. Payroll data show employment of 16- to 24-year-olds in hospitality and retail, the sectors most affected, moving in line with comparable older workers. Average weekly hours of young hospitality workers fell by about 2%, which may be an early sign of adjustment or may be noise.',
        certainty: 'low',
        vote: { agree: 3, dissent: 1 },
        panel: [
          p('Victor Lindgren', 'chair', 'agree', 'victor-lindgren'),
          p('Prof. Adaeze Nwosu', 'member', 'agree'),
          p('Dr. Jakob Reinholt', 'member', 'dissent'),
          p('Dr. Hannah Kowalczyk', 'methodologist', 'agree'),
        ],
        revisit_by: '2026-12-15',
        reopen_triggers: ['new_study', 'source_corrected'],
      },
    },
    {
      issuedAt: '2026-09-29T13:00:00.000Z',
      changes: {
        answer:
          'No. With six months of payroll data there is still no detectable effect on the employment of 16- to 24-year-olds. The statistics office has revised the hours series, which had counted some second jobs twice in April: young hospitality workers’ hours did not fall. Earnings of the lowest-paid young workers rose by about 7%.',
        certainty: 'low-moderate',
        vote: { agree: 4, dissent: 0 },
        panel: [
          p('Victor Lindgren', 'chair', 'agree', 'victor-lindgren'),
          p('Prof. Adaeze Nwosu', 'member', 'agree'),
          p('Dr. Jakob Reinholt', 'member', 'agree'),
          p('Dr. Hannah Kowalczyk', 'methodologist', 'agree'),
        ],
        revisit_by: '2027-04-30',
      },
    },
  ),

  statement('rent-caps-rental-supply', {
    issuedAt: '2026-07-20T10:00:00.000Z',
    content: {
      topic: 'economy',
      question: 'Would capping rent increases on existing tenancies at inflation reduce the number of homes available to rent in Kingsbridge?',
      answer:
        'Probably, modestly and over several years. Studies of comparable caps elsewhere find that some landlords sell or convert capped homes, shrinking the rental stock by around 5 to 15% over five to ten years, while sitting tenants gain stability and lower rents. The size of the effect depends heavily on exemptions for new buildings and on whether the cap also applies between tenancies.',
      certainty: 'moderate',
      vote: { agree: 4, dissent: 1 },
      panel: [
        p('Prof. Adaeze Nwosu', 'chair', 'agree'),
        p('Victor Lindgren', 'member', 'agree', 'victor-lindgren'),
        p('Dr. Samira Haddou', 'member', 'dissent'),
        p('Dr. Jakob Reinholt', 'member', 'agree'),
        p('Dr. Hannah Kowalczyk', 'methodologist', 'agree'),
      ],
      revisit_by: '2027-07-31',
      reopen_triggers: ['new_study'],
    },
  }),

  statement('microplastics-tap-water-health', {
    issuedAt: '2026-01-27T15:00:00.000Z',
    content: {
      topic: 'science',
      question: 'Do the microplastics found in tap water pose a measurable risk to health?',
      answer:
        'No risk to health has been shown at the levels measured in tap water, but the evidence is thin. Most particles found are larger than those thought able to cross the gut wall, and methods for counting the smallest particles are not yet reliable or comparable between laboratories. Effects of nanoplastics cannot be ruled out; the panel asks for standardised measurement before firmer conclusions are drawn.',
      certainty: 'very-low',
      vote: { agree: 4, dissent: 0 },
      panel: [
        p('Dr. Noor Haddad', 'chair', 'agree', 'noor-haddad'),
        p('Dr. Sana Qureshi', 'member', 'agree', 'sana-qureshi'),
        p('Prof. Ravi Menon', 'member', 'agree'),
        p('Dr. Eleanor Whitcombe', 'member', 'agree'),
        // Recused: consults for a water utility.
        p('Dr. Kenji Morita', 'member', 'abstain'),
      ],
      revisit_by: '2027-01-31',
      reopen_triggers: ['new_study'],
    },
  }),

  statement('ai-text-detectors-coursework', {
    issuedAt: '2026-09-08T08:30:00.000Z',
    content: {
      topic: 'technology',
      question: 'Are current AI-text detectors accurate enough to be used as evidence of cheating in school coursework?',
      answer:
        'No. In independent tests, detectors wrongly flag between 1 and 10 in every 100 essays written without AI help, more often for students writing in a second language, and light paraphrasing defeats them. A detector score may prompt a conversation with the student; it should not be the basis of a penalty.',
      certainty: 'moderate',
      vote: { agree: 4, dissent: 1 },
      panel: [
        p('Jonas Weber', 'chair', 'agree', 'jonas-weber'),
        p('Grace Whitfield', 'member', 'agree', 'grace-whitfield'),
        p('Dr. Leila Farahani', 'member', 'agree', 'leila-farahani'),
        p('Prof. Imran Siddiqui', 'methodologist', 'agree'),
        p('Ethan Cole', 'member', 'dissent', 'ethan-cole'),
      ],
      revisit_by: '2027-03-31',
      reopen_triggers: ['new_study'],
    },
  }),

  statement(
    'earthquake-swarm-northmoor',
    {
      issuedAt: '2026-10-12T16:00:00.000Z',
      content: {
        topic: 'science',
        question: 'Does the earthquake swarm under Northmoor mean a larger earthquake is likely in the coming months?',
        answer:
          'A larger earthquake is possible but not likely. Swarms of this kind in the region have preceded an earthquake of magnitude 5 or more in fewer than 1 in 20 cases. The chance of a magnitude 5 or larger within 90 days is estimated at 2 to 4%: several times the usual background rate, but still low.',
        certainty: 'low-moderate',
        vote: { agree: 4, dissent: 0 },
        panel: [
          p('Dr. Nikolai Petrov', 'chair', 'agree', 'nikolai-petrov'),
          p('Dr. Astrid Solberg', 'member', 'agree'),
          p('Prof. Tomasz Wierzbicki', 'member', 'agree'),
          p('Dr. Lena Hofmann', 'methodologist', 'agree'),
        ],
        revisit_by: '2027-01-12',
        reopen_triggers: ['new_study', 'alert_extended'],
      },
    },
    {
      issuedAt: '2026-11-16T09:00:00.000Z',
      changes: {
        answer:
          'Still not likely, though the chance has risen. The swarm has moved about 4 km east, and on 14 November the alert area was extended to Calder Springs. The chance of a magnitude 5 or larger within 90 days is now estimated at 3 to 6%. Building checks already advised for Northmoor now apply in Calder Springs too.',
        vote: { agree: 3, dissent: 1 },
        panel: [
          p('Dr. Nikolai Petrov', 'chair', 'agree', 'nikolai-petrov'),
          p('Dr. Astrid Solberg', 'member', 'agree'),
          p('Prof. Tomasz Wierzbicki', 'member', 'dissent'),
          p('Dr. Lena Hofmann', 'methodologist', 'agree'),
        ],
        revisit_by: '2027-02-16',
      },
    },
  ),
];

/** Services as if called at `iso`: each version carries the date it was issued, not the seeding day. */
const at = (deps: Deps, iso: string): Deps => ({ ...deps, clock: { now: () => new Date(iso) } });

/**
 * Issue every demo statement up to its last demo version. Needs the demo accounts (seedDemo makes them first):
 * linked panellists must exist.
 */
export async function seedDemoPanels(deps: Deps, log: (line: string) => void): Promise<void> {
  let issued = 0;
  for (const s of DEMO_PANELS) {
    const have = (await findStatementBySlug(deps.db, s.id))?.current_version ?? 0;
    for (let i = have; i < s.versions.length; i++) {
      const v = s.versions[i]!;
      const when = at(deps, v.issuedAt);
      if (i === 0) await createStatement(when, { id: s.id, ...v.content });
      else await issueVersion(when, s.id, { version: i + 1, ...v.content });
      issued++;
    }
  }
  const versions = DEMO_PANELS.reduce((n, s) => n + s.versions.length, 0);
  log(
    issued === 0
      ? `demo panels already present: ${DEMO_PANELS.length} statements`
      : `demo panels ready: ${DEMO_PANELS.length} statements, ${versions} versions (${issued} issued now)`,
  );
}
