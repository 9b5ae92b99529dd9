import { describe, expect, it } from 'vitest';
import type { PageRecord } from '../../domain/pages/record.js';
import { type Notice, newestFirst, standingOf } from '../../domain/pages/notices.js';
import { formatDate, LANGS, pickLang, wordsFor } from './i18n.js';
import { renderAttribution, STYLES } from './renderer.js';

const contribution = (over: Partial<PageRecord['contributions'][number]> = {}): PageRecord['contributions'][number] => ({
  id: 7,
  page_id: 1,
  role: 'author',
  summary: 'Wrote this page',
  change_from: null,
  change_to: null,
  accepted_at: '2026-03-05T09:00:00.000Z',
  log_seq: null,
  asserted_by: 'contributor',
  consent: 'submitted',
  account_id: 3,
  username: 'ada',
  name: 'Ada Lovelace',
  level: 'expert',
  trust_score: 0.96,
  quote_exact: null,
  quote_prefix: null,
  quote_suffix: null,
  claim: null,
  verdict: null,
  page_hash: null,
  page_changed_at: null,
  correction_missing: null,
  ...over,
});

const record = (contributions = [contribution()], verified = true, notices: Notice[] = []): PageRecord => ({
  page: {
    id: 42,
    publisher_id: 1,
    url: 'https://example.com/a',
    lookup_key: 'example.com/a',
    embed_key: 'example.com/a',
    host: 'example.com',
    title: 'A',
    topic: 'science',
    created_at: '2026-03-01T00:00:00.000Z',
    updated_at: '2026-03-01T00:00:00.000Z',
    content_hash: null,
    content_seen_at: null,
    content_changed_at: null,
    publisher_slug: 'ex',
    publisher_name: 'Example',
  },
  verified,
  contributions,
  notices: newestFirst(notices),
  standing: standingOf(notices),
});

const retraction: Notice = {
  id: 1,
  type: 'retraction',
  notice_date: '2026-11-20',
  reason: 'The data were <fabricated>.',
  notice_url: 'https://example.com/notices/1',
  created_at: '2026-11-20T10:00:00.000Z',
  log_seq: 9,
};

const site = 'https://credence.test';
const correction = contribution({ id: 8, role: 'correction', name: 'Ida', username: 'ida', change_from: '70%', change_to: '79%' });

