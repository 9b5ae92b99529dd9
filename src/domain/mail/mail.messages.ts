// What each mail says, in English and French: a subject, a plain-text part and an HTML part built from the same
// lines. Rendered when the message is sent (so joined notices read as one), the same way on every attempt.
import { formatDay } from '../dates.js';
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

type Words = Record<string, { en: string; fr: string }>;

const W: Words = {
  hello: { en: 'Hello {name},', fr: 'Bonjour {name},' },
  confirm_subject: { en: 'Confirm your email address for Credence', fr: 'Confirmez votre adresse e-mail pour Credence' },
  confirm_body: {
    en: 'Please confirm that this address belongs to the Credence account @{username}. The link works once, for {hours} hours.',
    fr: 'Merci de confirmer que cette adresse appartient au compte Credence @{username}. Le lien fonctionne une fois, pendant {hours} heures.',
  },
  confirm_action: { en: 'Confirm this address', fr: 'Confirmer cette adresse' },
  not_you: {
    en: 'If you did not ask for this, ignore this message: nothing happens without the link.',
    fr: 'Si vous n’avez rien demandé, ignorez ce message : rien ne se passe sans le lien.',
  },
  already_subject: { en: 'You already have a Credence account', fr: 'Vous avez déjà un compte Credence' },
  already_body: {
    en: 'Someone tried to sign up to Credence with this address, which already has an account (@{username}). No new account was made. If it was you, log in; if you forgot your password, reset it:',
    fr: 'Quelqu’un a tenté de créer un compte Credence avec cette adresse, qui en a déjà un (@{username}). Aucun compte n’a été créé. Si c’était vous, connectez-vous ; si vous avez oublié votre mot de passe, réinitialisez-le :',
  },
  already_action: { en: 'Reset my password', fr: 'Réinitialiser mon mot de passe' },
  reset_subject: { en: 'Reset your Credence password', fr: 'Réinitialisez votre mot de passe Credence' },
  reset_body: {
    en: 'Someone asked to reset the password of the Credence account @{username}. The link works once, for one hour; using it logs out every session.',
    fr: 'Quelqu’un a demandé à réinitialiser le mot de passe du compte Credence @{username}. Le lien fonctionne une fois, pendant une heure ; l’utiliser ferme toutes les sessions.',
  },
  reset_action: { en: 'Choose a new password', fr: 'Choisir un nouveau mot de passe' },
  changed_subject: { en: 'The email address of your Credence account was changed', fr: 'L’adresse e-mail de votre compte Credence a changé' },
  changed_body: {
    en: 'The Credence account @{username} now uses another email address; this one will get no more mail. If you did not do this, reset your password at once:',
    fr: 'Le compte Credence @{username} utilise désormais une autre adresse ; celle-ci ne recevra plus de messages. Si ce n’est pas vous, réinitialisez votre mot de passe tout de suite :',
  },
  notice_footer: {
    en: 'You get this because of your notice settings. Turn this kind of mail off: {unsubscribe} (or on your account page: {me}).',
    fr: 'Vous recevez ce message selon vos réglages. Ne plus recevoir ce type de message : {unsubscribe} (ou sur votre page de compte : {me}).',
  },
  unsubscribe: { en: 'Stop these mails', fr: 'Ne plus recevoir ces messages' },
  open: { en: 'Open', fr: 'Ouvrir' },
  // Notices: a subject (one fact or several) and one line per fact.
  named_on_page_subject: { en: 'A publication named you as an author', fr: 'Une publication vous a nommé comme auteur' },
  named_on_page_line: {
    en: '{publisher} named you as an author of {url}. Confirm or decline on your account page.',
    fr: '{publisher} vous a nommé comme auteur de {url}. Confirmez ou refusez sur votre page de compte.',
  },
  author_link_subject: { en: 'A publication asks to name you as an author on its site', fr: 'Une publication demande à vous nommer comme auteur sur son site' },
  author_link_line: {
    en: '{publisher} asks to name you as the author of the posts of “{display_name}” on {site}. Confirm only if that account is yours; otherwise decline. Until you answer, nothing names you.',
    fr: '{publisher} demande à vous nommer comme auteur des articles de « {display_name} » sur {site}. Confirmez seulement si ce compte est le vôtre ; sinon refusez. Tant que vous ne répondez pas, rien ne vous nomme.',
  },
  submission_decided_subject: { en: 'Your submission was decided', fr: 'Votre contribution a été examinée' },
  submission_decided_line: { en: 'Your submission for {url} was {decision}.', fr: 'Votre contribution pour {url} : {decision}.' },
  take_cancelled_subject: { en: 'A request you took was cancelled', fr: 'Une demande que vous aviez prise a été annulée' },
  take_cancelled_line: { en: '{publisher} cancelled the request about {url}.', fr: '{publisher} a annulé la demande sur {url}.' },
  take_cancelled_line_moved: {
    en: 'The request of {publisher} about {url} was cancelled: {domain} is now verified by {holder}, so {publisher} can no longer decide work on it. Work you sent on it stays pending until you withdraw it.',
    fr: 'La demande de {publisher} sur {url} a été annulée : {domain} est désormais vérifié par {holder}, et {publisher} ne peut plus y examiner de travail. Ce que vous y avez envoyé reste en attente jusqu’à ce que vous le retiriez.',
  },
  request_taken_subject: { en: 'A specialist took your request', fr: 'Un spécialiste a pris votre demande' },
  request_taken_line: { en: '@{username} took the request about {url}.', fr: '@{username} a pris la demande sur {url}.' },
  domain_moved_subject: { en: 'A domain of your publication was verified by another', fr: 'Un domaine de votre publication a été vérifié par une autre' },
  domain_moved_line: {
    en: '{domain} is now verified by {holder}, so {publisher} no longer acts on its pages there; {cancelled} request(s) open on them were cancelled. If the domain is yours, verify it again from the dashboard.',
    fr: '{domain} est désormais vérifié par {holder} : {publisher} n’agit plus sur ses pages ; {cancelled} demande(s) ouverte(s) sur elles ont été annulée(s). Si le domaine est à vous, vérifiez-le à nouveau depuis le tableau de bord.',
  },
  member_invitation_subject: { en: 'You are invited to a publication', fr: 'Vous êtes invité dans une publication' },
  member_invitation_line: { en: '@{inviter} invited you to {publisher} as {role}.', fr: '@{inviter} vous invite dans {publisher} comme {role}.' },
  webhook_disabled_subject: { en: 'A webhook was disabled', fr: 'Un webhook a été désactivé' },
  webhook_disabled_line: {
    en: 'The webhook {url} of {publisher} failed for 24 hours and was disabled; its deliveries wait until it is enabled again.',
    fr: 'Le webhook {url} de {publisher} a échoué pendant 24 heures et a été désactivé ; ses envois attendent sa réactivation.',
  },
  api_key_expiring_subject: { en: 'An API key expires in 7 days', fr: 'Une clé d’API expire dans 7 jours' },
  api_key_expiring_line: { en: 'Your API key “{name}” expires on {expires_at}.', fr: 'Votre clé d’API « {name} » expire le {expires_at}.' },
  several: { en: '{n} updates: {subject}', fr: '{n} nouvelles : {subject}' },
  // Reports and decisions (DSA Art. 16, 17): the notifier's acknowledgement and the statement of reasons.
  report_subject: { en: 'Your report {reference} was received', fr: 'Votre signalement {reference} a été reçu' },
  report_body: {
    en: 'We received your report {reference} on {received_at}. An operator will decide on it and tell you the decision and its reasons; keep this reference to ask about it.',
    fr: 'Nous avons reçu votre signalement {reference} le {received_at}. Un opérateur va l’examiner et vous dira sa décision et ses motifs ; gardez cette référence pour en parler.',
  },
  statement_subject: { en: 'A decision about a report, and its reasons', fr: 'Une décision sur un signalement, et ses motifs' },
  statement_affected: {
    en: 'An operator decided on a report about text you wrote ({decision}, on {decided_at}). The statement of reasons says what was restricted, the facts and the ground. You can appeal within six months: {appeal}',
    fr: 'Un opérateur a statué sur un signalement visant un texte que vous avez écrit ({decision}, le {decided_at}). L’exposé des motifs dit ce qui a été restreint, les faits et le fondement. Vous pouvez faire appel pendant six mois : {appeal}',
  },
  statement_notifier: {
    en: 'An operator decided on your report {reference} ({decision}, on {decided_at}). The statement of reasons is at the link below. If you disagree, you can appeal within six months: {appeal}',
    fr: 'Un opérateur a statué sur votre signalement {reference} ({decision}, le {decided_at}). L’exposé des motifs est au lien ci-dessous. Si vous n’êtes pas d’accord, vous pouvez faire appel pendant six mois : {appeal}',
  },
  statement_action: { en: 'Read the statement of reasons', fr: 'Lire l’exposé des motifs' },
};

function say(key: string, locale: Locale, vars: Fact = {}): string {
  const template = W[key]?.[locale] ?? W[key]?.en ?? key;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => String(vars[name] ?? ''));
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
      const subject = m.facts.length > 1 ? say('several', L, { n: m.facts.length, subject: one }) : one;
      // A fact may name why (`why`), for a line of its own: a take cancelled by a domain's move, not its publisher.
      const lines = m.facts.map((f) => say(typeof f.why === 'string' ? `${kind}_line_${f.why}` : `${kind}_line`, L, datesIn(f, L)));
      const link = String(f0.link ?? `${m.siteUrl}/me`);
      const footer = m.unsubscribeUrl ? say('notice_footer', L, { unsubscribe: m.unsubscribeUrl, me: `${m.siteUrl}/me/mail` }) : null;
      return { ...compose(L, subject, [hello, ...lines], { label: say('open', L), url: link }, footer), link };
    }
  }
}
