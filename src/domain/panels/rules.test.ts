import { describe, expect, it } from 'vitest';
import { validateStatementFile } from '../../surfaces/panel-file.js';
import type { StatementContentInput } from './panel.schema.js';
import { changesBetween, contradictions, normaliseContent, type StatementContent } from './rules.js';

const input = (over: Partial<StatementContentInput> = {}): StatementContentInput => ({
  topic: 'health',
  question: 'Does it work?',
  answer: 'Somewhat.',
  certainty: 'low-moderate',
  vote: { agree: 2, dissent: 1 },
  panel: [
    { name: 'Dr. A', role: 'chair', vote: 'agree', username: 'dr-a' },
    { name: 'Dr. B', role: 'member', vote: 'agree' },
    { name: 'Dr. C', role: 'member', vote: 'dissent' },
  ],
  revisit_by: '2027-06-01',
  reopen_triggers: ['new_study'],
  ...over,
});

const TODAY = '2026-11-21';

describe('normaliseContent', () => {
  it('trims text, normalises the topic and lower-cases usernames', () => {
    const c = normaliseContent(
      input({
        topic: ' Public  Health ',
        question: ' Q? ',
        panel: [{ name: ' Dr. A ', role: ' chair ', vote: 'agree', username: 'Dr-A' }],
      }),
    );
    expect(c.topic).toBe('public-health');
    expect(c.question).toBe('Q?');
    expect(c.panel).toEqual([{ name: 'Dr. A', role: 'chair', vote: 'agree', username: 'dr-a' }]);
  });

  it('leaves no username key on an unlinked panellist', () => {
    expect(Object.keys(normaliseContent(input()).panel[1]!)).toEqual(['name', 'role', 'vote']);
  });
});

describe('contradictions', () => {
  it('finds none in a consistent statement', () => {
    expect(contradictions(normaliseContent(input()), TODAY)).toEqual([]);
  });

  it('holds the vote totals to the panellists’ votes, abstentions counting for neither', () => {
    expect(contradictions(normaliseContent(input({ vote: { agree: 3, dissent: 1 } })), TODAY)).toEqual([
      { field: 'vote.agree', message: 'is 3 but 2 panellists voted agree' },
    ]);
    expect(contradictions(normaliseContent(input({ vote: { agree: 2, dissent: 0 } })), TODAY)).toEqual([
      { field: 'vote.dissent', message: 'is 0 but 1 panellist voted dissent' },
    ]);
    const abstaining = input({
      panel: [
        { name: 'Dr. A', role: 'chair', vote: 'abstain' },
        { name: 'Dr. B', role: 'member', vote: 'agree' },
      ],
      vote: { agree: 1, dissent: 0 },
    });
    expect(contradictions(normaliseContent(abstaining), TODAY)).toEqual([]);
  });

  it('refuses one account twice, naming the later entry', () => {
    const c = normaliseContent(
      input({
        panel: [
          { name: 'Dr. A', role: 'chair', vote: 'agree', username: 'dr-a' },
          { name: 'Dr. B', role: 'member', vote: 'agree' },
          { name: 'Dr. A', role: 'member', vote: 'dissent', username: 'DR-A' },
        ],
      }),
    );
    expect(contradictions(c, TODAY)).toEqual([{ field: 'panel.2.username', message: 'names the same account as panel.0' }]);
  });

  it('wants the revisit date after the issue date', () => {
    expect(contradictions(normaliseContent(input({ revisit_by: TODAY })), TODAY)).toEqual([
      { field: 'revisit_by', message: `must be after the issue date (${TODAY})` },
    ]);
    expect(contradictions(normaliseContent(input({ revisit_by: '2026-11-22' })), TODAY)).toEqual([]);
  });

  it('refuses blank text after trimming', () => {
    const c = normaliseContent(input({ answer: '  ', topic: ' ', panel: [{ name: 'Dr. A', role: ' ', vote: 'agree' }], vote: { agree: 1, dissent: 0 } }));
    expect(contradictions(c, TODAY).map((d) => d.field)).toEqual(['topic', 'answer', 'panel.0.role']);
  });
});

describe('changesBetween', () => {
  const cited = (content: StatementContent, sources: string[] = []) => ({ content, sources });

  it('lists every content field from null for a first version', () => {
    const c = normaliseContent(input());
    const changes = changesBetween(null, cited(c));
    expect(Object.keys(changes)).toEqual(['topic', 'question', 'answer', 'certainty', 'vote', 'panel', 'revisit_by', 'reopen_triggers', 'sources']);
    expect(changes.vote).toEqual({ from: null, to: { agree: 2, dissent: 1 } });
  });

  it('lists exactly the fields that differ, each from and to', () => {
    const a = normaliseContent(input());
    const b = normaliseContent(input({ certainty: 'moderate', reopen_triggers: ['new_study', 'alert_extended'] }));
    expect(changesBetween(cited(a), cited(b))).toEqual({
      certainty: { from: 'low-moderate', to: 'moderate' },
      reopen_triggers: { from: ['new_study'], to: ['new_study', 'alert_extended'] },
    });
  });

  it('sees a panellist’s changed vote, a reordered panel and a new link as panel changes', () => {
    const a = normaliseContent(input());
    const voted = input();
    voted.panel[1] = { ...voted.panel[1]!, vote: 'dissent' };
    expect(Object.keys(changesBetween(cited(a), cited(normaliseContent({ ...voted, vote: { agree: 1, dissent: 2 } }))))).toEqual(['vote', 'panel']);
    expect(Object.keys(changesBetween(cited(a), cited(normaliseContent(input({ panel: [...input().panel].reverse() })))))).toEqual(['panel']);
    const linked = input();
    linked.panel[1] = { ...linked.panel[1]!, username: 'dr-b' };
    expect(Object.keys(changesBetween(cited(a), cited(normaliseContent(linked))))).toEqual(['panel']);
  });

  it('lists the cited pages when they differ, in order, and only then', () => {
    const a = normaliseContent(input());
    const one = cited(a, ['https://a.example/study']);
    expect(changesBetween(one, cited(a, ['https://a.example/study', 'https://b.example/trial']))).toEqual({
      sources: { from: ['https://a.example/study'], to: ['https://a.example/study', 'https://b.example/trial'] },
    });
    expect(Object.keys(changesBetween(cited(a, ['x', 'y']), cited(a, ['y', 'x'])))).toEqual(['sources']);
    expect(changesBetween(one, cited(a, ['https://a.example/study']))).toEqual({});
  });

  it('finds nothing between a version and the same content written differently', () => {
    const a = normaliseContent(input());
    expect(changesBetween(cited(a), cited(normaliseContent(input({ topic: 'Health ', answer: ' Somewhat. ' }))))).toEqual({});
  });
});

describe('validateStatementFile', () => {
  it('takes a statement file, version optional', () => {
    const r = validateStatementFile({ id: 'does-it-work', ...input() });
    expect(r.ok).toBe(true);
    expect(validateStatementFile({ id: 'does-it-work', version: 3, ...input() }).ok).toBe(true);
  });

  it('names every problem of a bad file', () => {
    const r = validateStatementFile({ id: 'Does It Work', ...input(), certainty: 'sure', extra: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.details).toEqual(
      expect.arrayContaining([
        { field: 'id', message: expect.stringContaining('lowercase letters, digits or hyphens') },
        { field: 'certainty', message: 'must be one of: high, moderate, low-moderate, low, very-low' },
        { field: 'extra', message: 'is not a known field' },
      ]),
    );
  });
});
