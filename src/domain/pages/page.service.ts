// Registering pages and reading their trust records (SPEC §3, §9).
import { enqueueMails } from '../mail/mail.service.js';
import { invalid, invalidUrl, conflict, notFound } from '../errors.js';
import { findAccountIdsByUsernames } from '../accounts/account.store.js';
import { isUniqueViolation } from '../../db/errors.js';
import { type BatchItem, type ItemOutcome, type ItemResult, type ItemStatus, applyEach, nextTurn, slicer } from '../batch.js';
import { isoNow } from '../clock.js';
import type { Db, Deps } from '../deps.js';
import { appendEvents } from '../events/outbox.js';
import { eventsForPeopleAsked } from '../events/own-webhooks.js';
import { publisherWithDomains } from '../publishers/publisher.store.js';
import { assertHeldIn } from '../publishers/holding.js';
import { appendChangesFrom, type Change, type PublicContributor, type PublicPublisher, takeSeqs } from '../changes/change-log.js';
import { acceptedWork, applyReputationChanges, recomputeReputation, type ReputationChange, workPositions } from '../reputation/reputation.store.js';
import { recordTags, tag } from './cache-tags.js';
import * as store from './page.store.js';
import { type PageRecord, buildRecords, loadRecords } from './record.js';
import { type PageUrl, parsePageUrl } from './url-keys.js';
import { applyVersion, type NewVersion } from './drift.js';
import { contentHashOf } from './page-text.js';
import { authorshipEntry, authorshipEvent, type ClaimLimits, Namings, type NamingStatus } from '../consent/consent.service.js';
import { insertClaims } from '../consent/consent.store.js';

export interface PageInput {
  url: string;
  title?: string;
  topic?: string;
  authors?: string[];
  /** The page's version, as sha256 of its normalised text (docs/decisions/page-versions-and-drift.md). */
  content_hash?: string;
  /** The page's text: hashed, checked against the page's corrections, never stored. */
  text?: string;
  /** Let the service fetch the page to learn its text (verified domains only). */
  fetch?: boolean;
}

/** The version an item brings, if any: its hash, and the text when known. Fetching happens here, outside any transaction. */
async function versionOf(deps: Deps, url: string, input: PageInput): Promise<NewVersion | null> {
  const given = [input.content_hash !== undefined, input.text !== undefined, input.fetch === true].filter(Boolean).length;
  if (given > 1) throw invalid(input.content_hash !== undefined ? 'content_hash' : 'fetch', 'give one of content_hash, text or fetch');
  if (input.content_hash !== undefined) {
    if (!/^[0-9a-f]{64}$/.test(input.content_hash)) throw invalid('content_hash', 'must be the lower-case hex sha256 of the normalised text');
    return { hash: input.content_hash, text: null };
  }
  if (input.text !== undefined) return { hash: contentHashOf(input.text), text: input.text };
  if (input.fetch) {
    const fetched = await deps.pageFetcher.fetchText(url);
    if (fetched.text === null) throw invalid('fetch', `could not fetch the page: ${fetched.error ?? 'no text'}`);
    return { hash: contentHashOf(fetched.text), text: fetched.text };
  }
  return null;
}

/** A registration item that passed the checks that need no transaction. */
interface Checked {
  index: number;
  url: PageUrl;
  title: string | undefined;
  topic: string | undefined;
  authors: number[];
  /** The authors as the call named them, in the order of `authors`. */
  authorNames: string[];
  /** The page version the item brings (content hash, text or fetch), or null. */
  version: NewVersion | null;
}

