// Stored reputation (SPEC §13). The counters (accepted and rejected counts, the contribution score, and per topic
// the weighted sum and the count of accepted work) are kept up to date by the change each write makes
// (`applyReputationChanges`), inside the writer's transaction; the derived figures (trust, level, authority) are
// then computed from those counters by the pure functions of scores.ts. A write therefore costs the same whatever
// the account's history. `recomputeReputation` recounts everything from the rows: the reference the incremental
// path is tested against, and the path for rare changes (profiles, panel membership).
import { FORMER_CONTRIBUTOR } from '../accounts/rules.js';
import { canonicalJson } from '../../db/canonical-json.js';
import { appendChange, type Change, type PublicContributor } from '../changes/change-log.js';
import type { Db } from '../../db/schema.js';
import { isPanellist, panellistOf } from '../panels/panel.store.js';
import { counted, independentSources, level, topicAuthority, trustScore } from './scores.js';

/** One account's change in counters. Topic '' (a page without a topic) counts towards no topic. */
export interface ReputationChange {
  accountId: number;
  accepted: number;
  rejected: number;
  /** Change in the contribution score (role weights). */
  score: number;
  topics: { topic: string; weight: number; accepted: number }[];
}

/**
 * Accepted work (a decision or a confirmed authorship), the `position`-th of its person's on its publication's pages
 * (`workPositions`): what it counts for, by SPEC §13's diminishing returns (`counted`), in its page's topic.
 */
export function acceptedWork(accountId: number, role: string, topic: string, position: number): ReputationChange {
  const c = counted(role, position);
  return {
    accountId,
    accepted: c.accepted,
    rejected: 0,
    score: c.weight,
    topics: topic && (c.weight !== 0 || c.accepted !== 0) ? [{ topic, weight: c.weight, accepted: c.accepted }] : [],
  };
}

/** The next position of a person's accepted work from a publication's source, for each work a call accepts in turn. */
export type Positions = (accountId: number, publisherId: number) => number;

/** How far the search for linked publications goes (publications in one source); past it, the rest are left out. */
const SOURCE_SEARCH_MAX = 10_000;
const CHUNK = 500;

/**
 * The sources of these publications (scores.ts `independentSources`): every publication linked to one of them,
 * directly or through others, by an account that is or was a member of both (`publisher_member_history`) or by
 * verified domains under one registrable domain, found by walking the links out from them. Returns each
 * publication's source and every publication of those sources.
 */
export async function sourcesOf(db: Db, publisherIds: number[]): Promise<{ sourceOf: (publisherId: number) => number; publications: number[] }> {
  const seenPubs = new Set(publisherIds);
  const seenVia = new Set<string>();
  const links: { publisher_id: number; via: string }[] = [];
  let frontier = [...seenPubs];
  const reach = (found: { publisher_id: number; via: string }[], next: number[]) => {
    links.push(...found);
    for (const l of found) {
      if (!seenPubs.has(l.publisher_id)) {
        seenPubs.add(l.publisher_id);
        next.push(l.publisher_id);
      }
    }
  };
  while (frontier.length > 0 && seenPubs.size < SOURCE_SEARCH_MAX) {
    const next: number[] = [];
    for (let i = 0; i < frontier.length; i += CHUNK) {
      const pubs = frontier.slice(i, i + CHUNK);
      // Accounts that are or were members of these publications, and every publication each of them joined.
      const members = await db.selectFrom('publisher_member_history').select('account_id').distinct().where('publisher_id', 'in', pubs).execute();
      const accounts = members.map((m) => m.account_id).filter((a) => !seenVia.has(`account:${a}`));
      for (const a of accounts) seenVia.add(`account:${a}`);
      for (let j = 0; j < accounts.length; j += CHUNK) {
        const rows = await db
          .selectFrom('publisher_member_history')
          .select(['publisher_id', 'account_id'])
          .where('account_id', 'in', accounts.slice(j, j + CHUNK))
          .execute();
        reach(rows.map((r) => ({ publisher_id: r.publisher_id, via: `account:${r.account_id}` })), next);
      }
      // Registrable domains these publications verified a domain under, and every publication verified under each.
      const held = await db
        .selectFrom('domains')
        .select('registrable_domain')
        .distinct()
        .where('publisher_id', 'in', pubs)
        .where('status', '=', 'verified')
        .where('registrable_domain', 'is not', null)
        .execute();
      const domains = held.map((d) => d.registrable_domain!).filter((d) => !seenVia.has(`domain:${d}`));
      for (const d of domains) seenVia.add(`domain:${d}`);
      for (let j = 0; j < domains.length; j += CHUNK) {
        const rows = await db
          .selectFrom('domains')
          .select(['publisher_id', 'registrable_domain'])
          .where('registrable_domain', 'in', domains.slice(j, j + CHUNK))
          .where('status', '=', 'verified')
          .execute();
        reach(rows.map((r) => ({ publisher_id: r.publisher_id, via: `domain:${r.registrable_domain!}` })), next);
      }
    }
    frontier = next;
  }
  return { sourceOf: independentSources(links), publications: [...seenPubs] };
}

