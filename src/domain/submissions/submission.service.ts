// Submitted work (SPEC §4): pending → accepted / rejected / withdrawn. Accepting creates the public contribution
// and fulfils the request; rejecting or withdrawing reopens it. Every move writes its event in its transaction.
import { enqueueMails } from '../mail/mail.service.js';
import { assertConfirmed } from '../accounts/account.service.js';
import { DomainError, conflict, forbidden, invalid, invalidUrl, notFound } from '../errors.js';
import { holdings, holdsHost } from '../publishers/holding.js';
import { verifiedDomainsOf } from '../publishers/publisher.store.js';
import { flagCitingStatements } from '../panels/review-flags.js';
import { assertNoInterestIn, interestsOf } from '../interests/interest.service.js';
import { assertNotAuthorOf } from '../consent/conflicts.js';
import { type BatchItem, type ItemResult, applyEach } from '../batch.js';
import { isoNow } from '../clock.js';
import type { Db, Deps } from '../deps.js';
import { appendChanges, type Change } from '../changes/change-log.js';
import { linkContributions } from '../transparency/log.store.js';
import { appendEvent, appendEvents } from '../events/outbox.js';
import { findPageById, findPageByLookupKey } from '../pages/page.store.js';
import { parsePageUrl, parseSourceUrl } from '../pages/url-keys.js';
import { moveRequest, findRequest } from '../requests/request.store.js';
import { acceptedWork, applyReputationChanges, rejectedWork, type ReputationChange, workPositions } from '../reputation/reputation.store.js';
import type { WorkKind } from '../work-kinds.js';
import * as store from './submission.store.js';
import { type Verdict, VERDICTS, verdictValue } from './verdicts.js';

export interface Evidence {
  before?: string | undefined;
  after?: string | undefined;
  reason: string;
  sources: string[];
}

/** A passage of the page the work is about (a W3C TextQuoteSelector). */
export interface Quote {
  exact: string;
  prefix?: string | undefined;
  suffix?: string | undefined;
}

export interface SubmissionInput {
  url?: string | undefined;
  article_ref_id?: number | undefined;
  role?: WorkKind | undefined;
  request_id?: number | undefined;
  summary: string;
  evidence: Evidence;
  quote?: Quote | undefined;
  /** Fact checks: the claim checked and the verdict on it, given together or not at all. */
  claim_reviewed?: string | undefined;
  verdict?: Verdict | undefined;
}

async function resolveTarget(deps: Deps, accountId: number, input: SubmissionInput) {
  let page = null;
  if (input.url !== undefined) {
    const url = parsePageUrl(input.url);
    if (!url) throw invalidUrl();
    page = await findPageByLookupKey(deps.db, url.lookupKey);
    if (!page) throw notFound('A registered page for this URL');
  } else if (input.article_ref_id !== undefined) {
    page = await findPageById(deps.db, input.article_ref_id);
    if (!page) throw notFound(`Page ${input.article_ref_id}`);
  }
  if (input.request_id === undefined) {
    if (!page) throw new DomainError('missing_parameter', 'url, article_ref_id or request_id is required', [{ field: 'url', message: 'url, article_ref_id or request_id is required' }]);
    if (!input.role) throw new DomainError('missing_parameter', 'role is required without a request_id', [{ field: 'role', message: 'is required without a request_id' }]);
    return { page, request: null, kind: input.role };
  }
  const request = await findRequest(deps.db, input.request_id);
  if (!request) throw notFound(`Request ${input.request_id}`);
  if (request.status !== 'taken' || request.taken_by !== accountId) {
    throw conflict(`Request ${request.id} is ${request.status === 'taken' ? 'taken by someone else' : request.status}; take it before submitting work on it`);
  }
  if (page && page.id !== request.page_id) throw invalid('request_id', 'the request is about another page');
  if (input.role && input.role !== request.kind) throw invalid('role', `the request asks for ${request.kind}`);
  const requestPage = page ?? (await findPageById(deps.db, request.page_id))!;
  return { page: requestPage, request, kind: request.kind };
}

