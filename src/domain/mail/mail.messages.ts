// What each mail says, in the catalog's four languages (the `mail.*` messages): a subject, a plain-text part and an HTML part built from the same
// lines. Rendered when the message is sent (so joined notices read as one), the same way on every attempt.
import { formatDay } from '../dates.js';
import { argumentsOf, type MessageId, t } from '../../i18n/catalog.js';
import type { Locale, MailKind, NoticeKind } from './mail.kinds.js';

export interface Rendered {
  subject: string;
  text: string;
  html: string;
  /** The link the log line of an unsent (file) mail names. */
  link: string | null;
}

/** The facts each kind of message is made from; one per joined notice. */
export type Fact = Record<string, string | number | null>;

/**
 * The message `mail.{key}` of the catalog (src/i18n/catalogs), in the mail's language. Facts are strings or numbers;
 * a null fact reads as empty, as a missing one would.
 */
function say(key: string, locale: Locale, vars: Fact = {}): string {
  const id = `mail.${key}` as MessageId;
  const values = Object.fromEntries([...argumentsOf(locale, id)].map((name) => [name, vars[name] ?? '']));
  return t(locale, id, values);
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** One message from paragraphs and (optionally) one button: the text part and the HTML part say the same. */
function compose(locale: Locale, subject: string, paragraphs: string[], action: { label: string; url: string } | null, footer: string | null): Omit<Rendered, 'link'> {
  const text = [...paragraphs, ...(action ? [`${action.label}: ${action.url}`] : []), ...(footer ? ['--', footer] : [])].join('\n\n') + '\n';
  const html = `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body style="font-family:sans-serif;line-height:1.5;max-width:40em">${paragraphs
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join('')}${action ? `<p><a href="${escapeHtml(action.url)}" style="font-weight:bold">${escapeHtml(action.label)}</a></p>` : ''}${
    footer ? `<hr><p style="font-size:small;color:#555">${escapeHtml(footer)}</p>` : ''
  }</body></html>`;
  return { subject, text, html };
}

/** Facts that are dates (`*_at`, `*_date`) written as people read them, in the mail's language. */
const datesIn = (f: Fact, L: Locale): Fact =>
  Object.fromEntries(Object.entries(f).map(([k, v]) => [k, typeof v === 'string' && /_(at|date)$/.test(k) ? formatDay(v, L) : v]));

export interface RenderInput {
  kind: MailKind;
  locale: Locale;
  siteUrl: string;
  /** The account's public handle and name at send time. */
  username: string;
  name: string;
  facts: Fact[];
  /** Notices: the one-click unsubscribe address of this kind. */
  unsubscribeUrl: string | null;
}

export function render(m: RenderInput): Rendered {
  const L = m.locale;
  const hello = say('hello', L, { name: m.name });
  const f0 = m.facts[0] ?? {};
  const vars = { username: m.username };
  switch (m.kind) {
    case 'confirm_address': {
      const url = `${m.siteUrl}/confirm-email?token=${String(f0.token)}`;
      return { ...compose(L, say('confirm_subject', L), [hello, say('confirm_body', L, { ...vars, hours: Number(f0.hours ?? 72) }), say('not_you', L)], { label: say('confirm_action', L), url }, null), link: url };
    }
    case 'already_registered': {
      const url = `${m.siteUrl}/forgot-password`;
      return { ...compose(L, say('already_subject', L), [hello, say('already_body', L, vars), say('not_you', L)], { label: say('already_action', L), url }, null), link: url };
    }
    case 'password_reset': {
      const url = `${m.siteUrl}/reset-password?token=${String(f0.token)}`;
      return { ...compose(L, say('reset_subject', L), [hello, say('reset_body', L, vars), say('not_you', L)], { label: say('reset_action', L), url }, null), link: url };
    }
    case 'address_changed': {
      const url = `${m.siteUrl}/forgot-password`;
      return { ...compose(L, say('changed_subject', L), [hello, say('changed_body', L, vars)], { label: say('reset_action', L), url }, null), link: url };
    }
    case 'report_received': {
      const url = `${m.siteUrl}/terms`;
      return { ...compose(L, say('report_subject', L, f0), [say('report_body', L, datesIn(f0, L))], null, null), link: url };
    }
    case 'statement_of_reasons': {
      const url = String(f0.link ?? m.siteUrl);
      const body = f0.role === 'notifier' ? 'statement_notifier' : 'statement_affected';
      const paragraphs = f0.role === 'notifier' ? [say(body, L, datesIn(f0, L))] : [hello, say(body, L, datesIn(f0, L))];
      return { ...compose(L, say('statement_subject', L), paragraphs, { label: say('statement_action', L), url }, null), link: url };
    }
    default: {
      const kind: NoticeKind = m.kind;
      const one = say(`${kind}_subject`, L);
      const subject = m.facts.length > 1 ? say('several', L, { count: m.facts.length, subject: one }) : one;
      // A fact may name why (`why`), for a line of its own: a take cancelled by a domain's move, not its publisher.
      const lines = m.facts.map((f) => say(typeof f.why === 'string' ? `${kind}_line_${f.why}` : `${kind}_line`, L, datesIn(f, L)));
      const link = String(f0.link ?? `${m.siteUrl}/me`);
      const footer = m.unsubscribeUrl ? say('notice_footer', L, { unsubscribe: m.unsubscribeUrl, me: `${m.siteUrl}/me/mail` }) : null;
      return { ...compose(L, subject, [hello, ...lines], { label: say('open', L), url: link }, footer), link };
    }
  }
}