/**
 * Where new accepted work comes in each person's order per source (by acceptance: contribution ids), counting what
 * is stored (one grouped read) and what the call counted before. Call before inserting the new rows.
 */
export async function workPositions(db: Db, pairs: { accountId: number; publisherId: number }[]): Promise<Positions> {
  const counts = new Map<string, number>();
  const accountIds = [...new Set(pairs.map((p) => p.accountId))];
  const { sourceOf, publications } = await sourcesOf(db, [...new Set(pairs.map((p) => p.publisherId))]);
  for (let i = 0; i < accountIds.length; i += 500) {
    for (let j = 0; j < publications.length; j += 500) {
      const rows = await db
        .selectFrom('contributions as c')
        .innerJoin('pages as p', 'p.id', 'c.page_id')
        .select((eb) => ['c.account_id', 'p.publisher_id', eb.fn.countAll<number>().as('n')])
        .where('c.account_id', 'in', accountIds.slice(i, i + 500))
        .where('p.publisher_id', 'in', publications.slice(j, j + 500))
        .groupBy(['c.account_id', 'p.publisher_id'])
        .execute();
      for (const r of rows) {
        const key = `${r.account_id}:${sourceOf(r.publisher_id)}`;
        counts.set(key, (counts.get(key) ?? 0) + Number(r.n));
      }
    }
  }
  return (accountId, publisherId) => {
    const key = `${accountId}:${sourceOf(publisherId)}`;
    const next = (counts.get(key) ?? 0) + 1;
    counts.set(key, next);
    return next;
  };
}

export const rejectedWork = (accountId: number): ReputationChange => ({ accountId, accepted: 0, rejected: 1, score: 0, topics: [] });


/**
 * Apply counter changes and refresh each touched account's derived figures, once per account however many changes
 * it has: a batch of 500 decisions on one contributor is one update of that contributor. Call inside the
 * transaction of the writes that caused the changes. The counters move with `x = x + ?` so concurrent writers
 * (PostgreSQL) never lose an update: the row lock taken by the first statement serialises them per account.
 * Returns a `contributor.updated` change-log entry for each account whose public fields moved; the caller appends
 * them with its own entries, after all its other writes (docs/changes.md). `contributors`, when given, receives
 * each touched account's public fields as they now are (a caller naming authors needs no query of its own).
 */
export async function applyReputationChanges(
  db: Db,
  changes: ReputationChange[],
  now: string,
  contributors?: Map<number, PublicContributor>,
): Promise<Change[]> {
  const entries: Change[] = [];
  const byAccount = new Map<number, AccountDelta>();
  for (const c of changes) {
    let a = byAccount.get(c.accountId);
    if (!a) byAccount.set(c.accountId, (a = { accepted: 0, rejected: 0, score: 0, topics: new Map() }));
    a.accepted += c.accepted;
    a.rejected += c.rejected;
    a.score += c.score;
    for (const t of c.topics) {
      const cur = a.topics.get(t.topic) ?? { weight: 0, accepted: 0 };
      cur.weight += t.weight;
      cur.accepted += t.accepted;
      a.topics.set(t.topic, cur);
    }
  }
  // In id order, so two transactions touching the same accounts lock them in the same order (no deadlock).
  for (const [accountId, d] of [...byAccount].sort((x, y) => x[0] - y[0])) {
    const moved = await applyOne(db, accountId, d, now);
    if (!moved) continue;
    contributors?.set(accountId, moved.after);
    if (canonicalJson(moved.before) !== canonicalJson(moved.after)) {
      entries.push({ kind: 'contributor.updated', ids: { accountId }, data: { contributor: moved.after }, now });
    }
  }
  return entries;
}

interface AccountDelta {
  accepted: number;
  rejected: number;
  score: number;
  topics: Map<string, { weight: number; accepted: number }>;
}

/**
 * One account's change, and its public fields before and after (undefined for no such account). The fields are
 * worked out from what the writes return rather than read again: the counters' UPDATE returns the row (and whether
 * the account sits on a panel), one read of the account's topics gives the list before, and the topics' upsert
 * returns the touched rows after; the account's row lock, taken by the first statement, keeps other writers of its
 * reputation out meanwhile. Only a change in the set of topics reads the list again, for the database's own order.
 */