function checkClaim(kind: WorkKind, input: SubmissionInput): void {
  const claim = input.claim_reviewed?.trim();
  if (claim === undefined && input.verdict === undefined) return;
  if (kind !== 'fact_check') throw invalid(claim !== undefined ? 'claim_reviewed' : 'verdict', 'only a fact check carries a claim and a verdict');
  if (!claim) throw invalid('claim_reviewed', 'a verdict needs the claim it is about');
  if (input.verdict === undefined) throw invalid('verdict', `a claim needs a verdict: ${VERDICTS.join(', ')}`);
}

const SOURCE_PROBLEMS = {
  not_http: 'must be an http or https URL',
  credentials: 'must not carry a user name or password (sources are public)',
  too_long: 'must be at most 2048 characters, once percent-encoded',
} as const;

/** The evidence checked, its sources as they are stored and answered (`parseSourceUrl`: one rule for a source). */
function checkEvidence(kind: WorkKind, e: Evidence): Evidence {
  if (kind === 'correction') {
    if (!e.before?.trim()) throw invalid('evidence.before', 'a correction needs the text before');
    if (!e.after?.trim()) throw invalid('evidence.after', 'a correction needs the text after');
  }
  const sources = e.sources.map((s, i) => {
    const parsed = parseSourceUrl(s);
    if ('problem' in parsed) throw invalid(`evidence.sources.${i}`, SOURCE_PROBLEMS[parsed.problem]);
    return parsed.url;
  });
  return { ...e, sources };
}

/**
 * The sources of a stored submission as answers carry them: each written by the rule of `parseSourceUrl`. Rows
 * stored before that rule may hold a source as it was sent (`https://e.example/a b`); it is answered in
 * its WHATWG serialisation, percent-encoded, and one no parser reads as an http(s) URL is left out: an answer never
 * carries a `uri` that is not one (docs/decisions/source-urls.md).
 */
export function storedSources(json: string | null): string[] {
  const out: string[] = [];
  for (const s of JSON.parse(json ?? '[]') as unknown[]) {
    const parsed = parseSourceUrl(s);
    if ('url' in parsed) out.push(parsed.url);
  }
  return out;
}

export async function submitWork(deps: Deps, accountId: number, items: BatchItem<SubmissionInput>[]): Promise<ItemResult[]> {
  await assertConfirmed(deps.db, accountId);
  return applyEach(items, async (input) => {
    const { page, request, kind } = await resolveTarget(deps, accountId, input);
    // A declared interest in the publication rules its pages out.
    await assertNoInterestIn(deps.db, accountId, page.publisher_id);
    // Nor does anyone check a page they are named an author of.
    await assertNotAuthorOf(deps.db, accountId, page.id, kind);
    const evidence = checkEvidence(kind, input.evidence);
    checkClaim(kind, input);
    if (input.quote && !input.quote.exact.trim()) throw invalid('quote.exact', 'must not be empty');
    const now = isoNow(deps.clock);
    const id = await deps.db.transaction().execute(async (trx) => {
      // Work on a page its publication no longer holds (the domain moved away) could never be decided: refused, in
      // the transaction, so that a move committed meanwhile is seen (docs/decisions/domain-verification.md).
      const held = (await verifiedDomainsOf(trx, [page.publisher_id])).get(page.publisher_id) ?? [];
      if (!holdsHost(held, page.host)) {
        const field = input.request_id !== undefined ? 'request_id' : input.url !== undefined ? 'url' : 'article_ref_id';
        throw new DomainError('conflict', `${page.host} is no longer a verified site of the page's publication, so nobody can decide work on this page`, [
          { field, message: 'the page is unverified: its domain moved to another publication' },
        ]);
      }
      const submissionId = await store.insertSubmission(trx, {
        page_id: page.id,
        publisher_id: page.publisher_id,
        account_id: accountId,
        request_id: request?.id ?? null,
        kind,
        summary: input.summary.trim(),
        before_text: input.evidence.before ?? null,
        after_text: input.evidence.after ?? null,
        reason: input.evidence.reason.trim(),
        sources: evidence.sources,
        quote_exact: input.quote?.exact ?? null,
        quote_prefix: input.quote?.prefix || null,
        quote_suffix: input.quote?.suffix || null,
        claim: input.claim_reviewed?.trim() || null,
        verdict: input.verdict !== undefined ? verdictValue(input.verdict) : null,
        now,
      });
      const row = (await store.findSubmission(trx, submissionId))!;
      await appendEvent(trx, { type: 'contribution.submitted', publisherId: page.publisher_id, pageId: page.id, payload: submissionFacts(row), now });
      await appendEvent(trx, { type: 'submission.received', publisherId: page.publisher_id, pageId: page.id, payload: submissionFacts(row), now });
      return submissionId;
    });
    return { status: 'created', id, url: page.url };
  });
}

