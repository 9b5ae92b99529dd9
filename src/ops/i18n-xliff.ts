// `credence i18n:export` and `i18n:import`: the catalog (src/i18n/catalogs) to and from XLIFF 2.0, the exchange format
// translators' tools open (docs/decisions/message-catalogs.md). One file per language, English as the source, each
// message a unit whose id is the message's; the ICU text travels as it is (a translator's tool shows the plural and
// select branches). An import is checked whole before anything is written: known languages and ids only, every
// message parses, and its placeholders are English's.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@formatjs/icu-messageformat-parser';
import xliff from 'xliff';
import { argumentNames, type Catalog, catalogOf, isLang, type Lang, LANGS } from '../i18n/catalog.js';

export class I18nError extends Error {}

/** Where the catalogs are in a checkout: an import writes them there, for a commit and the next build. */
export const CATALOG_DIR = fileURLToPath(new URL('../../src/i18n/catalogs/', import.meta.url));

const FILE_ID = 'credence';

/** One language's catalog as an XLIFF 2.0 document: the English source and this language's target for every id. */
export async function exportXliff(lang: Lang): Promise<string> {
  const source = catalogOf('en');
  const target = catalogOf(lang);
  const units = Object.fromEntries(Object.keys(source).map((id) => [id, { source: source[id]!, target: target[id] ?? '' }]));
  return `${await xliff.js2xliff({ sourceLanguage: 'en', targetLanguage: lang, resources: { [FILE_ID]: units } })}\n`;
}

const placeholders = (source: string) => [...argumentNames(parse(source, { requiresOtherClause: true }))].sort().join(',');

/** An XLIFF 2.0 document read back as a complete catalog for its target language, or an I18nError naming what is wrong. */
export async function readXliff(text: string): Promise<{ lang: Lang; messages: Catalog }> {
  let doc: { sourceLanguage?: string; targetLanguage?: string; resources?: Record<string, Record<string, { source?: string; target?: string }>> };
  try {
    doc = await xliff.xliff2js(text);
  } catch (err) {
    throw new I18nError(`not an XLIFF 2.0 document: ${(err as Error).message}`);
  }
  const lang = doc.targetLanguage ?? '';
  if (!isLang(lang) || lang === 'en') throw new I18nError(`trgLang must be one of ${LANGS.filter((l) => l !== 'en').join(', ')}; got "${lang}"`);
  if (doc.sourceLanguage !== 'en') throw new I18nError(`srcLang must be en; got "${doc.sourceLanguage ?? ''}"`);
  const english = catalogOf('en');
  const units = doc.resources?.[FILE_ID] ?? {};
  const messages: Catalog = {};
  for (const id of Object.keys(english)) {
    const target = units[id]?.target;
    if (typeof target !== 'string' || target.trim() === '') throw new I18nError(`unit ${id}: no target`);
    try {
      if (placeholders(target) !== placeholders(english[id]!)) throw new I18nError(`unit ${id}: placeholders {${placeholders(target)}} differ from English {${placeholders(english[id]!)}}`);
    } catch (err) {
      if (err instanceof I18nError) throw err;
      throw new I18nError(`unit ${id}: not ICU MessageFormat (${(err as Error).message})`);
    }
    messages[id] = target;
  }
  const unknown = Object.keys(units).filter((id) => !(id in english));
  if (unknown.length) throw new I18nError(`unknown unit id(s): ${unknown.join(', ')}`);
  return { lang, messages };
}

/** Write each language's XLIFF into `out` as {lang}.xlf; the paths written. */
export async function exportCatalogs(out: string, langs: Lang[]): Promise<string[]> {
  await fs.mkdir(out, { recursive: true });
  const written: string[] = [];
  for (const lang of langs) {
    const file = path.join(out, `${lang}.xlf`);
    await fs.writeFile(file, await exportXliff(lang));
    written.push(file);
  }
  return written;
}

/** Read every file first, then write the catalogs: one bad file changes nothing. */
export async function importCatalogs(files: string[], dir: string = CATALOG_DIR): Promise<Lang[]> {
  const read = [];
  for (const file of files) {
    try {
      read.push(await readXliff(await fs.readFile(file, 'utf8')));
    } catch (err) {
      if (err instanceof I18nError) throw new I18nError(`${file}: ${err.message}`);
      throw err;
    }
  }
  for (const { lang, messages } of read) await fs.writeFile(path.join(dir, `${lang}.json`), `${JSON.stringify(messages, null, 2)}\n`);
  return read.map((r) => r.lang);
}