export async function registerPages(deps: Deps, publisherId: number, items: BatchItem<PageInput>[]): Promise<ItemResult[]> {
  const { publisher, domains } = await publisherWithDomains(deps.db, publisherId);
  const usernames = [...new Set(items.flatMap((i) => (i.ok ? (i.value.authors ?? []).map((u) => u.toLowerCase()) : [])))];
  const authorIds = await findAccountIdsByUsernames(deps.db, usernames);
  const checked: Checked[] = [];
  const results = await applyEach(items, async (input, index) => {
    const url = parsePageUrl(input.url);
    if (!url) throw invalidUrl();
    assertHeldIn(domains, url.host);
    const authors = (input.authors ?? []).map((u, i) => {
      const id = authorIds.get(u.toLowerCase());
      if (id === undefined) throw invalid(`authors.${i}`, `no account is called ${u}`);
      return id;
    });
    const version = await versionOf(deps, url.url, input);
    checked.push({ index, url, title: input.title?.trim(), topic: input.topic?.trim().toLowerCase(), authors, authorNames: (input.authors ?? []).map((u) => u.toLowerCase()), version });
    return { status: 'skipped' }; // placeholder, replaced below by the item's outcome
  });
  if (checked.length === 0) return results;
  const now = isoNow(deps.clock);
  let outcomes: Map<number, ItemOutcome>;
  try {
    // The whole batch in one transaction and a handful of statements: the cost of a registration does not grow
    // with the batch's statements or with its authors' history.
    outcomes = await deps.db.transaction().execute((trx) => upsertPages(trx, publisherId, publisher, checked, now, deps.config.claimLimits, deps));
  } catch (err) {
    // A concurrent registration of one of these URLs (PostgreSQL) won the unique key: redo the batch item by item,
    // each in its own transaction, so only the item that really collides fails.
    if (!isUniqueViolation(err) || checked.length === 1) throw err;
    outcomes = new Map();
    for (const item of checked) {
      try {
        const one = await deps.db.transaction().execute((trx) => upsertPages(trx, publisherId, publisher, [item], now, deps.config.claimLimits, deps));
        outcomes.set(item.index, one.get(item.index)!);
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        outcomes.set(item.index, { status: 'failed', error: conflict(`${item.url.lookupKey} was registered at the same moment by another call`) });
      }
    }
  }
  const out = results.map((r) => (outcomes.has(r.index) ? { index: r.index, ...outcomes.get(r.index)! } : r));
  // A large batch's commit, the follower's read of its entries and the answer are each one piece of work: a turn of
  // the event loop between them, so other requests are not held back by all three at once.
  const large = checked.length > 50;
  if (large) await nextTurn();
  // Apply these commits' change-log entries to this process's cache now (read-your-writes), and wake the others.
  if (out.some((r) => r.status === 'created' || r.status === 'updated')) await deps.changes.committed();
  if (large) await nextTurn();
  return out;
}

/**
 * Upsert checked items in order, as if one by one: a URL twice in a batch is created by the first and updated or
 * skipped by the next. Reads are one query per kind for the batch; writes are multi-row; reputation moves once per
 * author by the change (SPEC §13), never by recounting history.
 */
