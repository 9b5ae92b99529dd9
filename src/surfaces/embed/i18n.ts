// The words of the attribution block in each supported language. Unknown languages fall back to English.
import type { NoticeType, Standing } from '../../domain/pages/notices.js';
import { formatDay } from '../../domain/dates.js';

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
  /** The small link to the report form (DSA Art. 16: a notice about anything the block shows). */
  report: string;
  changed: string;
  from: string;
  to: string;
  /** Said of a review, fact check or correction when the page's text changed after it; the date follows. */
  pageChanged: string;
  /** Said of a correction whose new text no longer appears on the page. */
  correctionMissing: string;
  /** Notices: each kind's name, each standing's headline and plain sentence, and the list's words. */
  notices: Record<NoticeType, string>;
  standings: Record<Exclude<Standing, 'current'>, { label: string; sentence: string }>;
  noticesHeading: string;
  readNotice: string;
}

const en: Words = {
  roles: { author: 'Author', review: 'Review', fact_check: 'Fact check', edit: 'Edit', correction: 'Correction', source: 'Source' },
  by: { author: 'Written by', review: 'Reviewed by', fact_check: 'Fact-checked by', edit: 'Edited by', correction: 'Corrected by', source: 'Sourced by' },
  heading: 'Who worked on this page',
  verified: 'Verified record',
  record: 'See the full record',
  proof: 'Proof',
  log: 'Log entry',
  report: 'Report',
  changed: 'Changed',
  from: 'from',
  to: 'to',
  pageChanged: 'The page has changed since this work, on',
  correctionMissing: 'The corrected text no longer appears on the page.',
  notices: {
    retraction: 'Retraction',
    partial_retraction: 'Partial retraction',
    expression_of_concern: 'Expression of concern',
    withdrawal: 'Withdrawal',
    removal: 'Removal',
    clarification: 'Clarification',
    addendum: 'Addendum',
    reinstatement: 'Reinstatement',
  },
  standings: {
    retracted: { label: 'Retracted', sentence: 'This page was retracted by its publisher.' },
    partially_retracted: { label: 'Partially retracted', sentence: 'Part of this page was retracted by its publisher.' },
    expression_of_concern: { label: 'Expression of concern', sentence: 'The publisher has expressed concern about this page.' },
    withdrawn: { label: 'Withdrawn', sentence: 'This page was withdrawn by its publisher.' },
    removed: { label: 'Removed', sentence: 'This page was removed by its publisher.' },
  },
  noticesHeading: 'Notices',
  readNotice: 'Read the notice',
};

const de: Words = {
  roles: { author: 'Autor·in', review: 'Begutachtung', fact_check: 'Faktencheck', edit: 'Redaktion', correction: 'Korrektur', source: 'Quelle' },
  by: { author: 'Geschrieben von', review: 'Begutachtet von', fact_check: 'Faktengeprüft von', edit: 'Redigiert von', correction: 'Korrigiert von', source: 'Belegt von' },
  heading: 'Wer an dieser Seite gearbeitet hat',
  verified: 'Geprüfter Nachweis',
  record: 'Vollständigen Nachweis ansehen',
  proof: 'Beleg',
  log: 'Protokolleintrag',
  report: 'Melden',
  changed: 'Geändert',
  from: 'von',
  to: 'zu',
  pageChanged: 'Die Seite wurde danach geändert, am',
  correctionMissing: 'Der korrigierte Text steht nicht mehr auf der Seite.',
  notices: {
    retraction: 'Widerruf',
    partial_retraction: 'Teilweiser Widerruf',
    expression_of_concern: 'Bedenkenhinweis',
    withdrawal: 'Rückzug',
    removal: 'Entfernung',
    clarification: 'Klarstellung',
    addendum: 'Nachtrag',
    reinstatement: 'Wiederherstellung',
  },
  standings: {
    retracted: { label: 'Widerrufen', sentence: 'Diese Seite wurde von ihrem Herausgeber widerrufen.' },
    partially_retracted: { label: 'Teilweise widerrufen', sentence: 'Ein Teil dieser Seite wurde von ihrem Herausgeber widerrufen.' },
    expression_of_concern: { label: 'Bedenkenhinweis', sentence: 'Der Herausgeber hat Bedenken zu dieser Seite geäußert.' },
    withdrawn: { label: 'Zurückgezogen', sentence: 'Diese Seite wurde von ihrem Herausgeber zurückgezogen.' },
    removed: { label: 'Entfernt', sentence: 'Diese Seite wurde von ihrem Herausgeber entfernt.' },
  },
  noticesHeading: 'Hinweise',
  readNotice: 'Hinweis lesen',
};

