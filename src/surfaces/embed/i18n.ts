// The words of the attribution block in each supported language, from the catalog's `embed.*` messages
// (src/i18n/catalogs). Unknown languages fall back to English.
import type { NoticeType, Standing } from '../../domain/pages/notices.js';
import { formatDay } from '../../domain/dates.js';
import { LANGS, type Lang, type MessageId, t, type Values } from '../../i18n/catalog.js';

export { LANGS, type Lang };

export interface Words {
  roles: Record<string, string>;
  /** "Written by", "Reviewed by", ... for the compact line. */
  by: Record<string, string>;
  heading: string;
  verified: string;
  record: string;
  proof: string;
  /** The link to the record's entry in the transparency log, by its number there. */
  logEntry: (seq: number) => string;
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

const ROLES = ['author', 'review', 'fact_check', 'edit', 'correction', 'source'] as const;
const NOTICE_TYPES: NoticeType[] = ['retraction', 'partial_retraction', 'expression_of_concern', 'withdrawal', 'removal', 'clarification', 'addendum', 'reinstatement'];
const STANDINGS = ['retracted', 'partially_retracted', 'expression_of_concern', 'withdrawn', 'removed'] as const;

/**
 * The block's words in `lang`, formatted from the catalog once per language when this module loads: a render (itself
 * done once per language and record, then served as cached bytes) only reads them.
 */
function wordsOf(lang: Lang): Words {
  const say = (id: string, values?: Values) => t(lang, id as MessageId, values);
  return {
    roles: Object.fromEntries(ROLES.map((r) => [r, say(`embed.role.${r}`)])),
    by: Object.fromEntries(ROLES.map((r) => [r, say(`embed.by.${r}`)])),
    heading: say('embed.heading'),
    verified: say('embed.verified'),
    record: say('embed.record'),
    proof: say('embed.proof'),
    logEntry: (seq: number) => say('embed.log', { seq }),
    report: say('embed.report'),
    changed: say('embed.changed'),
    from: say('embed.from'),
    to: say('embed.to'),
    pageChanged: say('embed.pageChanged'),
    correctionMissing: say('embed.correctionMissing'),
    notices: Object.fromEntries(NOTICE_TYPES.map((n) => [n, say(`embed.notice.${n}`)])) as Record<NoticeType, string>,
    standings: Object.fromEntries(
      STANDINGS.map((s) => [s, { label: say(`embed.standing.${s}.label`), sentence: say(`embed.standing.${s}.sentence`) }]),
    ) as Words['standings'],
    noticesHeading: say('embed.noticesHeading'),
    readNotice: say('embed.readNotice'),
  };
}

const WORDS = Object.fromEntries(LANGS.map((lang) => [lang, wordsOf(lang)])) as Record<Lang, Words>;

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