/** What the events of a submission carry; each webhook surface shapes its own payload from it. */
function submissionFacts(s: store.SubmissionRow) {
  return {
    submission: {
      id: s.id,
      kind: s.kind,
      status: s.status,
      summary: s.summary,
      request_id: s.request_id,
      evidence: { before: s.before_text, after: s.after_text, reason: s.reason, sources: storedSources(s.sources) },
    },
    contributor: { username: s.username, name: s.name },
    page: { id: s.page_id, url: s.page_url, title: s.page_title },
  };
}

/** The change-log entry of accepted work: only what the public record shows (no reason, no sources, no note). */
/** Work the person submitted and the publication accepted: agreed by submitting. */
const SUBMITTED = { asserted_by: 'contributor', consent: 'submitted' } as const;

function acceptedEntry(s: store.SubmissionRow, contributionId: number, now: string) {
  return {
    page: { id: s.page_id, url: s.page_url, title: s.page_title },
    publisher: { slug: s.publisher_slug, name: s.publisher_name },
    contribution: {
      id: contributionId,
      role: s.kind,
      summary: s.summary,
      accepted_at: now,
      change: s.kind === 'correction' && s.before_text !== null && s.after_text !== null ? { from: s.before_text, to: s.after_text } : undefined,
      provenance: SUBMITTED,
    },
    contributor: { username: s.username, name: s.name },
  };
}

export async function getOwnSubmission(deps: Deps, accountId: number, id: number) {
  const s = await store.findSubmission(deps.db, id);
  if (!s || s.account_id !== accountId) throw notFound('Submission');
  return s;
}

export const listOwnSubmissions = (deps: Deps, accountId: number, status: store.SubmissionRow['status'] | undefined, page: number, perPage: number) =>
  store.listOwnSubmissions(deps.db, accountId, status, perPage, (page - 1) * perPage);

/** A publication's inbox, each submission with its contributor's declared interests (Seen before deciding). */
export async function listInbox(deps: Deps, publisherIds: number[], status: store.SubmissionRow['status'] | undefined, page: number, perPage: number) {
  const { rows, total } = await store.listInbox(deps.db, publisherIds, status, perPage, (page - 1) * perPage);
  const held = await interestsOf(deps.db, [...new Set(rows.map((r) => r.account_id))]);
  return { total, rows: rows.map((r) => ({ ...r, interests: held.filter((i) => i.account_id === r.account_id) })) };
}

const alreadyDecided = (s: { id: number; status: string }) =>
  new DomainError('already_decided', `Submission ${s.id} is already ${s.status}`);

/** Give a request back to the market when the work on it did not go through. */
async function reopenRequest(trx: Db, requestId: number | null, accountId: number, now: string): Promise<void> {
  if (requestId === null) return;
  await moveRequest(trx, requestId, ['taken'], { status: 'open', taken_by: null, taken_at: null, updated_at: now }, accountId);
}

export async function withdrawSubmission(deps: Deps, accountId: number, id: number) {
  const now = isoNow(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
    const s = await store.findSubmission(trx, id);
    if (!s || s.account_id !== accountId) throw notFound('Submission');
    if (!(await store.settleSubmission(trx, id, { status: 'withdrawn', decided_by: null, decision_note: null, now }))) throw alreadyDecided(s);
    await reopenRequest(trx, s.request_id, accountId, now);
    await appendEvent(trx, {
      type: 'contribution.withdrawn',
      publisherId: s.publisher_id,
      pageId: s.page_id,
      payload: submissionFacts({ ...s, status: 'withdrawn' }),
      now,
    });
  });
  return getOwnSubmission(deps, accountId, id);
}

