// Stored reputation (SPEC §13). The counters (accepted and rejected counts, the contribution score, and per topic
// the weighted sum and the count of accepted work) are kept up to date by the change each write makes
// (`applyReputationChanges`), inside the writer's transaction; the derived figures (trust, level, authority) are
// then computed from those counters by the pure functions of scores.ts. A write therefore costs the same whatever
// the account's history. `recomputeReputation` recounts everything from the rows: the reference the incremental
// path is tested against, and the path for rare changes (profiles, panel membership).
import { canonicalJson } from '../changes/canonical-json.js';
import { appendChange, type Change, type PublicContributor } from '../changes/change-log.js';
import type { Db } from '../deps.js';
import { isPanellist } from '../panels/panel.store.js';
import { contributionScore, level, ROLE_WEIGHTS, topicAuthority, trustScore } from './scores.js';

/** One account's change in counters. Topic '' (a page without a topic) counts towards no topic. */
export interface ReputationChange {
  accountId: number;
  accepted: number;
  rejected: number;
  /** Change in the contribution score (role weights). */
  score: number;
  topics: { topic: string; weight: number; accepted: number }[];
}

const weightOf = (role: string) => ROLE_WEIGHTS[role] ?? 0;

/** Accepted work (a decision or a named authorship): +1 accepted, its role's weight in its page's topic. */
export const acceptedWork = (accountId: number, role: string, topic: string): ReputationChange => ({
  accountId,
  accepted: 1,
  rejected: 0,
  score: weightOf(role),
  topics: topic ? [{ topic, weight: weightOf(role), accepted: 1 }] : [],
});

export const rejectedWork = (accountId: number): ReputationChange => ({ accountId, accepted: 0, rejected: 1, score: 0, topics: [] });

/** Accepted work whose page changed topic: its weight moves from one topic to the other. */
export function movedWork(accountId: number, role: string, from: string, to: string): ReputationChange {
  const topics = [];
  if (from) topics.push({ topic: from, weight: -weightOf(role), accepted: -1 });
  if (to) topics.push({ topic: to, weight: weightOf(role), accepted: 1 });
  return { accountId, accepted: 0, rejected: 0, score: 0, topics };
}

/**
 * Apply counter changes and refresh each touched account's derived figures, once per account however many changes
 * it has: a batch of 500 decisions on one contributor is one update of that contributor. Call inside the
 * transaction of the writes that caused the changes. The counters move with `x = x + ?` so concurrent writers
 * (PostgreSQL) never lose an update: the row lock taken by the first statement serialises them per account.
 * Returns a `contributor.updated` change-log entry for each account whose public fields moved; the caller appends
 * them with its own entries, after all its other writes (docs/changes.md).
 */
export async function applyReputationChanges(db: Db, changes: ReputationChange[], now: string): Promise<Change[]> {
  const entries: Change[] = [];
  const byAccount = new Map<number, { accepted: number; rejected: number; score: number; topics: Map<string, { weight: number; accepted: number }> }>();
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
    const before = await publicContributor(db, accountId);
    await applyOne(db, accountId, d, now);
    const after = await publicContributor(db, accountId);
    if (after && (!before || canonicalJson(before) !== canonicalJson(after))) {
      entries.push({ kind: 'contributor.updated', ids: { accountId }, data: { contributor: after }, now });
    }
  }
  return entries;
}