async function applyOne(
  db: Db,
  accountId: number,
  d: AccountDelta,
  now: string,
): Promise<{ before: PublicContributor; after: PublicContributor } | undefined> {
  const row = await db
    .updateTable('accounts')
    .set((eb) => ({
      accepted_count: eb('accepted_count', '+', d.accepted),
      rejected_count: eb('rejected_count', '+', d.rejected),
      contribution_score: eb('contribution_score', '+', d.score),
      updated_at: now,
    }))
    .where('id', '=', accountId)
    .returning((eb) => [
      'username',
      'name',
      'summary',
      'accepted_count',
      'rejected_count',
      'contribution_score',
      'trust_score',
      'level',
      'topics',
      panellistOf(eb.ref('accounts.id')).as('panellist'),
    ])
    .executeTakeFirst();
  if (!row) return undefined;
  const topicsBefore = await db
    .selectFrom('account_topics')
    .select(['topic', 'weight', 'accepted', 'authority'])
    .where('account_id', '=', accountId)
    .orderBy('topic')
    .execute();
  const publicOf = (p: { level: string; trust_score: number; contribution_score: number; accepted_count: number }, topics: { topic: string; authority: number }[]): PublicContributor => ({
    username: row.username,
    name: row.name,
    summary: row.summary,
    level: p.level,
    trust_score: p.trust_score,
    contribution_score: p.contribution_score,
    accepted_count: p.accepted_count,
    topics: topics.map((t) => ({ topic: t.topic, authority: t.authority })),
  });
  const before = publicOf(
    { level: row.level, trust_score: row.trust_score, contribution_score: row.contribution_score - d.score, accepted_count: row.accepted_count - d.accepted },
    topicsBefore,
  );

  const trust = trustScore(row.accepted_count, row.rejected_count);
  const newLevel = level({ accepted: row.accepted_count, trust, panellist: Boolean(row.panellist) });
  if (trust !== row.trust_score || newLevel !== row.level) {
    await db.updateTable('accounts').set({ trust_score: trust, level: newLevel }).where('id', '=', accountId).execute();
  }

  // The account's topics as they stand after each step, in the database's order.
  const topics = new Map(topicsBefore.map((t) => [t.topic, { ...t }]));
  let setChanged = false;
  const touched = [...d.topics].filter(([, t]) => t.weight !== 0 || t.accepted !== 0);
  if (touched.length > 0) {
    const upserted = await db
      .insertInto('account_topics')
      .values(touched.map(([topic, t]) => ({ account_id: accountId, topic, weight: t.weight, accepted: t.accepted, authority: 0 })))
      .onConflict((oc) =>
        oc.columns(['account_id', 'topic']).doUpdateSet((eb) => ({
          weight: eb('account_topics.weight', '+', eb.ref('excluded.weight')),
          accepted: eb('account_topics.accepted', '+', eb.ref('excluded.accepted')),
        })),
      )
      .returning(['topic', 'weight', 'accepted', 'authority'])
      .execute();
    for (const r of upserted) {
      if (!topics.has(r.topic)) setChanged = true;
      topics.set(r.topic, r);
    }
  }
  // Authority depends on trust: when trust moved, every topic of the account; else only the touched ones. An
  // account has a handful of topics, not a history.
  const declared = new Set(JSON.parse(row.topics) as string[]);
  const refresh = trust === row.trust_score ? touched.map(([t]) => topics.get(t)!) : [...topics.values()];
  for (const r of refresh) {
    if (r.accepted <= 0 && r.weight <= 0 && !declared.has(r.topic)) {
      // No work left in the topic and not declared: a full recount would not list it.
      await db.deleteFrom('account_topics').where('account_id', '=', accountId).where('topic', '=', r.topic).execute();
      topics.delete(r.topic);
      setChanged = true;
      continue;
    }
    const authority = topicAuthority(trust, r.weight);
    if (authority !== r.authority) {
      await db.updateTable('account_topics').set({ authority }).where('account_id', '=', accountId).where('topic', '=', r.topic).execute();
      r.authority = authority;
    }
  }
  let after = [...topics.values()];
  if (setChanged) {
    // A topic came or went: where it sorts is the database's collation's business.
    const order = await db.selectFrom('account_topics').select('topic').where('account_id', '=', accountId).orderBy('topic').execute();
    after = order.map((o) => topics.get(o.topic)!);
  }
  return {
    before,
    after: publicOf({ level: newLevel, trust_score: trust, contribution_score: row.contribution_score, accepted_count: row.accepted_count }, after),
  };
}