async function upsertPages(
  trx: Db,
  publisherId: number,
  publisher: PublicPublisher,
  items: Checked[],
  now: string,
  claimLimits: ClaimLimits,
  mail: Pick<Deps, 'clock' | 'config' | 'dialect'>,
): Promise<Map<number, ItemOutcome>> {
  // Each step below is one statement over the whole batch, and on SQLite a statement runs within the call: a pause
  // between steps (once 10 ms of work have passed) lets other requests in while the transaction is held.
  const slice = slicer();
  const existing = new Map((await store.findPagesForUpsert(trx, [...new Set(items.map((i) => i.url.lookupKey))])).map((p) => [p.lookup_key, p]));
  await slice();
  const before = await store.contributorsOfPages(trx, [...existing.values()].map((p) => p.id));
  await slice();
  interface State {
    id: number | null; // null until inserted
    original: { title: string; topic: string } | null;
    url: string;
    /** The content hash set by an earlier item of this batch (undefined: as stored). */
    hash?: string | null;
    title: string;
    topic: string;
    authors: Set<number>;
  }
  const pages = new Map<string, State>();
  for (const p of existing.values()) {
    const authors = new Set(before.filter((c) => c.page_id === p.id && c.role === 'author').map((c) => c.account_id));
    pages.set(p.lookup_key, { id: p.id, original: { title: p.title, topic: p.topic }, url: p.url, title: p.title, topic: p.topic, authors });
  }
  const outcomes = new Map<number, ItemOutcome>();
  // Naming an author is a claim until the person confirms it: decided here against stored claims and
  // the person's standing answer to this publication; only what is published counts below.
  const namings = await Namings.load(trx, publisherId, [...existing.values()].map((p) => p.id), [...new Set(items.flatMap((i) => i.authors))], now, claimLimits);
  await slice();
  const decided = new Map<string, NamingStatus>();
  const created: { index: number; key: string; row: store.NewPageRow }[] = [];
  const newAuthors: { key: string; accountId: number }[] = [];
  // Change-log entries, item by item as if sent one by one (docs/changes.md): the page as that item left it.
  const pageEntries: { key: string; kind: 'page.registered' | 'page.updated'; title: string; topic: string; url: string }[] = [];
  for (const item of items) {
    await slice();
    const key = item.url.lookupKey;
    const found = existing.get(key);
    if (found && found.publisher_id !== publisherId) {
      outcomes.set(item.index, { status: 'failed', error: conflict(`${key} is registered to another publisher`) });
      continue;
    }
    let state = pages.get(key);
    let status: ItemStatus;
    if (!state) {
      state = { id: null, original: null, url: item.url.url, title: item.title ?? '', topic: item.topic ?? '', authors: new Set() };
      pages.set(key, state);
      created.push({
        index: item.index,
        key,
        row: { publisher_id: publisherId, url: item.url.url, lookup_key: key, embed_key: item.url.embedKey, host: item.url.host, title: state.title, topic: state.topic, content_hash: item.version?.hash ?? null },
      });
      status = 'created';
    } else {
      // Fields left out keep their value: a CMS may send only what it knows.
      const title = item.title ?? state.title;
      const topic = item.topic ?? state.topic;
      status = title !== state.title || topic !== state.topic ? 'updated' : 'skipped';
      state.title = title;
      state.topic = topic;
      // A new version of the text of a known page is a change of the record (the work on it may be out of date).
      if (item.version && state.id !== null && found) {
        const previousHash = state.hash === undefined ? found.content_hash : state.hash;
        if (await applyVersion(trx, { id: state.id, publisherId, url: state.url, title, previousHash }, item.version, publisher, now)) {
          if (status === 'skipped') status = 'updated';
        }
        state.hash = item.version.hash;
      }
    }
    let added = false;
    const authors: { username: string; status: string }[] = [];
    item.authors.forEach((accountId, i) => {
      const pair = `${key}:${accountId}`;
      let naming = decided.get(pair);
      if (naming === undefined) {
        naming = state.authors.has(accountId) ? 'published' : namings.decide(key, state.id, accountId);
        decided.set(pair, naming);
        if (naming === 'published' && !state.authors.has(accountId)) {
          state.authors.add(accountId);
          newAuthors.push({ key, accountId });
          added = true;
        }
      }
      authors.push({ username: item.authorNames[i]!, status: naming });
    });
    // Only a published authorship changes the public record; a claim waits unseen.
    if (added && status === 'skipped') status = 'updated';
    outcomes.set(item.index, { status, url: item.url.url, ...(authors.length ? { authors } : {}) });
    if (status !== 'skipped') {
      pageEntries.push({ key, kind: status === 'created' ? 'page.registered' : 'page.updated', title: state.title, topic: state.topic, url: state.url });
    }
  }

  // A URL created and then updated within the batch is inserted as it ends; its event says what it was created as.
  await slice();
  const ids = await store.insertPages(
    trx,
    created.map((c) => ({ ...c.row, title: pages.get(c.key)!.title, topic: pages.get(c.key)!.topic })),
    now,
  );
  const idOf = (key: string) => pages.get(key)!.id ?? ids.get(key)!;
  for (const c of created) outcomes.get(c.index)!.id = ids.get(c.key)!;
  for (const item of items) {
    const o = outcomes.get(item.index)!;
    if (o.status !== 'failed' && o.id === undefined) o.id = idOf(item.url.lookupKey);
  }
  await slice();
  const claimIds = await insertClaims(
    trx,
    namings.claims.map((c) => ({ page_id: idOf(c.key), publisher_id: publisherId, account_id: c.accountId, state: c.state })),
    now,
  );
  // Each person named and asked hears of it: a publication's namings within a few minutes go as one mail, and each
  // is an event for their own webhooks.
  const asked = namings.claims.flatMap((c, i) => (c.state === 'pending' ? [{ ...c, claimId: claimIds[i]! }] : []));
  await slice();
  await enqueueMails(
    trx,
    mail,
    asked.map((c) => ({
      accountId: c.accountId,
      kind: 'named_on_page' as const,
      thread: `publisher:${publisherId}`,
      fact: { publisher: publisher.name, url: pages.get(c.key)!.url, link: `${mail.config.siteUrl}/me/names` },
    })),
  );
  await slice();
  await eventsForPeopleAsked(
    trx,
    asked.map((c) => {
      const p = pages.get(c.key)!;
      return { accountId: c.accountId, publisherId, facts: { claim_id: c.claimId, role: 'author' as const, page: { id: idOf(c.key), url: p.url, title: p.title }, publisher } };
    }),
    now,
  );
  // The page's accepted work now counts towards its new topic: its people are recounted once everything is written
  // (each work's weight depends on its place among the person's work for this publication, SPEC §13).
  const moved = new Set<number>();
  for (const [, p] of pages) {
    if (!p.original || (p.original.title === p.title && p.original.topic === p.topic)) continue;
    await slice();
    await store.updatePage(trx, publisherId, p.id!, { title: p.title, topic: p.topic, updated_at: now });
    if (p.original.topic !== p.topic) for (const c of before) if (c.page_id === p.id) moved.add(c.account_id);
  }
  await slice();
  const position = await workPositions(trx, newAuthors.map((a) => ({ accountId: a.accountId, publisherId })));
  const changes: ReputationChange[] = newAuthors.map((a) => acceptedWork(a.accountId, 'author', pages.get(a.key)!.topic, position(a.accountId, publisherId)));
  const contributors = new Map<number, PublicContributor>();
  const contributorEntries = await applyReputationChanges(trx, changes, now, contributors);
  await slice();
  await appendEvents(
    trx,
    created.map((c) => ({
      type: 'page.registered' as const,
      publisherId,
      pageId: ids.get(c.key)!,
      payload: { page_id: ids.get(c.key)!, url: c.row.url, title: c.row.title, topic: c.row.topic },
      now,
    })),
  );
  // The change log last: its lock is held to commit, so it is taken after every other write but the authorships,
  // which are written under it already linked to their entries in the transparency log: the first seqs,
  // in order. (Written earlier, each would need an update once its seq was known.)
  if (newAuthors.length + pageEntries.length + contributorEntries.length + moved.size === 0) return outcomes; // nothing changed
  await slice();
  const first = await takeSeqs(trx);
  const authorshipIds = await store.insertAuthors(
    trx,
    newAuthors.map((a, i) => ({ page_id: idOf(a.key), account_id: a.accountId, summary: 'Wrote this page', log_seq: first + i, consent: 'standing_permission' as const })),
    now,
  );
  // Published now only by a standing permission of the person's (a confirmation publishes on its own path).
  await slice();
  await appendEvents(
    trx,
    newAuthors.map((a) => {
      const pageId = idOf(a.key);
      const p = pages.get(a.key)!;
      const authorship = { pageId, url: p.url, title: p.title, topic: p.topic, accountId: a.accountId };
      return authorshipEvent(authorship, publisherId, authorshipIds.get(`${pageId}:${a.accountId}`)!, 'standing_permission', contributors.get(a.accountId)!, now);
    }),
  );
  const authorshipEntries = newAuthors.map((a): Change => {
    const pageId = idOf(a.key);
    const p = pages.get(a.key)!;
    // Every new author's reputation moved just now, so its public fields are at hand.
    const authorship = { pageId, url: p.url, title: p.title, topic: p.topic, accountId: a.accountId };
    return authorshipEntry(authorship, publisherId, publisher, authorshipIds.get(`${pageId}:${a.accountId}`)!, 'standing_permission', contributors.get(a.accountId)!, now);
  });
  const entries = [
    ...authorshipEntries,
    ...pageEntries.map((e): Change => ({
      kind: e.kind,
      ids: { pageId: idOf(e.key), publisherId },
      data: { page: { id: idOf(e.key), url: e.url, title: e.title, topic: e.topic }, publisher },
      now,
    })),
    ...contributorEntries,
  ];
  await slice();
  await appendChangesFrom(trx, first, entries);
  if (moved.size > 0) await recomputeReputation(trx, [...moved], now);
  return outcomes;
}

