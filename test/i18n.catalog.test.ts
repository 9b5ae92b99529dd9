// The catalog (src/i18n/catalogs) is complete and sound in every language; its XLIFF 2.0 export and import give it back
// unchanged and refuse a broken file whole; the extension's compiled messages say what the library says; and the
// embed, rendered in each language, shows no English message outside the English catalog.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { argumentNames, catalogOf, LANGS, type MessageId, t } from '../src/i18n/catalog.js';
import { compileCatalog } from '../src/i18n/compile.js';
import { exportXliff, I18nError, importCatalogs, readXliff } from '../src/ops/i18n-xliff.js';
import type { PageRecord } from '../src/domain/pages/record.js';
import { newestFirst, type Notice, standingOf } from '../src/domain/pages/notices.js';
import { renderAttribution, STYLES } from '../src/surfaces/embed/renderer.js';

const english = catalogOf('en');
const names = (source: string) => [...argumentNames(parse(source, { requiresOtherClause: true }))].sort();
const OTHERS = LANGS.filter((l) => l !== 'en');

describe('the catalogs', () => {
  it.each(LANGS)('%s has every id of English and no other, each message parses with the same placeholders', (lang) => {
    const c = catalogOf(lang);
    expect(Object.keys(c).sort()).toEqual(Object.keys(english).sort());
    for (const [id, source] of Object.entries(c)) {
      expect(source.trim(), id).not.toBe('');
      expect(names(source), id).toEqual(names(english[id]!));
    }
  });

  it.each(LANGS)('%s fills every placeholder: no brace or argument name is left in a formatted message', (lang) => {
    for (const id of Object.keys(english)) {
      const values = Object.fromEntries(names(english[id]!).map((n) => [n, n === 'count' || n === 'hours' || n === 'cancelled' || n === 'seq' ? 2 : `«${n}»`]));
      const out = t(lang, id as MessageId, values);
      expect(out, id).not.toMatch(/[{}]/);
    }
  });

  it('plurals follow each language’s rules through Intl', () => {
    expect(t('en', 'extension.contributions', { count: 1 })).toBe('1 accepted contribution');
    expect(t('en', 'extension.contributions', { count: 1200 })).toBe('1,200 accepted contributions');
    expect(t('fr', 'mail.several', { count: 2, subject: 'S' })).toBe('2 nouvelles : S');
    expect(t('de', 'mail.confirm_body', { username: 'u', hours: 72 })).toContain('72 Stunden lang');
    expect(t('es', 'mail.confirm_body', { username: 'u', hours: 1 })).toContain('durante una hora');
  });
});

describe('XLIFF 2.0', () => {
  it.each(OTHERS)('exports %s and reads it back unchanged', async (lang) => {
    const doc = await exportXliff(lang);
    expect(doc).toContain('urn:oasis:names:tc:xliff:document:2.0');
    expect(doc).toContain(`trgLang="${lang}"`);
    const back = await readXliff(doc);
    expect(back.lang).toBe(lang);
    expect(back.messages).toEqual(catalogOf(lang));
  });

  it('imports into a folder as the catalog’s JSON, and a broken file changes nothing', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'i18n-'));
    const files: string[] = [];
    for (const lang of OTHERS) {
      const file = path.join(dir, `${lang}.xlf`);
      await fs.writeFile(file, await exportXliff(lang));
      files.push(file);
    }
    expect(await importCatalogs(files, dir)).toEqual(OTHERS);
    for (const lang of OTHERS) expect(JSON.parse(await fs.readFile(path.join(dir, `${lang}.json`), 'utf8'))).toEqual(catalogOf(lang));

    const de = await exportXliff('de');
    const lost = de.replace(/\{count, plural, one \{# angenommener Beitrag\}/, '{anzahl, plural, one {# angenommener Beitrag}');
    const broken = [
      [lost, /extension.contributions: placeholders/],
      [de.replace('<target>Hallo {name},</target>', '<target>Hallo {name,</target>'), /mail.hello: not ICU MessageFormat/],
      [de.replace('<target>Hallo {name},</target>', '<target></target>'), /mail.hello: no target/],
      [de.replace('trgLang="de"', 'trgLang="pt"'), /trgLang must be one of/],
      [de.replace('<unit id="mail.hello">', '<unit id="mail.nope">'), /mail.hello: no target|unknown unit/],
    ] as const;
    for (const [text, why] of broken) {
      const file = path.join(dir, 'bad.xlf');
      await fs.writeFile(file, text);
      await fs.rm(path.join(dir, 'de.json'), { force: true });
      const err = await importCatalogs([files[1]!, file], dir).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(I18nError);
      expect((err as Error).message).toMatch(why);
      // Checked whole before writing: not even the good file was written.
      await expect(fs.stat(path.join(dir, 'de.json'))).rejects.toThrow();
    }
    await fs.rm(dir, { recursive: true, force: true });
  });
});

