// Expert panel statements (SPEC §14): admins create a statement and issue its versions; anyone reads any version.
// Versions are immutable: issuing n+1 supersedes n, fires `panel.updated` and recomputes the standing of the
// panellists of both, all in one transaction.
import { isUniqueViolation } from '../../db/errors.js';
import { DomainError, type ErrorDetail, conflict, invalid, notFound } from '../errors.js';
import { findAccountIdsByUsernames } from '../accounts/account.store.js';
import { normaliseTopic } from '../accounts/rules.js';
import { isoNow } from '../clock.js';
import type { Db, Deps } from '../deps.js';
import { appendChange } from '../changes/change-log.js';
import { linkPanelVersion } from '../transparency/log.store.js';
import { appendEvent } from '../events/outbox.js';
import { recomputeReputation } from '../reputation/reputation.store.js';
import type { Certainty, PanelVote, ReopenTrigger, StatementContentInput, StatementInput, VersionInput } from './panel.schema.js';
import * as store from './panel.store.js';
import { parsePageUrl, parseSourceUrl } from '../pages/url-keys.js';
import { REVISIT_DUE } from './review-flags.js';
import { type Changes, type CitedContent, type StatementContent, changesBetween, contradictions, entry, normaliseContent } from './rules.js';

/** One version of a statement, as presenters receive it. */
export interface StatementView {
  /** The statement's public id. */
  id: string;
  /** Its row id: what a report names (`panel:<statement_id>:question`). */
  statement_id: number;
  version: number;
  current_version: number;
  status: 'issued' | 'superseded';
  issued_at: string;
  content: StatementContent;
  /** The change-log entry that published this version (transparency log index = log_seq − 1); null before the log. */
  log_seq: number | null;
  /** The pages it cites, by URL. */
  sources: string[];
  /** Why it needs review: flags raised on this version (a cited page moved), and a passed revisit date. */
  review: { reason: string; source: string | null; link: string | null; flagged_at: string }[];
}

/** Content checked and ready to write: the contradictions refused, each linked username turned into its account. */
interface Prepared {
  content: StatementContent;
  accountIds: (number | null)[];
  sources: { url: string; lookup_key: string }[];
}

async function prepare(deps: Deps, input: StatementContentInput, now: string): Promise<Prepared> {
  const content = normaliseContent(input);
  const problems = contradictions(content, now.slice(0, 10));
  const usernames = content.panel.flatMap((p) => (p.username ? [p.username] : []));
  const ids = await findAccountIdsByUsernames(deps.db, [...new Set(usernames)]);
  const accountIds = content.panel.map((p, i) => {
    if (!p.username) return null;
    const id = ids.get(p.username);
    if (id === undefined) problems.push({ field: `panel.${i}.username`, message: `no account is called ${p.username}` });
    return id ?? null;
  });
  const sources = sourcesOf(input.sources, problems);
  if (problems.length > 0) {
    const first = problems[0]!;
    throw new DomainError('invalid_request', `${first.field}: ${first.message}`, problems);
  }
  return { content, accountIds, sources };
}

/** The cited pages as stored: each URL by the rule for a source, a page cited twice (one lookup key) kept once. */
function sourcesOf(raw: readonly string[] | undefined, problems: ErrorDetail[] = []): Prepared['sources'] {
  const sources: Prepared['sources'] = [];
  (raw ?? []).forEach((text, i) => {
    const parsed = parseSourceUrl(text.trim());
    const key = 'url' in parsed ? parsePageUrl(parsed.url)?.lookupKey : undefined;
    if (!('url' in parsed) || !key) problems.push({ field: `sources.${i}`, message: 'must be an http(s) URL without a user name or password' });
    else if (!sources.some((s) => s.lookup_key === key)) sources.push({ url: parsed.url, lookup_key: key });
  });
  return sources;
}

const cited = (p: Prepared): CitedContent => ({ content: p.content, sources: p.sources.map((s) => s.url) });

async function writeVersion(trx: Db, statementId: number, version: number, p: Prepared, now: string): Promise<void> {
  const c = p.content;
  const versionId = await store.insertVersion(trx, {
    statement_id: statementId,
    version,
    topic: c.topic,
    question: c.question,
    answer: c.answer,
    certainty: c.certainty,
    vote_agree: c.vote.agree,
    vote_dissent: c.vote.dissent,
    revisit_by: c.revisit_by,
    reopen_triggers: c.reopen_triggers,
    issued_at: now,
  });
  await store.insertEntries(
    trx,
    versionId,
    c.panel.map((e, i) => ({ name: e.name, role: e.role, vote: e.vote, account_id: p.accountIds[i] ?? null })),
  );
  await store.insertSources(trx, versionId, p.sources);
}