/** The record of the page a URL names, or null when no page is registered for it. */
export async function lookupByUrl(deps: Deps, rawUrl: string): Promise<{ url: PageUrl; record: PageRecord | null }> {
  const url = parsePageUrl(rawUrl);
  if (!url) throw invalidUrl();
  const record = await deps.recordCache.getOrLoad(`lookup:${url.lookupKey}`, async (track) => {
    const built = (await loadRecords(deps.read, 'lookup', url.lookupKey))[0] ?? null;
    track(built ? recordTags(built) : [tag.lookup(url.lookupKey)]);
    return built;
  });
  return { url, record };
}

export async function recordById(deps: Deps, id: number): Promise<PageRecord> {
  const record = await deps.recordCache.getOrLoad(`id:${id}`, async (track) => {
    const built = (await loadRecords(deps.read, 'id', id))[0] ?? null;
    track(built ? recordTags(built) : [tag.page(id)]);
    return built;
  });
  if (!record) throw notFound('Page');
  return record;
}

export async function listPages(deps: Deps, publisherId: number, page: number, perPage: number) {
  const [total, rows] = await Promise.all([
    store.countPublisherPages(deps.db, publisherId),
    store.listPublisherPages(deps.db, publisherId, perPage, (page - 1) * perPage),
  ]);
  return { total, records: await buildRecords(deps.db, rows) };
}

/**
 * The record an embed shows for a URL, matched by the embed key (scheme, `www.`, trailing slash, query and
 * fragment ignored). Of several pages with that key, the one with the newest accepted contribution wins.
 */
export async function recordByEmbedUrl(deps: Deps, rawUrl: string): Promise<PageRecord | null> {
  const url = parsePageUrl(rawUrl);
  if (!url) throw invalidUrl();
  return deps.recordCache.getOrLoad(`embed:${url.embedKey}`, async (track) => {
    const records = await loadRecords(deps.read, 'embed', url.embedKey);
    // The winner depends on every page sharing the key, and on pages that may join it.
    track([tag.embed(url.embedKey), ...records.flatMap(recordTags)]);
    const newest = (r: PageRecord) => r.contributions.reduce((m, c) => (c.accepted_at > m ? c.accepted_at : m), '');
    return records.sort((a, b) => newest(b).localeCompare(newest(a)))[0] ?? null;
  });
}

/** The record with the most accepted work (the embed demo shows it). */
export async function busiestRecord(deps: Deps): Promise<PageRecord | null> {
  const page = await store.findBusiestPage(deps.db);
  return page ? ((await buildRecords(deps.db, [page]))[0] ?? null) : null;
}