describe('renderAttribution', () => {
  it.each(STYLES.flatMap((style) => LANGS.map((lang) => [style, lang] as const)))('renders %s in %s', (style, lang) => {
    const html = renderAttribution({ siteUrl: site, record: record([contribution(), correction]), style, lang });
    expect(html).toContain(`lang="${lang}"`);
    expect(html).toContain(`credence--${style}`);
    expect(html).toContain(`${site}/records/42`);
    if (style !== 'badge') expect(html).toContain('Ada Lovelace');
  });

  it('full: role, linked name, date and a correction’s from and to, in the reader’s language', () => {
    const html = renderAttribution({ siteUrl: site, record: record([contribution(), correction]), style: 'full', lang: 'de' });
    expect(html).toContain('<span class="role">Korrektur</span><a href="https://credence.test/contributors/ida">Ida</a>');
    expect(html).toContain('<time datetime="2026-03-05">5. März 2026</time>');
    expect(html).toContain('<del>70%</del>');
    expect(html).toContain('<ins>79%</ins>');
    expect(html).toContain(`${site}/proofs/8`);
  });

  it('full: a short note under work done on an older version of the page, in each language', () => {
    const changed = record([
      contribution({ id: 1, role: 'review', page_changed_at: '2026-04-02T08:00:00.000Z' }),
      contribution({ id: 2, role: 'correction', change_from: 'a', change_to: 'b', page_changed_at: '2026-04-02T08:00:00.000Z', correction_missing: 1 }),
      contribution({ id: 3, role: 'edit', page_changed_at: '2026-04-02T08:00:00.000Z' }),
      contribution({ id: 4, role: 'fact_check' }),
    ]);
    for (const lang of LANGS) {
      const out = renderAttribution({ siteUrl: 'https://s.test', record: changed, style: 'full', lang });
      const notes = [...out.matchAll(/<span class="drift" role="note">(.*?)<\/span>/g)].map((m) => m[1]!);
      // The review and the correction, not the edit (edits are not reviews of a version) nor current work.
      expect(notes, lang).toHaveLength(2);
      expect(notes[0]).toContain(formatDate('2026-04-02T08:00:00.000Z', lang));
    }
    const en = renderAttribution({ siteUrl: 'https://s.test', record: changed, style: 'full', lang: 'en' });
    expect(en).toContain('The page has changed since this work, on <time datetime="2026-04-02">2 Apr 2026</time>.');
    expect(en).toContain('The corrected text no longer appears on the page.');
    expect(renderAttribution({ siteUrl: 'https://s.test', record: changed, style: 'full', lang: 'de' })).toContain('Die Seite wurde danach geändert, am');
  });

  it('full: the log link goes to the proof page’s log section, not to raw proof JSON', () => {
    const logged = contribution({ id: 8, log_seq: 10 });
    const html = renderAttribution({ siteUrl: site, record: record([logged]), style: 'full', lang: 'en' });
    expect(html).toContain(`<a href="${site}/proofs/8#log">In the public log</a>`);
    expect(html).not.toContain('/v1/log/proof/inclusion');
  });

  it('compact: one line naming each role once', () => {
    const html = renderAttribution({ siteUrl: site, record: record([contribution(), correction]), style: 'compact', lang: 'fr' });
    expect(html).toContain('Écrit par Ada Lovelace · Corrigé par Ida');
    expect(html.match(/<p /g)?.length).toBe(1);
  });

  it('escapes every value', () => {
    const evil = contribution({ name: '<img src=x onerror=alert(1)>', username: 'a"b', change_from: '</del><script>', role: 'correction', change_to: '"&' });
    for (const style of STYLES) {
      const html = renderAttribution({ siteUrl: site, record: record([evil]), style, lang: 'en' });
      expect(html).not.toContain('<img');
      expect(html).not.toContain('<script');
      if (style !== 'badge') expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
    const full = renderAttribution({ siteUrl: site, record: record([evil]), style: 'full', lang: 'en' });
    expect(full).toContain('href="https://credence.test/contributors/a%22b"');
    expect(full).toContain('<ins>&quot;&amp;</ins>');
  });

  it('renders nothing without accepted work or off a verified site', () => {
    expect(renderAttribution({ siteUrl: site, record: record([]), style: 'full', lang: 'en' })).toBe('');
    expect(renderAttribution({ siteUrl: site, record: record([contribution()], false), style: 'badge', lang: 'en' })).toBe('');
  });
});

describe('notices', () => {
  it.each(STYLES.flatMap((style) => LANGS.map((lang) => [style, lang] as const)))('a retracted page leads with it in %s, %s', (style, lang) => {
    const html = renderAttribution({ siteUrl: site, record: record([contribution()], true, [retraction]), style, lang });
    const label = wordsFor(lang).standings.retracted.label;
    const text = html.replace(/<link[^>]*>/, '').replace(/<[^>]+>/g, '').replace(/^[\s⚠]+/, '');
    expect(text.startsWith(label)).toBe(true);
    expect(html).not.toContain(wordsFor(lang).verified);
    if (style === 'full') {
      expect(html).toContain('The data were &lt;fabricated&gt;.');
      expect(html).toContain('href="https://example.com/notices/1"');
      // The work stays on the record.
      expect(html).toContain('/proofs/7');
    }
  });

  it('a reinstatement brings the page back to good standing, every notice kept', () => {
    const back: Notice = { ...retraction, id: 2, type: 'reinstatement', notice_date: '2026-11-22', reason: 'Investigation found no error.', notice_url: null };
    const r = record([contribution()], true, [retraction, back]);
    expect(r.standing).toBe('current');
    expect(r.notices.map((n) => n.id)).toEqual([2, 1]);
    const html = renderAttribution({ siteUrl: site, record: r, style: 'full', lang: 'en' });
    expect(html).not.toContain('class="standing"');
    expect(html).toContain('Reinstatement');
    expect(html).toContain('Retraction');
    expect(renderAttribution({ siteUrl: site, record: r, style: 'badge', lang: 'en' })).toContain('Verified record');
  });

  it('standing: the newest notice that sets one; clarifications leave it as it was', () => {
    const n = (id: number, type: Notice['type'], notice_date: string): Notice => ({ ...retraction, id, type, notice_date });
    expect(standingOf([])).toBe('current');
    expect(standingOf([n(1, 'clarification', '2026-01-01')])).toBe('current');
    expect(standingOf([n(1, 'expression_of_concern', '2026-01-01'), n(2, 'addendum', '2026-02-01')])).toBe('expression_of_concern');
    expect(standingOf([n(1, 'expression_of_concern', '2026-01-01'), n(2, 'retraction', '2026-02-01')])).toBe('retracted');
    // By the notice's own date, not the order they were given in; the same date: the later one.
    expect(standingOf([n(2, 'retraction', '2026-01-01'), n(1, 'reinstatement', '2026-02-01')])).toBe('current');
    expect(standingOf([n(1, 'reinstatement', '2026-02-01'), n(2, 'withdrawal', '2026-02-01')])).toBe('withdrawn');
  });

  it('a page with notices and no accepted work still shows them', () => {
    const html = renderAttribution({ siteUrl: site, record: record([], true, [retraction]), style: 'full', lang: 'de' });
    expect(html).toContain('Widerrufen');
    expect(html).not.toContain('<ul></ul>');
  });
});

describe('languages', () => {
  it('picks a supported language or English', () => {
    expect(pickLang('de-AT')).toBe('de');
    expect(pickLang('ES')).toBe('es');
    expect(pickLang('pt-BR')).toBe('en');
    expect(pickLang(undefined)).toBe('en');
    expect(pickLang('')).toBe('en');
    expect(pickLang(null)).toBe('en');
    expect(pickLang('fr')).toBe('fr');
    expect(pickLang(' de_CH ')).toBe('de');
  });
  it('formats dates per language, in the one format the site writes', () => {
    expect(formatDate('2026-11-21T10:00:00.000Z', 'en')).toBe('21 Nov 2026');
    expect(formatDate('2026-11-21', 'en')).toBe('21 Nov 2026');
    expect(formatDate('2026-11-21T10:00:00.000Z', 'de')).toBe('21. Nov. 2026');
    expect(formatDate('2026-11-21T10:00:00.000Z', 'fr')).toBe('21 nov. 2026');
    expect(formatDate('2026-11-21T10:00:00.000Z', 'es')).toBe('21 nov 2026');
  });
});