const fr: Words = {
  roles: { author: 'Auteur', review: 'Relecture', fact_check: 'Vérification', edit: 'Édition', correction: 'Correction', source: 'Source' },
  by: { author: 'Écrit par', review: 'Relu par', fact_check: 'Vérifié par', edit: 'Édité par', correction: 'Corrigé par', source: 'Sourcé par' },
  heading: 'Qui a travaillé sur cette page',
  verified: 'Historique vérifié',
  record: 'Voir l’historique complet',
  proof: 'Preuve',
  log: 'Entrée du journal',
  report: 'Signaler',
  changed: 'Modifié',
  from: 'de',
  to: 'à',
  pageChanged: 'La page a changé depuis ce travail, le',
  correctionMissing: 'Le texte corrigé ne figure plus sur la page.',
  notices: {
    retraction: 'Rétractation',
    partial_retraction: 'Rétractation partielle',
    expression_of_concern: 'Expression de préoccupation',
    withdrawal: 'Retrait',
    removal: 'Suppression',
    clarification: 'Clarification',
    addendum: 'Addendum',
    reinstatement: 'Rétablissement',
  },
  standings: {
    retracted: { label: 'Rétractée', sentence: 'Cette page a été rétractée par son éditeur.' },
    partially_retracted: { label: 'Partiellement rétractée', sentence: 'Une partie de cette page a été rétractée par son éditeur.' },
    expression_of_concern: { label: 'Expression de préoccupation', sentence: 'L’éditeur a exprimé une préoccupation au sujet de cette page.' },
    withdrawn: { label: 'Retirée', sentence: 'Cette page a été retirée par son éditeur.' },
    removed: { label: 'Supprimée', sentence: 'Cette page a été supprimée par son éditeur.' },
  },
  noticesHeading: 'Avis',
  readNotice: 'Lire l’avis',
};

const es: Words = {
  roles: { author: 'Autoría', review: 'Revisión', fact_check: 'Verificación', edit: 'Edición', correction: 'Corrección', source: 'Fuente' },
  by: { author: 'Escrito por', review: 'Revisado por', fact_check: 'Verificado por', edit: 'Editado por', correction: 'Corregido por', source: 'Documentado por' },
  heading: 'Quién trabajó en esta página',
  verified: 'Historial verificado',
  record: 'Ver el historial completo',
  proof: 'Prueba',
  log: 'Entrada del registro',
  report: 'Denunciar',
  changed: 'Cambiado',
  from: 'de',
  to: 'a',
  pageChanged: 'La página cambió después de este trabajo, el',
  correctionMissing: 'El texto corregido ya no aparece en la página.',
  notices: {
    retraction: 'Retractación',
    partial_retraction: 'Retractación parcial',
    expression_of_concern: 'Expresión de preocupación',
    withdrawal: 'Retirada',
    removal: 'Eliminación',
    clarification: 'Aclaración',
    addendum: 'Adenda',
    reinstatement: 'Restablecimiento',
  },
  standings: {
    retracted: { label: 'Retractada', sentence: 'Esta página fue retractada por su editor.' },
    partially_retracted: { label: 'Retractada en parte', sentence: 'Parte de esta página fue retractada por su editor.' },
    expression_of_concern: { label: 'Expresión de preocupación', sentence: 'El editor ha expresado su preocupación sobre esta página.' },
    withdrawn: { label: 'Retirada', sentence: 'Esta página fue retirada por su editor.' },
    removed: { label: 'Eliminada', sentence: 'Esta página fue eliminada por su editor.' },
  },
  noticesHeading: 'Avisos',
  readNotice: 'Leer el aviso',
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

/** A date in the block's language, the one format of domain/dates.ts. */
export const formatDate = (iso: string, lang: Lang): string => formatDay(iso, lang);