async function applyOne(
  db: Db,
  accountId: number,
  d: { accepted: number; rejected: number; score: number; topics: Map<string, { weight: number; accepted: number }> },
  now: string,
): Promise<void> {
  const counts = await db
    .updateTable('accounts')
    .set((eb) => ({
      accepted_count: eb('accepted_count', '+', d.accepted),
      rejected_count: eb('rejected_count', '+', d.rejected),
      contribution_score: eb('contribution_score', '+', d.score),
      updated_at: now,
    }))
    .where('id', '=', accountId)
    .returning(['accepted_count', 'rejected_count', 'trust_score', 'level', 'topics'])
    .executeTakeFirst();
  if (!counts) return;
  const trust = trustScore(counts.accepted_count, counts.rejected_count);
  const newLevel = level({ accepted: counts.accepted_count, trust, panellist: await isPanellist(db, accountId) });
  if (trust !== counts.trust_score || newLevel !== counts.level) {
    await db.updateTable('accounts').set({ trust_score: trust, level: newLevel }).where('id', '=', accountId).execute();
  }

  const touched = [...d.topics].filter(([, t]) => t.weight !== 0 || t.accepted !== 0);
  if (touched.length > 0) {
    await db
      .insertInto('account_topics')
      .values(touched.map(([topic, t]) => ({ account_id: accountId, topic, weight: t.weight, accepted: t.accepted, authority: 0 })))
      .onConflict((oc) =>
        oc.columns(['account_id', 'topic']).doUpdateSet((eb) => ({
          weight: eb('account_topics.weight', '+', eb.ref('excluded.weight')),
          accepted: eb('account_topics.accepted', '+', eb.ref('excluded.accepted')),
        })),
      )
      .execute();
  }
  // Authority depends on trust: when trust moved, every topic of the account; else only the touched ones. An
  // account has a handful of topics, not a history.
  if (trust === counts.trust_score && touched.length === 0) return;
  let rows = db.selectFrom('account_topics').select(['topic', 'weight', 'accepted', 'authority']).where('account_id', '=', accountId);
  if (trust === counts.trust_score) rows = rows.where('topic', 'in', touched.map(([t]) => t));
  const declared = new Set(JSON.parse(counts.topics) as string[]);
  for (const r of await rows.execute()) {
    if (r.accepted <= 0 && r.weight <= 0 && !declared.has(r.topic)) {
      // No work left in the topic and not declared: a full recount would not list it.
      await db.deleteFrom('account_topics').where('account_id', '=', accountId).where('topic', '=', r.topic).execute();
      continue;
    }
    const authority = topicAuthority(trust, r.weight);
    if (authority !== r.authority) {
      await db.updateTable('account_topics').set({ authority }).where('account_id', '=', accountId).where('topic', '=', r.topic).execute();
    }
  }
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
    const account = await db.selectFrom('accounts').select(['topics']).where('id', '=', accountId).executeTakeFirst();
    if (!account) continue;
    // The database does the sums: one row per role and topic, not one per contribution.
    const work = await db
      .selectFrom('contributions as c')
      .innerJoin('pages as p', 'p.id', 'c.page_id')
      .select((eb) => ['c.role', 'p.topic', eb.fn.countAll<number>().as('n')])
      .where('c.account_id', '=', accountId)
      .groupBy(['c.role', 'p.topic'])
      .execute();
    const rejected = await db
      .selectFrom('submissions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('status', '=', 'rejected')
      .executeTakeFirstOrThrow();
    const accepted = work.reduce((s, r) => s + Number(r.n), 0);
    const rejectedCount = Number(rejected.n);
    const trust = trustScore(accepted, rejectedCount);
    await db
      .updateTable('accounts')
      .set({
        accepted_count: accepted,
        rejected_count: rejectedCount,
        trust_score: trust,
        contribution_score: work.reduce((s, r) => s + contributionScore([r.role]) * Number(r.n), 0),
        level: level({ accepted, trust, panellist: await isPanellist(db, accountId) }),
        updated_at: now,
      })
      .where('id', '=', accountId)
      .execute();

    // Expertise: every declared topic (authority 0 until work shows it) and every topic with accepted work.
    const topics = new Map<string, { weight: number; accepted: number }>();
    for (const t of JSON.parse(account.topics) as string[]) topics.set(t, { weight: 0, accepted: 0 });
    for (const r of work) {
      if (!r.topic) continue;
      const t = topics.get(r.topic) ?? { weight: 0, accepted: 0 };
      t.weight += weightOf(r.role) * Number(r.n);
      t.accepted += Number(r.n);
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