/** A contributor's public fields as the change log shows them, or undefined for no such account. */
export async function publicContributor(db: Db, accountId: number): Promise<PublicContributor | undefined> {
  const a = await db
    .selectFrom('accounts')
    .select(['username', 'name', 'summary', 'level', 'trust_score', 'contribution_score', 'accepted_count'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!a) return undefined;
  const topics = await db
    .selectFrom('account_topics')
    .select(['topic', 'authority'])
    .where('account_id', '=', accountId)
    .orderBy('topic')
    .execute();
  return { ...a, topics: topics.map((t) => ({ topic: t.topic, authority: t.authority })) };
}

/**
 * Recompute, then log `contributor.updated` for each account whose public fields moved. `before` holds snapshots
 * taken before the caller changed an account's profile in the same transaction (else they are read here). The
 * entries come after every account write of the call, so a transaction takes the change-log lock last.
 */
export async function recomputeReputation(
  db: Db,
  accountIds: number[],
  now: string,
  before: Map<number, PublicContributor | undefined> = new Map(),
): Promise<void> {
  const ids = [...new Set(accountIds)];
  for (const accountId of ids) if (!before.has(accountId)) before.set(accountId, await publicContributor(db, accountId));
  await recomputeScores(db, ids, now);
  for (const accountId of ids) {
    const after = await publicContributor(db, accountId);
    const was = before.get(accountId);
    if (after && (!was || canonicalJson(was) !== canonicalJson(after))) {
      await appendChange(db, { kind: 'contributor.updated', ids: { accountId }, data: { contributor: after }, now });
    }
  }
}

/** Recount accounts' reputation from their rows (the reference; also for profile and panel changes). */
async function recomputeScores(db: Db, accountIds: number[], now: string): Promise<void> {
  for (const accountId of accountIds) {
    const account = await db.selectFrom('accounts').select(['topics', 'username']).where('id', '=', accountId).executeTakeFirst();
    // Erased people's work counts for no one.
    if (!account || account.username === FORMER_CONTRIBUTOR.username) continue;
    // Each work in the order it was accepted (ids), counted by its place among the person's work from its
    // publication's source (SPEC §13's diminishing returns; publications sharing an owner or member, or a registrable domain, are one source).
    const rows = await db
      .selectFrom('contributions as c')
      .innerJoin('pages as p', 'p.id', 'c.page_id')
      .select(['c.role', 'p.topic', 'p.publisher_id'])
      .where('c.account_id', '=', accountId)
      .orderBy('c.id')
      .execute();
    const { sourceOf } = await sourcesOf(db, [...new Set(rows.map((r) => r.publisher_id))]);
    const place = new Map<number, number>();
    const work = rows.map((r) => {
      const source = sourceOf(r.publisher_id);
      const k = (place.get(source) ?? 0) + 1;
      place.set(source, k);
      return { topic: r.topic, ...counted(r.role, k) };
    });
    const rejected = await db
      .selectFrom('submissions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('status', '=', 'rejected')
      .executeTakeFirstOrThrow();
    const accepted = work.reduce((s, r) => s + r.accepted, 0);
    const rejectedCount = Number(rejected.n);
    const trust = trustScore(accepted, rejectedCount);
    await db
      .updateTable('accounts')
      .set({
        accepted_count: accepted,
        rejected_count: rejectedCount,
        trust_score: trust,
        contribution_score: work.reduce((s, r) => s + r.weight, 0),
        level: level({ accepted, trust, panellist: await isPanellist(db, accountId) }),
        updated_at: now,
      })
      .where('id', '=', accountId)
      .execute();

    // Expertise: every declared topic (authority 0 until work shows it) and every topic with accepted work.
    const topics = new Map<string, { weight: number; accepted: number }>();
    for (const t of JSON.parse(account.topics) as string[]) topics.set(t, { weight: 0, accepted: 0 });
    for (const r of work) {
      // Work that counts for nothing makes no topic (as the incremental path writes none).
      if (!r.topic || (r.weight === 0 && r.accepted === 0)) continue;
      const t = topics.get(r.topic) ?? { weight: 0, accepted: 0 };
      t.weight += r.weight;
      t.accepted += r.accepted;
      topics.set(r.topic, t);
    }
    await db.deleteFrom('account_topics').where('account_id', '=', accountId).execute();
    if (topics.size > 0) {
      await db
        .insertInto('account_topics')
        .values(
          [...topics].map(([topic, t]) => ({
            account_id: accountId,
            topic,
            weight: t.weight,
            accepted: t.accepted,
            authority: topicAuthority(trust, t.weight),
          })),
        )
        .execute();
    }
  }
}
