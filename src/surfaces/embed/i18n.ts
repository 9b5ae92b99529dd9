// The words of the attribution block in each supported language. Unknown languages fall back to English.
export const LANGS = ['en', 'de', 'fr', 'es'] as const;
export type Lang = (typeof LANGS)[number];

export interface Words {
  roles: Record<string, string>;
  /** "Written by", "Reviewed by", ... for the compact line. */
  by: Record<string, string>;
  heading: string;
  verified: string;
  record: string;
  proof: string;
  /** The link to the record's entry in the transparency log. */
  log: string;
  changed: string;
  from: string;
  to: string;
  /** Said of a review, fact check or correction when the page's text changed after it; the date follows. */
  pageChanged: string;
  /** Said of a correction whose new text no longer appears on the page. */
  correctionMissing: string;
}

const en: Words = {
  roles: { author: 'Author', review: 'Review', fact_check: 'Fact check', edit: 'Edit', correction: 'Correction', source: 'Source' },
  by: { author: 'Written by', review: 'Reviewed by', fact_check: 'Fact-checked by', edit: 'Edited by', correction: 'Corrected by', source: 'Sourced by' },
  heading: 'Who worked on this page',
  verified: 'Verified record',
  record: 'See the full record',
  proof: 'Evidence',
  log: 'Log entry',
  changed: 'Changed',
  from: 'from',
  to: 'to',
  pageChanged: 'The page has changed since this work, on',
  correctionMissing: 'The corrected text no longer appears on the page.',
};

const de: Words = {
  roles: { author: 'Autor·in', review: 'Begutachtung', fact_check: 'Faktencheck', edit: 'Redaktion', correction: 'Korrektur', source: 'Quelle' },
  by: { author: 'Geschrieben von', review: 'Begutachtet von', fact_check: 'Faktengeprüft von', edit: 'Redigiert von', correction: 'Korrigiert von', source: 'Belegt von' },
  heading: 'Wer an dieser Seite gearbeitet hat',
  verified: 'Geprüfter Nachweis',
  record: 'Vollständigen Nachweis ansehen',
  proof: 'Beleg',
  log: 'Protokolleintrag',
  changed: 'Geändert',
  from: 'von',
  to: 'zu',
  pageChanged: 'Die Seite wurde danach geändert, am',
  correctionMissing: 'Der korrigierte Text steht nicht mehr auf der Seite.',
};

const fr: Words = {
  roles: { author: 'Auteur', review: 'Relecture', fact_check: 'Vérification', edit: 'Édition', correction: 'Correction', source: 'Source' },
  by: { author: 'Écrit par', review: 'Relu par', fact_check: 'Vérifié par', edit: 'Édité par', correction: 'Corrigé par', source: 'Sourcé par' },
  heading: 'Qui a travaillé sur cette page',
  verified: 'Historique vérifié',
  record: 'Voir l’historique complet',
  proof: 'Preuve',
  log: 'Entrée du journal',
  changed: 'Modifié',
  from: 'de',
  to: 'à',
  pageChanged: 'La page a changé depuis ce travail, le',
  correctionMissing: 'Le texte corrigé ne figure plus sur la page.',
};

const es: Words = {
  roles: { author: 'Autoría', review: 'Revisión', fact_check: 'Verificación', edit: 'Edición', correction: 'Corrección', source: 'Fuente' },
  by: { author: 'Escrito por', review: 'Revisado por', fact_check: 'Verificado por', edit: 'Editado por', correction: 'Corregido por', source: 'Documentado por' },
  heading: 'Quién trabajó en esta página',
  verified: 'Historial verificado',
  record: 'Ver el historial completo',
  proof: 'Prueba',
  log: 'Entrada del registro',
  changed: 'Cambiado',
  from: 'de',
  to: 'a',
  pageChanged: 'La página cambió después de este trabajo, el',
  correctionMissing: 'El texto corregido ya no aparece en la página.',
};

const WORDS: Record<Lang, Words> = { en, de, fr, es };

/** `de-AT` → `de`; anything unsupported → `en`. */
export function pickLang(input: string | undefined | null): Lang {
  // Most embeds name no language, or one of ours exactly: no string work on the warm path.
  if (!input) return 'en';
  if ((LANGS as readonly string[]).includes(input)) return input as Lang;
  const base = input.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return (LANGS as readonly string[]).includes(base) ? (base as Lang) : 'en';
}

export const wordsFor = (lang: Lang): Words => WORDS[lang];

// Building an Intl formatter costs far more than using one: one per language, made on first use.
const formatters = new Map<Lang, Intl.DateTimeFormat>();

export function formatDate(iso: string, lang: Lang): string {
  let f = formatters.get(lang);
  if (!f) {
    f = new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
    formatters.set(lang, f);
  }
  return f.format(new Date(iso));
}
