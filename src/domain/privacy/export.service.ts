// The account export: one JSON document with everything the service holds about the signed-in account,
// in the shape docs/privacy.md describes field by field. Secrets and hashes are never part of it: a key shows its
// prefix and last four characters, a webhook its URL and events, a session its times.
import type { Deps } from '../deps.js';
import type { EventType } from '../events/outbox.js';
import type { Locale, MailKind, NoticeKind } from '../mail/mail.kinds.js';
import { notFound } from '../errors.js';
import { storedSources } from '../submissions/submission.service.js';
import * as store from './export.store.js';

export const EXPORT_FORMAT = 'credence-account-export/1' as const;

export async function exportAccount(deps: Deps, accountId: number) {
  const db = deps.db;
  const account = await store.accountRow(db, accountId);
  if (!account) throw notFound('Account');
  const [topics, memberships, history, invitations, sessions, keys, webhooks, submissions, contributions, withdrawn, claims, preferences, taken, openings, noticesOff, mails, interests, authorLinks] =
    await Promise.all([
      store.topicRows(db, accountId),
      store.membershipRows(db, accountId),
      store.membershipHistoryRows(db, accountId),
      store.invitationRows(db, accountId),
      store.sessionRows(db, accountId),
      store.apiKeyRows(db, accountId),
      store.webhookRows(db, accountId),
      store.submissionRows(db, accountId),
      store.contributionRows(db, accountId),
      store.withdrawnRows(db, accountId),
      store.claimRows(db, accountId),
      store.preferenceRows(db, accountId),
      store.takenRequestRows(db, accountId),
      store.openingRows(db, accountId),
      store.noticesOffRows(db, accountId),
      store.mailRows(db, accountId),
      store.interestRows(db, accountId),
      store.authorLinkRows(db, accountId),
    ]);
  return {
    format: EXPORT_FORMAT,
    exported_at: deps.clock.now().toISOString(),
    account: {
      id: account.id,
      username: account.username,
      name: account.name,
      email: account.email,
      email_confirmed_at: account.email_confirmed_at,
      locale: account.locale as Locale,
      summary: account.summary,
      topics: JSON.parse(account.topics) as string[],
      level: account.level,
      trust_score: account.trust_score,
      contribution_score: account.contribution_score,
      accepted_count: account.accepted_count,
      rejected_count: account.rejected_count,
      is_admin: Boolean(account.is_admin),
      created_at: account.created_at,
      updated_at: account.updated_at,
    },
    topic_scores: topics.map((t) => ({ topic: t.topic, weight: t.weight, accepted: t.accepted, authority: t.authority })),
    memberships: memberships.map((m) => ({ publisher: m.slug, publisher_name: m.name, role: m.role, since: m.created_at })),
    membership_history: history.map((h) => ({ publisher: h.slug, publisher_name: h.name, since: h.since })),
    invitations: invitations.map((i) => ({ publisher: i.slug, role: i.role, invited_by: i.invited_by, created_at: i.created_at })),
    sessions: sessions.map((s) => ({ created_at: s.created_at, expires_at: s.expires_at, ended_at: s.ended_at, device: s.device })),
    api_keys: keys.map((k) => ({
      name: k.name,
      prefix: k.prefix,
      last4: k.last4,
      publisher: k.publisher,
      created_at: k.created_at,
      expires_at: k.expires_at,
      revoked_at: k.revoked_at,
      last_used_at: k.last_used_at,
    })),
    webhooks: webhooks.map((w) => ({
      id: w.id,
      url: w.url,
      format: w.format,
      publisher: w.publisher,
      events: JSON.parse(w.events) as EventType[],
      enabled: Boolean(w.enabled),
      created_at: w.created_at,
      disabled_at: w.disabled_at,
    })),
    submissions: submissions.map((s) => ({
      id: s.id,
      kind: s.kind,
      status: s.status,
      page_url: s.page_url,
      summary: s.summary,
      before: s.before_text,
      after: s.after_text,
      reason: s.reason,
      sources: storedSources(s.sources),
      created_at: s.created_at,
      decided_at: s.decided_at,
      decision_note: s.decision_note,
    })),
    contributions: contributions.map((c) => ({
      id: c.id,
      role: c.role,
      page_url: c.page_url,
      summary: c.summary,
      accepted_at: c.accepted_at,
      provenance: { asserted_by: c.asserted_by, consent: c.consent },
      log_index: c.log_seq === null ? null : c.log_seq - 1,
    })),
    withdrawn_contributions: withdrawn.map((w) => ({ id: w.id, role: w.role, page_url: w.page_url, accepted_at: w.accepted_at, withdrawn_at: w.withdrawn_at })),
    author_claims: claims.map((c) => ({ id: c.id, page_url: c.page_url, publisher: c.publisher, state: c.state, created_at: c.created_at, decided_at: c.decided_at })),
    claim_preferences: preferences.map((p) => ({ publisher: p.publisher, preference: p.preference, created_at: p.created_at })),
    author_links: authorLinks.map((l) => ({ id: l.id, publisher: l.publisher, site: l.site, user_id: l.user_id, display_name: l.display_name, state: l.state, created_at: l.created_at, decided_at: l.decided_at })),
    requests_taken: taken.map((r) => ({ id: r.id, title: r.title, status: r.status, taken_at: r.taken_at })),
    log_openings: openings.map((o) => ({ log_index: o.seq - 1, pointer: o.pointer })),
    declared_interests: interests.map((i) => ({ subject: i.subject, name: i.name, kind: i.kind, note: i.note, declared_at: i.declared_at, ended_at: i.ended_at })),
    notices_off: noticesOff.map((n) => ({ kind: n.kind as NoticeKind, since: n.updated_at })),
    mail: mails.map((m) => ({ kind: m.kind as MailKind, status: m.status as 'pending' | 'sent' | 'failed', created_at: m.created_at, sent_at: m.sent_at })),
  };
}

export type AccountExport = Awaited<ReturnType<typeof exportAccount>>;
