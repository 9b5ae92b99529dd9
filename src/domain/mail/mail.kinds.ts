// The kinds of mail the service sends. Account mail (about the address or the password) always goes; each notice
// kind can be turned off by its recipient (on /me, through the API, or by the one-click unsubscribe in the mail).
// A notice's acknowledgement and a statement of reasons are owed by law (DSA Art. 16(4), 17): they cannot be turned off.
export const ACCOUNT_MAIL = ['confirm_address', 'already_registered', 'password_reset', 'address_changed', 'report_received', 'statement_of_reasons'] as const;
export const NOTICE_KINDS = [
  'named_on_page',
  'author_link',
  'submission_decided',
  'take_cancelled',
  'request_taken',
  'domain_moved',
  'member_invitation',
  'webhook_disabled',
  'api_key_expiring',
] as const;
export type AccountMailKind = (typeof ACCOUNT_MAIL)[number];
export type NoticeKind = (typeof NOTICE_KINDS)[number];
export type MailKind = AccountMailKind | NoticeKind;

export const isNoticeKind = (k: string): k is NoticeKind => (NOTICE_KINDS as readonly string[]).includes(k);

/** The languages mail is written in; anything else gets English. */
export const LOCALES = ['en', 'de', 'fr', 'es'] as const;
export type Locale = (typeof LOCALES)[number];

/** The first language of an Accept-Language header the service writes mail in, else English. */
export function localeOf(acceptLanguage: string | undefined): Locale {
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]!.trim().toLowerCase().split('-')[0];
    if ((LOCALES as readonly string[]).includes(tag!)) return tag as Locale;
    if (tag && tag !== '*') return 'en';
  }
  return 'en';
}

/** Links a confirmation or reset mail carries are good this long. */
export const CONFIRM_HOURS = 72;
export const RESET_HOURS = 1;
/** A notice waits this long before it is sent, so the next notice about the same thing joins it. */
export const JOIN_WINDOW_MS = 3 * 60_000;
/** An unsubscribe link in a notice works this long. */
export const UNSUBSCRIBE_HOURS = 24 * 366;