/** `panel.updated`: facts only (the webhook presenter shapes the payload). Panels belong to no publisher or page. */
async function recordIssue(
  trx: Db,
  e: { slug: string; version: number; changes: Changes; next: StatementContent; now: string },
): Promise<void> {
  await appendEvent(trx, {
    type: 'panel.updated',
    publisherId: null,
    pageId: null,
    payload: {
      panel_id: e.slug,
      version: e.version,
      previous_version: e.version > 1 ? e.version - 1 : null,
      topic: e.next.topic,
      changes: e.changes,
    },
    now: e.now,
  });
  const seq = await appendChange(trx, { kind: 'panel.issued', ids: { panelId: e.slug }, data: { panel: { id: e.slug, version: e.version, topic: e.next.topic, question: e.next.question, issued_at: e.now } }, now: e.now });
  // The version links to its entry in the transparency log.
  await linkPanelVersion(trx, e.slug, e.version, seq);
}

const linked = (ids: (number | null)[]) => ids.filter((id): id is number => id !== null);

/** A new statement and its version 1. */
export async function createStatement(deps: Deps, input: StatementInput): Promise<StatementView> {
  const slug = input.id.toLowerCase();
  if (input.version !== undefined && input.version !== 1) throw invalid('version', 'a new statement starts at version 1');
  const now = isoNow(deps.clock);
  const prepared = await prepare(deps, input, now);
  try {
    await deps.db.transaction().execute(async (trx) => {
      const id = await store.insertStatement(trx, { slug, topic: prepared.content.topic, now });
      await writeVersion(trx, id, 1, prepared, now);
      await recomputeReputation(trx, linked(prepared.accountIds), now);
      await recordIssue(trx, { slug, version: 1, changes: changesBetween(null, cited(prepared)), next: prepared.content, now });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`A panel statement with id ${slug} already exists; issue its next version instead`);
    throw err;
  }
  // Levels appear in page records; panellists may have become experts.
  await deps.changes.committed();
  return getStatement(deps, slug, 1);
}

/**
 * Issue the next version. `input.version`, when given, must be the current version plus 1; left out, it is the
 * current version plus 1 as this call first reads it. Either way a version issued by someone else in between is a
 * 409: the unique index on (statement, version) decides between two calls that overlap.
 */
export async function issueVersion(deps: Deps, rawSlug: string, input: VersionInput): Promise<StatementView> {
  const slug = rawSlug.toLowerCase();
  const base = await store.findStatementBySlug(deps.db, slug);
  if (!base) throw notFound('Panel statement');
  const version = input.version ?? base.current_version + 1;
  const now = isoNow(deps.clock);
  const prepared = await prepare(deps, input, now);
  try {
    await deps.db.transaction().execute(async (trx) => {
      const current = await store.findVersion(trx, slug, undefined);
      if (!current) throw notFound('Panel statement');
      if (version !== current.version + 1) {
        throw conflict(`Version ${current.version} of ${slug} is current; the next version is ${current.version + 1}, not ${version}`);
      }
      const previousEntries = await store.listEntries(trx, [current.id]);
      const previousSources = (await store.listSources(trx, [current.id])).map((s) => s.url);
      const changes = changesBetween({ content: contentOf(current, previousEntries), sources: previousSources }, cited(prepared));
      if (Object.keys(changes).length === 0) {
        throw new DomainError('invalid_request', `Version ${version} would repeat version ${current.version} exactly; change at least one field`, [
          { field: '(body)', message: `repeats version ${current.version}` },
        ]);
      }
      // Supersede first: at most one version of a statement is `issued` at any moment (a partial unique index).
      await store.supersedeVersion(trx, current.statement_id, current.version);
      await writeVersion(trx, current.statement_id, version, prepared, now);
      const moved = await store.advanceStatement(trx, current.statement_id, {
        from: current.version,
        to: version,
        topic: prepared.content.topic,
        now,
      });
      if (!moved) throw conflict(`Version ${version} of ${slug} was issued by someone else just now`);
      // Panellists of the old version may lose their standing, those of the new one gain it.
      const previousIds = previousEntries.map((e) => e.account_id);
      await recomputeReputation(trx, [...linked(previousIds), ...linked(prepared.accountIds)], now);
      await recordIssue(trx, { slug, version, changes, next: prepared.content, now });
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw conflict(`Version ${version} of ${slug} was issued by someone else just now; read it, then issue the next version`);
    }
    throw err;
  }
  await deps.changes.committed();
  return getStatement(deps, slug, version);
}

/**
 * `credence panels:issue FILE.json`: create the statement, or issue its next version when the id exists. A file
 * whose content is already the current version changes nothing, so running the same file twice is harmless.
 */
export async function issueFromFile(
  deps: Deps,
  input: StatementInput,
): Promise<{ action: 'created' | 'issued' | 'unchanged'; statement: StatementView }> {
  const slug = input.id.toLowerCase();
  const current = await store.findVersion(deps.db, slug, undefined);
  if (!current) return { action: 'created', statement: await createStatement(deps, input) };
  const { id: _id, version, ...content } = input;
  if (version === undefined || version === current.version) {
    const [entries, sources] = await Promise.all([store.listEntries(deps.db, [current.id]), store.listSources(deps.db, [current.id])]);
    const issued = { content: contentOf(current, entries), sources: sources.map((s) => s.url) };
    // A source that is no URL is never the same: issuing the file then names its field.
    const problems: ErrorDetail[] = [];
    const asked = { content: normaliseContent(content), sources: sourcesOf(content.sources, problems).map((s) => s.url) };
    const same = problems.length === 0 && Object.keys(changesBetween(issued, asked)).length === 0;
    if (same) return { action: 'unchanged', statement: await getStatement(deps, slug, current.version) };
    if (version === current.version) {
      throw conflict(
        `Version ${version} of ${slug} is already issued with other content; set "version" to ${version + 1} (or leave it out) to issue the next one`,
      );
    }
  }
  return { action: 'issued', statement: await issueVersion(deps, slug, { ...content, ...(version !== undefined ? { version } : {}) }) };
}

/** One version of a statement; the current one when `version` is undefined. */
export async function getStatement(deps: Deps, rawSlug: string, version?: number): Promise<StatementView> {
  const slug = rawSlug.toLowerCase();
  const row = await store.findVersion(deps.db, slug, version);
  if (!row) {
    if (version !== undefined && (await store.findStatementBySlug(deps.db, slug))) {
      throw notFound(`Version ${version} of panel statement ${slug}`);
    }
    throw notFound('Panel statement');
  }
  return (await viewsOf(deps, [row], await store.listEntries(deps.db, [row.id])))[0]!;
}

/** Views of some versions with their sources and review flags (two queries for all of them). */
async function viewsOf(deps: Deps, rows: store.VersionRow[], entries: store.EntryRow[]): Promise<StatementView[]> {
  const ids = rows.map((r) => r.id);
  const [sources, flags] = await Promise.all([store.listSources(deps.db, ids), store.listFlags(deps.db, ids)]);
  const today = isoNow(deps.clock).slice(0, 10);
  return rows.map((r) => {
    const view = viewOf(r, entries.filter((e) => e.version_id === r.id));
    view.sources = sources.filter((s) => s.version_id === r.id).map((s) => s.url);
    view.review = flags
      .filter((f) => f.version_id === r.id)
      .map((f) => (f.reason === REVISIT_DUE ? { reason: f.reason, source: null, link: null, flagged_at: `${view.content.revisit_by}T00:00:00.000Z` } : { reason: f.reason, source: f.source_url, link: f.link, flagged_at: f.flagged_at }));
    // A passed revisit date flags the current version at once, from the date; `flagDueRevisits` stores and tells it.
    if (r.status === 'issued' && view.content.revisit_by < today && !view.review.some((f) => f.reason === REVISIT_DUE)) {
      view.review.push({ reason: REVISIT_DUE, source: null, link: null, flagged_at: `${view.content.revisit_by}T00:00:00.000Z` });
    }
    return view;
  });
}

/** Every version of a statement, oldest first; 404 for an unknown statement. */
export async function getStatementHistory(deps: Deps, rawSlug: string): Promise<StatementView[]> {
  const rows = await store.listVersionsOf(deps.db, rawSlug.toLowerCase());
  if (rows.length === 0) throw notFound('Panel statement');
  const entries = await store.listEntries(
    deps.db,
    rows.map((r) => r.id),
  );
  return viewsOf(deps, rows, entries);
}

/** Current versions, newest issue first; of one topic when `topic` is given. */
export async function listStatements(deps: Deps, opts: { topic?: string | undefined; page: number; perPage: number }) {
  const topic = opts.topic === undefined ? undefined : normaliseTopic(opts.topic);
  const [total, rows] = await Promise.all([
    store.countStatements(deps.db, topic),
    store.listCurrentVersions(deps.db, { topic, limit: opts.perPage, offset: (opts.page - 1) * opts.perPage }),
  ]);
  const entries = await store.listEntries(
    deps.db,
    rows.map((r) => r.id),
  );
  return { total, items: await viewsOf(deps, rows, entries) };
}

function contentOf(row: store.VersionRow, entries: store.EntryRow[]): StatementContent {
  return {
    topic: row.topic,
    question: row.question,
    answer: row.answer,
    // Only values the schema allowed were ever written.
    certainty: row.certainty as Certainty,
    vote: { agree: row.vote_agree, dissent: row.vote_dissent },
    panel: entries.map((e) => entry(e.name, e.role, e.vote as PanelVote, e.username)),
    revisit_by: row.revisit_by,
    reopen_triggers: JSON.parse(row.reopen_triggers) as ReopenTrigger[],
  };
}

function viewOf(row: store.VersionRow, entries: store.EntryRow[]): StatementView {
  return {
    id: row.slug,
    statement_id: row.statement_id,
    version: row.version,
    current_version: row.current_version,
    status: row.status,
    issued_at: row.issued_at,
    content: contentOf(row, entries),
    log_seq: row.log_seq === null ? null : Number(row.log_seq),
    sources: [],
    review: [],
  };
}
