// Reports from anyone, operators' decisions with statements of reasons, appeals decided by another operator
// (DSA Art. 16, 17, 20, 22, 23; docs/trust-and-safety.md). A restriction takes the field's text out of every row
// that holds it, found by reference (items.store.ts), keeps what it took in withheld_texts until the appeal window
// closes, and appends a `moderation.decided` entry in the same transaction, so the change follower and the cache
// tier's purger drop every answer that showed it, as for any change. The entry carries the decision's facts only:
// no notifier, no content.
import { randomBytes } from 'node:crypto';
import { appendChange } from '../changes/change-log.js';
import { forgetWithheld, restoreText, withholdText } from '../changes/withholding.js';
import { isoNow } from '../clock.js';
import type { Deps } from '../deps.js';
import { DomainError, forbidden, invalid, notFound } from '../errors.js';
import { enqueueMail, issueToken } from '../mail/mail.service.js';
import { liveToken, spendToken } from '../mail/mail.store.js';
import { scrubFreedSpace } from '../privacy/erasure.store.js';
import { sha256 } from '../tokens.js';
import { type ItemFacts, WITHHELD_TABLES, loadItem, restoreWithheld, withholdField } from './items.store.js';
import * as store from './moderation.store.js';
import {
  appealUntil,
  type Category,
  CATEGORIES,
  type DecisionType,
  type Ground,
  ITEM_FIELDS,
  type ItemRef,
  itemRefText,
  type ReportSource,
  standingAfterUnfounded,
} from './rules.js';
import { removedText } from './withheld-text.js';

export interface ReportInput {
  item: ItemRef;
  category: Category;
  explanation: string;
  notifier_name?: string | null | undefined;
  notifier_email?: string | null | undefined;
  good_faith: boolean;
  locale: string;
}