describe('the extension’s compiled messages', () => {
  it('say, in every language, what intl-messageformat says', () => {
    const catalogs = Object.fromEntries(LANGS.map((l) => [l, Object.fromEntries(Object.entries(catalogOf(l)).filter(([id]) => id.startsWith('extension.')))]));
    const self: { M?: Record<string, Record<string, string | ((v: object) => string)>> } = {};
    new Function('self', compileCatalog('M', catalogs))(self);
    const samples = [{ count: 0, names: '', why: 'x', name: 'N' }, { count: 1, names: 'A', why: 'y', name: 'N' }, { count: 2, names: 'A, B', why: 'z', name: 'N' }, { count: 1234, names: 'A', why: 'z', name: 'N' }];
    for (const lang of LANGS)
      for (const id of Object.keys(catalogs[lang]!)) {
        const m = self.M![lang]![id]!;
        for (const v of samples) expect(typeof m === 'string' ? m : m(v), `${lang} ${id}`).toBe(t(lang, id as MessageId, v));
      }
  });
});

describe('the embed in each language', () => {
  const c = (over: Partial<PageRecord['contributions'][number]>): PageRecord['contributions'][number] =>
    ({
      id: 7, page_id: 1, role: 'author', summary: null, change_from: null, change_to: null, accepted_at: '2026-03-05T09:00:00.000Z', log_seq: 5,
      asserted_by: 'contributor', consent: 'submitted', account_id: 3, username: 'ada', name: 'Ada', level: 'expert', trust_score: 0.9,
      quote_exact: null, quote_prefix: null, quote_suffix: null, claim: null, verdict: null, page_hash: null, page_changed_at: null, correction_missing: null,
      ...over,
    }) as PageRecord['contributions'][number];
  const notice = (id: number, type: Notice['type'], date: string): Notice => ({ id, type, notice_date: date, reason: 'R', notice_url: 'https://e.test/n', created_at: `${date}T00:00:00.000Z`, log_seq: 1 });
  const record = (notices: Notice[]): PageRecord =>
    ({
      page: { id: 42, publisher_id: 1, url: 'https://e.test/a', lookup_key: 'e.test/a', embed_key: 'e.test/a', host: 'e.test', title: 'A', topic: 't', created_at: '', updated_at: '', content_hash: null, content_seen_at: null, content_changed_at: null, publisher_slug: 'e', publisher_name: 'E' },
      verified: true,
      contributions: [
        c({ role: 'author' }), c({ id: 8, role: 'review', page_changed_at: '2026-04-01T00:00:00.000Z' }), c({ id: 9, role: 'fact_check' }), c({ id: 10, role: 'edit' }),
        c({ id: 11, role: 'correction', change_from: 'a', change_to: 'b', correction_missing: 1 }), c({ id: 12, role: 'source' }),
      ],
      notices: newestFirst(notices),
      standing: standingOf(notices),
    }) as PageRecord;
  const records = [record([]), record([notice(1, 'retraction', '2026-05-01'), notice(2, 'clarification', '2026-04-01'), notice(3, 'addendum', '2026-03-01')])];
  // English's embed words, as they would appear in the block (the text of each message, its placeholder filled).
  const englishWords = Object.keys(english).filter((id) => id.startsWith('embed.')).map((id) => [id, t('en', id as MessageId, { seq: 4 })] as const);

  it.each(OTHERS)('%s: no English message appears but where the language says the same', (lang) => {
    for (const rec of records)
      for (const style of STYLES) {
        const text = renderAttribution({ siteUrl: 'https://s.test', record: rec, style, lang }).replace(/<[^>]+>/g, ' ');
        for (const [id, words] of englishWords) {
          if (t(lang, id as MessageId, { seq: 4 }) === words || Object.values(catalogOf(lang)).some((m) => m.includes(words))) continue;
          expect(text, `${lang} ${style}: ${id}`).not.toContain(words);
        }
      }
  });
});