/**
 * Withdraw every pending submission of a person who is being erased, inside the erasing transaction:
 * their requests go back to the market and each publisher is told, the event naming `shownAs` (the former
 * contributor) instead of them, since it is written after they asked to be forgotten.
 */
export async function withdrawAllPending(trx: Db, accountId: number, shownAs: { username: string; name: string }, now: string): Promise<number> {
  const { rows: pending } = await store.listOwnSubmissions(trx, accountId, 'pending', 10_000, 0);
  for (const s of pending) {
    if (!(await store.settleSubmission(trx, s.id, { status: 'withdrawn', decided_by: null, decision_note: null, now }))) continue;
    await reopenRequest(trx, s.request_id, accountId, now);
    const facts = submissionFacts({ ...s, status: 'withdrawn' });
    await appendEvent(trx, {
      type: 'contribution.withdrawn',
      publisherId: s.publisher_id,
      pageId: s.page_id,
      payload: { ...facts, submission: { ...facts.submission, summary: '', evidence: { before: null, after: null, reason: '', sources: [] } }, contributor: shownAs },
      now,
    });
  }
  return pending.length;
}

export interface DecisionInput {
  submission_id: number;
  decision: 'accept' | 'reject';
  note?: string | undefined;
}

/**
 * Decide a batch in one transaction: each decision is atomic with its contribution, request move, outbox event and
 * the contributor's reputation because they all commit together. A decision that fails (not found, own work,
 * already decided) writes nothing: the conditional move of the submissions (only from `pending`) is the first write
 * and its guard. Reads, moves and inserts are one statement per kind for the batch, and reputation moves once per
 * contributor by the change (SPEC §13), so the cost does not grow with anyone's history.
 */