export interface ReportReceipt {
  id: number;
  reference: string;
  source: ReportSource;
  created_at: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The key a notifier's standing is kept under: their account, else their address's hash; null if neither. */
const notifierKey = (accountId: number | null, email: string | null): string | null =>
  accountId !== null ? `account:${accountId}` : email ? `email:${sha256(email.trim().toLowerCase())}` : null;

class ReportingSuspended extends DomainError {
  constructor(until: string) {
    super('forbidden', `Reporting is suspended for this notifier until ${until}, after notices found manifestly unfounded`, [{ field: 'notifier', message: `suspended until ${until}` }]);
  }
}

/** A notice (Art. 16): anyone may send one; an account's notice is tied to it, a trusted flagger's read first. */
export async function submitReport(deps: Deps, input: ReportInput, callerAccountId: number | null): Promise<ReportReceipt> {
  if (!input.good_faith) throw invalid('good_faith', 'must be true: confirm that the notice is accurate and complete, in good faith');
  if (!(CATEGORIES as readonly string[]).includes(input.category)) throw invalid('category', 'is not one of the categories');
  const explanation = input.explanation.trim();
  if (explanation.length < 10) throw invalid('explanation', 'say why the text is unlawful or against the terms, in 10 characters or more');
  const email = input.notifier_email?.trim() || null;
  if (email !== null && !EMAIL.test(email)) throw invalid('notifier_email', 'is not an e-mail address');
  const name = input.notifier_name?.trim() || null;
  const now = isoNow(deps.clock);
  const receipt = await deps.db.transaction().execute(async (trx) => {
    const item = await loadItem(trx, input.item);
    if (!item) throw notFound('Item');
    const key = notifierKey(callerAccountId, email);
    if (key) {
      const standing = await store.standingOf(trx, key);
      if (standing?.suspended_until && standing.suspended_until > now) throw new ReportingSuspended(standing.suspended_until);
    }
    const flagger = callerAccountId !== null ? await store.trustedFlagger(trx, callerAccountId) : undefined;
    const source: ReportSource = flagger ? 'trusted_flagger' : callerAccountId !== null ? 'account' : 'anonymous';
    const reference = `R-${randomBytes(8).toString('base64url').replace(/[-_]/g, 'x').slice(0, 10).toUpperCase()}`;
    const id = await store.insertReport(trx, {
      reference,
      item_kind: input.item.kind,
      item_id: input.item.id,
      field: input.item.field,
      category: input.category,
      explanation,
      notifier_name: name,
      notifier_email: email,
      notifier_account_id: callerAccountId,
      source,
      good_faith: 1,
      locale: input.locale,
      status: 'open',
      created_at: now,
    });
    await mailNotifier(trx, deps, { accountId: callerAccountId, email }, 'report_received', { reference, item: itemRefText(input.item), category: input.category, received_at: now }, now);
    return { id, reference, source, created_at: now };
  });
  return receipt;
}

/** Mail owed to a notifier: to their account, or to the address they gave (through the shared mail account). */
async function mailNotifier(
  trx: Parameters<typeof enqueueMail>[0],
  deps: Deps,
  n: { accountId: number | null; email: string | null },
  kind: 'report_received' | 'statement_of_reasons',
  fact: Record<string, string | number | null>,
  now: string,
): Promise<void> {
  if (n.accountId !== null) {
    await enqueueMail(trx, deps, { accountId: n.accountId, kind, fact });
  } else if (n.email) {
    await enqueueMail(trx, deps, { accountId: await store.notifierMailAccount(trx, now), kind, fact, to: n.email });
  }
}

export interface DecisionInput {
  type: (typeof import('./rules.js').DECISION_TYPES)[number];
  ground: Ground;
  legal_reference?: string | null | undefined;
  terms_clause?: string | null | undefined;
  facts: string;
  category?: Category | undefined;
  /** The notices were manifestly unfounded (Art. 23): their notifiers are warned, then suspended. */
  unfounded?: boolean | undefined;
}

export interface DecisionView {
  id: number;
  type: DecisionType;
  item: ItemRef;
  category: string;
  ground: string;
  legal_reference: string | null;
  terms_clause: string | null;
  facts: string;
  automated: boolean;
  decided_at: string;
  appeal_until: string | null;
  appeal_of: number | null;
  log_seq: number | null;
}

export const presentDecision = (d: store.DecisionRow): DecisionView => ({
  id: d.id,
  type: d.type as DecisionType,
  item: { kind: d.item_kind as ItemRef['kind'], id: d.item_id, field: d.field },
  category: d.category,
  ground: d.ground,
  legal_reference: d.legal_reference,
  terms_clause: d.terms_clause,
  facts: d.facts,
  automated: d.automated === 1,
  decided_at: d.decided_at,
  appeal_until: d.appeal_until,
  appeal_of: d.appeal_of,
  log_seq: d.log_seq,
});

function checkStatement(input: DecisionInput): void {
  if (input.ground === 'illegal' && !input.legal_reference?.trim()) throw invalid('legal_reference', 'is required when the ground is that the text is illegal');
  if (input.ground === 'incompatible' && !input.terms_clause?.trim()) throw invalid('terms_clause', 'is required when the ground is the terms');
  if (input.facts.trim().length < 10) throw invalid('facts', 'state the facts and circumstances the decision rests on, in 10 characters or more');
}

/** Account suspensions last this long unless an appeal lifts them. */
const ACCOUNT_SUSPENSION_DAYS = 90;

/**
 * An operator decides a report (and every open report on the same item). Restricting or removing takes the text out
 * of every row, keeps it in withheld_texts, and appends the decision's entry; the person whose text it was and each
 * notifier get the statement of reasons by mail, with the link to appeal.
 */
export async function decideReport(deps: Deps, operatorId: number, reportId: number, input: DecisionInput): Promise<DecisionView> {
  checkStatement(input);
  const now = isoNow(deps.clock);
  const decision = await deps.db.transaction().execute(async (trx) => {
    if (!(await store.isOperator(trx, operatorId))) throw forbidden('Only operators decide reports');
    const report = await store.reportById(trx, reportId);
    if (!report) throw notFound('Report');
    if (report.status !== 'open') throw new DomainError('already_decided', 'This report is decided already', [{ field: 'report', message: 'is decided' }]);
    const ref: ItemRef = { kind: report.item_kind as ItemRef['kind'], id: report.item_id, field: report.field };
    const item = await loadItem(trx, ref);
    if (!item) throw notFound('Item');
    if (input.type === 'restrict_field' && !ref.field) throw invalid('type', 'the report names the whole item: choose remove the item instead');
    if (input.type === 'suspend_account' && item.accountId === null) throw invalid('type', 'this item is a publisher’s: there is no account to suspend');
    const reports = await store.openReportsOnItem(trx, ref.kind, ref.id);
    const logWithheld: { seq: number; pointer: string }[] = [];
    const category = input.category ?? (report.category as Category);
    const id = await store.insertDecision(trx, {
      item_kind: ref.kind,
      item_id: ref.id,
      field: input.type === 'remove_item' ? null : ref.field,
      type: input.type,
      category,
      ground: input.ground,
      legal_reference: input.legal_reference?.trim() || null,
      terms_clause: input.terms_clause?.trim() || null,
      facts: input.facts.trim(),
      automated: 0,
      operator_id: operatorId,
      affected_account_id: item.accountId,
      page_id: item.pageId,
      appeal_of: null,
      decided_at: now,
      appeal_until: appealUntil(now),
    });
    if (input.type === 'restrict_field' || input.type === 'remove_item') {
      const fields = input.type === 'remove_item' ? [...ITEM_FIELDS[ref.kind]] : [ref.field!];
      const by = removedText(deps.config.siteUrl, category, id);
      const kept = [];
      for (const f of fields) {
        kept.push(...(await withholdField(trx, item, f, by)));
        logWithheld.push(...(await withholdText(trx, { kind: ref.kind, id: ref.id, field: f }, id, now)));
      }
      await store.insertWithheld(trx, id, kept, appealUntil(now));
    } else if (input.type === 'suspend_account') {
      await store.suspendAccount(trx, item.accountId!, id, new Date(new Date(now).getTime() + ACCOUNT_SUSPENSION_DAYS * 86_400_000).toISOString());
    }
    const unfounded = input.type === 'no_action' && input.unfounded === true;
    await store.settleReports(trx, reports.map((r) => r.id), id, now, unfounded);
    let suspendedNotifiers = 0;
    if (unfounded) {
      for (const r of reports) {
        const key = notifierKey(r.notifier_account_id, r.notifier_email);
        if (!key) continue;
        const before = (await store.standingOf(trx, key)) ?? { unfounded: 0, warned_at: null };
        const after = standingAfterUnfounded(before, now);
        if (after.suspended_until) suspendedNotifiers++;
        await store.saveStanding(trx, key, after, now);
      }
    }
    const row = (await store.decisionById(trx, id))!;
    const seq = await appendDecisionEntry(trx, item, row, { reports, appealedAt: null, suspendedNotifiers, withheld: logWithheld });
    await store.setDecisionSeq(trx, id, seq);
    for (const r of reports) {
      const fact = statementFact(deps, row, 'notifier', r.reference);
      // A notifier without an account appeals through a link good once, until the window closes (Art. 20).
      if (r.notifier_account_id === null && r.notifier_email) {
        const hours = Math.ceil((Date.parse(row.appeal_until!) - Date.parse(now)) / 3_600_000);
        const token = await issueToken(trx, deps, await store.notifierMailAccount(trx, now), 'appeal', hours, appealTokenSubject(row.id, r.id));
        fact.appeal = `${fact.appeal}?token=${token}`;
      }
      await mailNotifier(trx, deps, { accountId: r.notifier_account_id, email: r.notifier_email }, 'statement_of_reasons', fact, now);
    }
    if (item.accountId !== null && input.type !== 'no_action') {
      await enqueueMail(trx, deps, { accountId: item.accountId, kind: 'statement_of_reasons', fact: statementFact(deps, row, 'affected', null) });
    }
    return { ...row, log_seq: seq };
  });
  await deps.changes.committed();
  return presentDecision(decision);
}

/**
 * A suspended account (a decision of type suspend_account) may sign in, read, leave and appeal; every other write is
 * refused (docs/decisions/reports-and-decisions.md). Checked by every surface before a write runs.
 */
export async function refuseIfSuspended(deps: Deps, accountId: number): Promise<void> {
  const until = await store.suspendedUntil(deps.db, accountId, isoNow(deps.clock));
  if (until) {
    throw new DomainError('account_suspended', `This account is suspended until ${until} by a decision on a report; it can read, sign out, leave and appeal the decision`, [
      { field: 'account', message: `suspended until ${until}` },
    ]);
  }
}

/** The fields a restriction took: its own field, or every field of a removed item. */
const fieldsOf = (d: store.DecisionRow): string[] => (d.field ? [d.field] : [...ITEM_FIELDS[d.item_kind as ItemRef['kind']]]);

const statementFact = (deps: Deps, d: store.DecisionRow, role: 'notifier' | 'affected', reference: string | null) => ({
  role,
  reference,
  decision: d.type,
  category: d.category,
  ground: d.ground,
  decided_at: d.decided_at,
  link: `${deps.config.siteUrl}/decisions/${d.id}`,
  appeal: `${deps.config.siteUrl}/decisions/${d.id}/appeal`,
});

/**
 * The decision's entry in the change log, in the transaction that made it. Its ids and the page's address make the
 * follower and the purger drop exactly the answers the item showed in (records, embeds, lookups, the extension's
 * bucket, the profile and the directory for a person's text).
 */
async function appendDecisionEntry(
  trx: Parameters<typeof appendChange>[0],
  item: ItemFacts,
  d: store.DecisionRow,
  extra: { reports: store.ReportRow[]; appealedAt: string | null; suspendedNotifiers: number; withheld: { seq: number; pointer: string }[] },
): Promise<number> {
  return appendChange(trx, {
    kind: 'moderation.decided',
    ids: { pageId: item.pageId, accountId: item.accountId, publisherId: item.publisherId, ...(item.panelSlug ? { panelId: item.panelSlug } : {}) },
    data: {
      decision: {
        id: d.id,
        type: d.type,
        item: { kind: d.item_kind, id: d.item_id, field: d.field },
        category: d.category,
        ground: d.ground,
        legal_reference: d.legal_reference,
        terms_clause: d.terms_clause,
        automated: d.automated === 1,
        decided_at: d.decided_at,
        appeal_of: d.appeal_of,
        appealed_at: extra.appealedAt,
        // What the counts need of each notice it settles; never who sent it or what it said.
        reports: extra.reports.map((r) => ({ category: r.category, source: r.source, received_at: r.created_at })),
        notifiers_suspended: extra.suspendedNotifiers,
      },
      // Which entries' text this decision withheld (the log's own record of it: a verifier sees why it is gone).
      withheld: extra.withheld,
      ...(item.pageUrl ? { page: { url: item.pageUrl } } : {}),
    },
    now: d.decided_at,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Appeals (Art. 20): within six months, by the person whose text it was or a notifier; decided by another operator.

export async function appeal(deps: Deps, accountId: number, decisionId: number, explanation: string): Promise<{ id: number; created_at: string }> {
  const text = checkAppealText(explanation);
  const now = isoNow(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
    const d = await store.decisionById(trx, decisionId);
    if (!d || d.appeal_of !== null) throw notFound('Decision');
    const notifier = (await store.reportsOnItem(trx, d.item_kind, d.item_id)).some((r) => r.decision_id === d.id && r.notifier_account_id === accountId);
    const appellant = d.affected_account_id === accountId ? 'affected' : notifier ? 'notifier' : null;
    // Anyone else sees no decision to appeal: the same answer as a decision that does not exist.
    if (!appellant) throw notFound('Decision');
    return insertAppealChecked(trx, d, { account_id: accountId, appellant, explanation: text }, now);
  });
}

/** What the link in an anonymous notifier's statement names: the decision, and their report on it. */
const appealTokenSubject = (decisionId: number, reportId: number) => `appeal:${decisionId}:${reportId}`;

function checkAppealText(explanation: string): string {
  const text = explanation.trim();
  if (text.length < 10) throw invalid('explanation', 'say why the decision should change, in 10 characters or more');
  return text;
}

async function insertAppealChecked(trx: Parameters<typeof store.insertAppeal>[0], d: store.DecisionRow, who: { account_id: number | null; appellant: string; explanation: string }, now: string) {
  if (d.appeal_until && d.appeal_until < now) throw forbidden(`The time to appeal this decision ended on ${d.appeal_until}`);
  if ((await store.appealsOf(trx, d.id)).some((a) => a.decided_at === null)) throw new DomainError('conflict', 'An appeal of this decision is waiting already');
  const id = await store.insertAppeal(trx, { decision_id: d.id, ...who, created_at: now });
  return { id, created_at: now };
}

/** Is this the live appeal link of this decision (the page shows the form only then)? */
export async function appealLinkIsLive(deps: Deps, decisionId: number, token: string): Promise<boolean> {
  const link = await liveToken(deps.db, 'appeal', sha256(token), isoNow(deps.clock));
  return link?.email?.startsWith(`appeal:${decisionId}:`) === true;
}

/**
 * A notifier without an account appeals through the link in their statement's mail: the link is spent in the
 * appeal's transaction (good once; a refused appeal leaves it unspent), and names the decision it is for.
 */
export async function appealByLink(deps: Deps, decisionId: number, token: string, explanation: string): Promise<{ id: number; created_at: string }> {
  const text = checkAppealText(explanation);
  const now = isoNow(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
    const link = await spendToken(trx, 'appeal', sha256(token), now);
    const m = /^appeal:([0-9]+):([0-9]+)$/.exec(link?.email ?? '');
    if (!m || Number(m[1]) !== decisionId) throw new DomainError('forbidden', 'This appeal link is used, expired or for another decision', [{ field: 'token', message: 'is not a live appeal link of this decision' }]);
    const d = await store.decisionById(trx, decisionId);
    if (!d || d.appeal_of !== null) throw notFound('Decision');
    return insertAppealChecked(trx, d, { account_id: null, appellant: 'notifier', explanation: text }, now);
  });
}

export interface AppealDecisionInput {
  outcome: 'upheld' | 'reversed';
  facts: string;
}

/** Another operator than the first decides the appeal; reversing restores what was withheld, with a new statement. */
export async function decideAppeal(deps: Deps, operatorId: number, appealId: number, input: AppealDecisionInput): Promise<DecisionView> {
  if (input.facts.trim().length < 10) throw invalid('facts', 'state why, in 10 characters or more');
  const now = isoNow(deps.clock);
  const decision = await deps.db.transaction().execute(async (trx) => {
    if (!(await store.isOperator(trx, operatorId))) throw forbidden('Only operators decide appeals');
    const a = await store.appealById(trx, appealId);
    if (!a) throw notFound('Appeal');
    if (a.decided_at !== null) throw new DomainError('already_decided', 'This appeal is decided already');
    const first = (await store.decisionById(trx, a.decision_id))!;
    if (first.operator_id === operatorId) {
      throw new DomainError('forbidden', 'Another operator must decide this appeal: you took the decision it contests', [{ field: 'operator', message: 'decided the first time' }]);
    }
    const ref: ItemRef = { kind: first.item_kind as ItemRef['kind'], id: first.item_id, field: first.field };
    const item = await loadItem(trx, ref);
    if (!item) throw notFound('Item');
    const reversed = input.outcome === 'reversed';
    const id = await store.insertDecision(trx, {
      item_kind: first.item_kind,
      item_id: first.item_id,
      field: first.field,
      type: reversed ? 'restore' : 'upheld',
      category: first.category,
      ground: first.ground,
      legal_reference: first.legal_reference,
      terms_clause: first.terms_clause,
      facts: input.facts.trim(),
      automated: 0,
      operator_id: operatorId,
      affected_account_id: first.affected_account_id,
      page_id: first.page_id,
      appeal_of: first.id,
      decided_at: now,
      appeal_until: null,
    });
    if (reversed) {
      await restoreWithheld(trx, first.id);
      for (const f of fieldsOf(first)) await restoreText(trx, { kind: ref.kind, id: ref.id, field: f }, first.id);
      await store.liftSuspension(trx, first.id);
    }
    await store.settleAppeal(trx, a.id, { decided_by: operatorId, decided_at: now, outcome: input.outcome, outcome_decision_id: id });
    const row = (await store.decisionById(trx, id))!;
    const seq = await appendDecisionEntry(trx, item, row, { reports: [], appealedAt: a.created_at, suspendedNotifiers: 0, withheld: [] });
    await store.setDecisionSeq(trx, id, seq);
    if (first.affected_account_id !== null) await enqueueMail(trx, deps, { accountId: first.affected_account_id, kind: 'statement_of_reasons', fact: statementFact(deps, row, 'affected', null) });
    for (const r of (await store.reportsOnItem(trx, first.item_kind, first.item_id)).filter((r) => r.decision_id === first.id)) {
      await mailNotifier(trx, deps, { accountId: r.notifier_account_id, email: r.notifier_email }, 'statement_of_reasons', statementFact(deps, row, 'notifier', r.reference), now);
    }
    return { ...row, log_seq: seq };
  });
  await deps.changes.committed();
  return presentDecision(decision);
}

/**
 * Delete withheld text whose appeal window has closed (no appeal waiting), then scrub the freed space as erasure
 * does (secure_delete and a WAL checkpoint; VACUUM FULL on PostgreSQL). Safe to run twice. Returns the rows deleted.
 */
export async function forgetExpiredWithheld(deps: Deps): Promise<number> {
  const rows = await store.expiredWithheld(deps.db, isoNow(deps.clock));
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => r.id);
  const decisions = [...new Set(rows.map((r) => r.decision_id))];
  await deps.db.transaction().execute(async (trx) => {
    for (let i = 0; i < ids.length; i += 500) await store.deleteWithheld(trx, ids.slice(i, i + 500));
    for (const id of decisions) {
      const d = await store.decisionById(trx, id);
      if (d) for (const f of fieldsOf(d)) await forgetWithheld(trx, { kind: d.item_kind as ItemRef['kind'], id: d.item_id, field: f });
    }
  });
  await scrubFreedSpace(deps.db, WITHHELD_TABLES);
  return ids.length;
}

// ---------------------------------------------------------------------------------------------------------------
// Reads for the operators' pages and the public decision page.

export const queue = (deps: Deps, limit = 100) => store.openReports(deps.db, limit);
export const openAppeals = (deps: Deps) => store.openAppeals(deps.db);

export async function reportDetail(deps: Deps, reportId: number) {
  const report = await store.reportById(deps.db, reportId);
  if (!report) throw notFound('Report');
  const ref: ItemRef = { kind: report.item_kind as ItemRef['kind'], id: report.item_id, field: report.field };
  const item = await loadItem(deps.db, ref);
  const earlierReports = (await store.reportsOnItem(deps.db, ref.kind, ref.id)).filter((r) => r.id !== report.id);
  const decisions = (await store.decisionsOnItem(deps.db, ref.kind, ref.id)).map(presentDecision);
  const key = notifierKey(report.notifier_account_id, report.notifier_email);
  const standing = key ? ((await store.standingOf(deps.db, key)) ?? null) : null;
  const notifierReports = await store.reportsByNotifier(deps.db, report.notifier_account_id, report.notifier_email);
  const flagger = report.notifier_account_id !== null ? await store.trustedFlagger(deps.db, report.notifier_account_id) : undefined;
  return {
    report,
    ref,
    item,
    earlierReports,
    decisions,
    notifier: {
      standing,
      reports: notifierReports.length,
      unfounded: notifierReports.filter((r) => r.unfounded === 1).length,
      trustedFlagger: flagger?.organisation ?? null,
    },
  };
}

export async function appealDetail(deps: Deps, appealId: number) {
  const a = await store.appealById(deps.db, appealId);
  if (!a) throw notFound('Appeal');
  const d = (await store.decisionById(deps.db, a.decision_id))!;
  return { appeal: a, decision: presentDecision(d), operatorId: d.operator_id };
}

/** A decision as the public sees it: the statement of reasons, never the notifier or the withheld text. */
export async function publicDecision(deps: Deps, id: number): Promise<DecisionView & { appeals: { created_at: string; outcome: string | null }[] }> {
  const d = await store.decisionById(deps.db, id);
  if (!d) throw notFound('Decision');
  const appeals = (await store.appealsOf(deps.db, id)).map((a) => ({ created_at: a.created_at, outcome: a.outcome }));
  return { ...presentDecision(d), appeals };
}

/** May this account appeal the decision (the page shows the form only then)? */
export async function canAppeal(deps: Deps, accountId: number, decisionId: number): Promise<boolean> {
  const d = await store.decisionById(deps.db, decisionId);
  if (!d || d.appeal_of !== null) return false;
  if (d.appeal_until && d.appeal_until < isoNow(deps.clock)) return false;
  if (d.affected_account_id === accountId) return true;
  return (await store.reportsOnItem(deps.db, d.item_kind, d.item_id)).some((r) => r.decision_id === d.id && r.notifier_account_id === accountId);
}

export const trustedFlaggers = (deps: Deps) => store.listTrustedFlaggers(deps.db);
export async function markTrustedFlagger(deps: Deps, operatorId: number, username: string, organisation: string): Promise<void> {
  const a = await store.accountByUsername(deps.db, username.trim().toLowerCase());
  if (!a) throw invalid('username', 'no account has this username');
  if (organisation.trim().length < 2) throw invalid('organisation', 'name the organisation the flagger acts for');
  await store.addTrustedFlagger(deps.db, { account_id: a.id, organisation: organisation.trim(), added_by: operatorId, created_at: isoNow(deps.clock) });
}
export const unmarkTrustedFlagger = async (deps: Deps, accountId: number) => {
  await store.removeTrustedFlagger(deps.db, accountId);
};
