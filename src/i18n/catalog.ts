// The one catalog of the words people read (docs/decisions/message-catalogs.md): ICU MessageFormat messages in a flat
// JSON file per language (src/i18n/catalogs/{lang}.json), ids named by concern (`embed.*`, `extension.*`, `mail.*`),
// formatted by intl-messageformat with the runtime's Intl (plural rules, numbers). English is the source: every other
// catalog holds the same ids (test/i18n.catalog.test.ts). Nothing here imports the rest of src/: every layer may use it.
import { type MessageFormatElement, TYPE } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat, type PrimitiveType } from 'intl-messageformat';
import en from './catalogs/en.json' with { type: 'json' };
import de from './catalogs/de.json' with { type: 'json' };
import fr from './catalogs/fr.json' with { type: 'json' };
import es from './catalogs/es.json' with { type: 'json' };

export const LANGS = ['en', 'de', 'fr', 'es'] as const;
export type Lang = (typeof LANGS)[number];
export type Catalog = Record<string, string>;
export type MessageId = keyof typeof en;
export type Values = Record<string, PrimitiveType>;

const CATALOGS: Record<Lang, Catalog> = { en, de, fr, es };

/** The messages of one language, as stored (ICU source text). */
export const catalogOf = (lang: Lang): Readonly<Catalog> => CATALOGS[lang];

export const isLang = (s: string): s is Lang => (LANGS as readonly string[]).includes(s);

// Parsing a message costs far more than formatting one: each (language, id) is parsed once, on first use.
const compiled = new Map<string, IntlMessageFormat>();

function compiledOf(lang: Lang, id: MessageId): IntlMessageFormat {
  const key = `${lang}\u0000${id}`;
  let mf = compiled.get(key);
  if (!mf) {
    const source = CATALOGS[lang][id] ?? CATALOGS.en[id];
    if (source === undefined) throw new Error(`no message ${id}`);
    mf = new IntlMessageFormat(source, lang);
    compiled.set(key, mf);
  }
  return mf;
}

/** The names of a parsed message's placeholders, nested ones (inside plural and select branches) included. */
export function argumentNames(ast: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const el of ast) {
    if (el.type === TYPE.literal || el.type === TYPE.pound) continue;
    into.add(el.value);
    if (el.type === TYPE.plural || el.type === TYPE.select) for (const option of Object.values(el.options)) argumentNames(option.value, into);
    if (el.type === TYPE.tag) argumentNames(el.children, into);
  }
  return into;
}

/** The placeholders message `id` has in `lang`. */
export const argumentsOf = (lang: Lang, id: MessageId): Set<string> => argumentNames(compiledOf(lang, id).getAst());

/** The message `id` in `lang` (English where the language lacks it), its placeholders filled from `values`. */
export function t(lang: Lang, id: MessageId, values?: Values): string {
  const out = compiledOf(lang, id).format(values);
  // A message is text: rich-text tags are not used in the catalog, so the result is always a string.
  return typeof out === 'string' ? out : String(out);
}