export async function decide(deps: Deps, deciderId: number, publisherIds: number[], items: BatchItem<DecisionInput>[]): Promise<ItemResult[]> {
  const now = isoNow(deps.clock);
  const results = await deps.db.transaction().execute(async (trx) => {
    const found = await store.findSubmissions(trx, [...new Set(items.flatMap((i) => (i.ok ? [i.value.submission_id] : [])))]);
    type Found = NonNullable<ReturnType<typeof found.get>>;
    // First pass: the checks that need no write; the first decision on a submission in the batch is the one tried.
    const tried = new Map<number, { input: DecisionInput; s: Found }>();
    const assertHeld = await holdings(trx, publisherIds);
    const checked = await applyEach(items, async (input) => {
      const s = found.get(input.submission_id);
      // Work on another publisher's page is indistinguishable from work that does not exist.
      if (!s || !publisherIds.includes(s.publisher_id)) throw notFound(`Submission ${input.submission_id}`);
      // A publication decides only on pages whose domain it holds now (a domain moved away takes its pages' work).
      assertHeld(s.publisher_id, s.page_host);
      if (s.account_id === deciderId) throw forbidden('Nobody decides their own submission');
      const earlier = tried.get(s.id);
      if (earlier) throw alreadyDecided({ id: s.id, status: earlier.input.decision === 'accept' ? 'accepted' : 'rejected' });
      if (s.status !== 'pending') throw alreadyDecided(s);
      // Named an author since submitting: the work cannot join the record as a check of their own page.
      if (input.decision === 'accept') await assertNotAuthorOf(trx, s.account_id, s.page_id, s.kind, 'contributor');
      tried.set(s.id, { input, s: { ...s } });
      return { status: 'updated', id: s.id, contributionId: null };
    });
    const moved = await store.settleSubmissions(
      trx,
      [...tried.values()].map(({ input, s }) => ({
        id: s.id,
        status: input.decision === 'accept' ? ('accepted' as const) : ('rejected' as const),
        decided_by: deciderId,
        decision_note: input.note?.trim() || null,
      })),
      now,
    );
    const accepted: Found[] = [];
    const changes: ReputationChange[] = [];
    // Each acceptance's place among its person's work for the publication (SPEC §13's diminishing returns).
    const accepting = [...tried.values()].filter(({ input }) => input.decision === 'accept');
    const position = await workPositions(trx, accepting.map(({ s }) => ({ accountId: s.account_id, publisherId: s.publisher_id })));
    for (const { input, s } of tried.values()) {
      if (!moved.has(s.id)) continue; // decided by a concurrent call since it was read
      s.status = input.decision === 'accept' ? 'accepted' : 'rejected';
      if (s.status === 'accepted') {
        accepted.push(s);
        changes.push(acceptedWork(s.account_id, s.kind, s.page_topic, position(s.account_id, s.publisher_id)));
        if (s.request_id !== null) await moveRequest(trx, s.request_id, ['taken', 'open'], { status: 'fulfilled', updated_at: now });
      } else {
        changes.push(rejectedWork(s.account_id));
        await reopenRequest(trx, s.request_id, s.account_id, now);
      }
    }
    // Each submitter hears of the decision; a publication's decisions within a few minutes go as one mail.
    await enqueueMails(
      trx,
      deps,
      [...tried.values()].flatMap(({ s }) =>
        moved.has(s.id)
          ? [{ accountId: s.account_id, kind: 'submission_decided' as const, thread: `publisher:${s.publisher_id}`, fact: { url: s.page_url, decision: s.status, link: `${deps.config.siteUrl}/me/submissions` } }]
          : [],
      ),
    );
    const contributionIds = await store.insertContributions(
      trx,
      accepted.map((s) => ({
        page_id: s.page_id,
        account_id: s.account_id,
        role: s.kind,
        summary: s.summary,
        change_from: s.kind === 'correction' ? s.before_text : null,
        change_to: s.kind === 'correction' ? s.after_text : null,
        submission_id: s.id,
        quote_exact: s.quote_exact,
        quote_prefix: s.quote_prefix,
        quote_suffix: s.quote_suffix,
        claim: s.claim,
        verdict: s.verdict,
        page_hash: s.page_content_hash,
      })),
      now,
    );
    await appendEvents(
      trx,
      accepted.map((s) => ({
        type: 'contribution.accepted' as const,
        publisherId: s.publisher_id,
        pageId: s.page_id,
        payload: {
          ...submissionFacts(s),
          contribution: {
            id: contributionIds.get(s.id)!,
            role: s.kind,
            accepted_at: now,
            change: s.kind === 'correction' ? { from: s.before_text, to: s.after_text } : null,
          },
        },
        now,
      })),
    );
    const contributorEntries = await applyReputationChanges(trx, changes, now);
    // An accepted correction flags the panel statements citing its page.
    const flagEntries: Change[] = [];
    for (const s of accepted) {
      if (s.kind !== 'correction') continue;
      const key = parsePageUrl(s.page_url)?.lookupKey;
      if (key) flagEntries.push(...(await flagCitingStatements(trx, { id: s.page_id, lookupKey: key }, 'source_corrected', `/proofs/${contributionIds.get(s.id)!}`, now)));
    }
    // The change log last: its lock is held to commit, so it is taken after every other write.
    const seqs = await appendChanges(trx, [
      ...accepted.map(
        (s): Change => ({
          kind: 'contribution.accepted',
          ids: { pageId: s.page_id, accountId: s.account_id, publisherId: s.publisher_id },
          data: acceptedEntry(s, contributionIds.get(s.id)!, now),
          now,
        }),
      ),
      ...contributorEntries,
      ...flagEntries,
    ]);
    // Each record links to its entry in the transparency log: the first seqs, in order.
    await linkContributions(trx, accepted.map((s, i) => ({ contributionId: contributionIds.get(s.id)!, seq: seqs[i]! })));
    return checked.map((r): ItemResult => {
      if (r.status === 'failed') return r;
      const t = tried.get(r.id!)!;
      if (!moved.has(r.id!)) return { index: r.index, status: 'failed', error: alreadyDecided({ id: r.id!, status: 'decided' }) };
      const contributionId = contributionIds.get(r.id!) ?? null;
      return { index: r.index, status: t.s.status === 'accepted' ? 'created' : 'updated', id: r.id!, contributionId };
    });
  });
  // Records show accepted work and every contributor's trust and level: refresh them after the commit.
  // Apply the entries of these commits to this process's cache now (read-your-writes), and wake the others.
  if (results.some((r) => r.status !== 'failed')) await deps.changes.committed();
  return results;
}
