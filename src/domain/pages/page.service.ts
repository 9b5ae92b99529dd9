// Registering pages and reading their trust records (SPEC §3, §9).
import { invalid, invalidUrl, conflict, notFound, pageNotVerified } from '../errors.js';
import { findAccountIdsByUsernames } from '../accounts/account.store.js';
import { type BatchItem, type ItemResult, applyEach } from '../batch.js';
import { appendChange, type PublicPublisher } from '../changes/change-log.js';
import { linkContribution } from '../transparency/log.store.js';
import { isoNow } from '../clock.js';
import type { Deps } from '../deps.js';
import { appendEvent } from '../events/outbox.js';
import { findPublicPublisher, verifiedDomainsOf } from '../publishers/publisher.store.js';
import { recomputeReputation } from '../reputation/reputation.store.js';
import { recordTags, tag } from './cache-tags.js';
import * as store from './page.store.js';
import { type PageRecord, buildRecords } from './record.js';
import { hostUnderDomain, type PageUrl, parsePageUrl } from './url-keys.js';
import { applyVersion, type NewVersion } from './drift.js';
import { contentHashOf } from './page-text.js';

export interface PageInput {
  url: string;
  title?: string;
  topic?: string;
  authors?: string[];
  /** The page's version, as sha256 of its normalised text (docs/decisions.md, "Page versions"). */
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

export async function registerPages(deps: Deps, publisherId: number, items: BatchItem<PageInput>[]): Promise<ItemResult[]> {
  const domains = (await verifiedDomainsOf(deps.db, [publisherId])).get(publisherId) ?? [];
  const publisher = await findPublicPublisher(deps.db, publisherId);
  const usernames = [...new Set(items.flatMap((i) => (i.ok ? (i.value.authors ?? []).map((u) => u.toLowerCase()) : [])))];
  const authorIds = await findAccountIdsByUsernames(deps.db, usernames);
  let changed = false;
  const results = await applyEach(items, async (input) => {
    const url = parsePageUrl(input.url);
    if (!url) throw invalidUrl();
    if (!domains.some((d) => hostUnderDomain(url.host, d))) throw pageNotVerified(url.host);
    const authors = (input.authors ?? []).map((u, i) => {
      const id = authorIds.get(u.toLowerCase());
      if (id === undefined) throw invalid(`authors.${i}`, `no account is called ${u}`);
      return id;
    });
    const version = await versionOf(deps, url.url, input);
    const r = await upsertPage(deps, publisherId, publisher, url, input, authors, version);
    if (r.status !== 'skipped') changed = true;
    return r;
  });
  if (changed) await deps.changes.committed();
  return results;
}

async function upsertPage(
  deps: Deps,
  publisherId: number,
  publisher: PublicPublisher,
  url: PageUrl,
  input: PageInput,
  authors: number[],
  version: NewVersion | null,
) {
  const now = isoNow(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
    const existing = await store.findPageForUpsert(trx, url.lookupKey);
    if (existing && existing.publisher_id !== publisherId) {
      throw conflict(`${url.lookupKey} is registered to another publisher`);
    }
    let id: number;
    let status: 'created' | 'updated' | 'skipped';
    let page = { title: input.title?.trim() ?? '', topic: input.topic?.trim().toLowerCase() ?? '' };
    if (!existing) {
      id = await store.insertPage(trx, {
        publisher_id: publisherId,
        url: url.url,
        lookup_key: url.lookupKey,
        embed_key: url.embedKey,
        host: url.host,
        ...page,
        content_hash: version?.hash ?? null,
        now,
      });
      status = 'created';
    } else {
      id = existing.id;
      // Fields left out keep their value: a CMS may send only what it knows.
      const title = input.title?.trim() ?? existing.title;
      const topic = input.topic?.trim().toLowerCase() ?? existing.topic;
      page = { title, topic };
      status = title !== existing.title || topic !== existing.topic ? 'updated' : 'skipped';
      if (status === 'updated') await store.updatePage(trx, publisherId, id, { title, topic, updated_at: now });
      // A new version of the text is a change of the record (the work on it may now be out of date).
      if (version && (await applyVersion(trx, { id, publisherId, url: url.url, title, previousHash: existing.content_hash }, version, publisher, now))) {
        if (status === 'skipped') status = 'updated';
      }
    }
    const known = existing ? await store.authorIdsOf(trx, id) : new Set<number>();
    const newAuthors = [...new Set(authors)].filter((a) => !known.has(a));
    const authorships: { id: number; accountId: number }[] = [];
    for (const accountId of newAuthors) {
      authorships.push({ id: await store.insertAuthor(trx, { page_id: id, account_id: accountId, summary: 'Wrote this page', now }), accountId });
    }
    if (newAuthors.length > 0) {
      await recomputeReputation(trx, newAuthors, now);
      if (status === 'skipped') status = 'updated';
    }
    const publicPage = { id, url: url.url, ...page };
    if (status === 'created') {
      await appendEvent(trx, {
        type: 'page.registered',
        publisherId,
        pageId: id,
        payload: { page_id: id, url: url.url, title: input.title?.trim() ?? '', topic: input.topic?.trim().toLowerCase() ?? '' },
        now,
      });
    }
    if (status !== 'skipped') await appendChange(trx, { kind: status === 'created' ? 'page.registered' : 'page.updated', ids: { pageId: id, publisherId }, data: { page: publicPage, publisher }, now });
    for (const a of authorships) {
      const seq = await appendChange(trx, { kind: 'contribution.accepted', ids: { pageId: id, accountId: a.accountId, publisherId }, data: { page: { id, url: url.url, title: page.title }, publisher, contribution: { id: a.id, role: 'author', summary: 'Wrote this page', accepted_at: now }, contributor: await store.findPublicContributorName(trx, a.accountId) }, now });
      // The record links to its entry in the transparency log (issue 12).
      await linkContribution(trx, a.id, seq);
    }
    return { status, id, url: url.url };
  });
}

/** The record of the page a URL names, or null when no page is registered for it. */
export async function lookupByUrl(deps: Deps, rawUrl: string): Promise<{ url: PageUrl; record: PageRecord | null }> {
  const url = parsePageUrl(rawUrl);
  if (!url) throw invalidUrl();
  const record = await deps.recordCache.getOrLoad(`lookup:${url.lookupKey}`, async (track) => {
    const page = await store.findPageByLookupKey(deps.db, url.lookupKey);
    const built = page ? ((await buildRecords(deps.db, [page]))[0] ?? null) : null;
    track(built ? recordTags(built) : [tag.lookup(url.lookupKey)]);
    return built;
  });
  return { url, record };
}

export async function recordById(deps: Deps, id: number): Promise<PageRecord> {
  const record = await deps.recordCache.getOrLoad(`id:${id}`, async (track) => {
    const page = await store.findPageById(deps.db, id);
    const built = page ? ((await buildRecords(deps.db, [page]))[0] ?? null) : null;
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
    const records = await buildRecords(deps.db, await store.findPagesByEmbedKey(deps.db, url.embedKey));
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
