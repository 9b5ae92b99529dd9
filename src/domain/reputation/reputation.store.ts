// Recompute accounts' stored reputation (SPEC §13) inside the caller's transaction: on every decision, every
// authorship and every profile change, so reads never compute scores.
import { canonicalJson } from '../changes/canonical-json.js';
import { appendChange, type PublicContributor } from '../changes/change-log.js';
import type { Db } from '../deps.js';
import { isPanellist } from '../panels/panel.store.js';
import { contributionScore, level, ROLE_WEIGHTS, topicAuthority, trustScore } from './scores.js';

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

async function recomputeScores(db: Db, accountIds: number[], now: string): Promise<void> {
  for (const accountId of accountIds) {
    const account = await db.selectFrom('accounts').select(['topics']).where('id', '=', accountId).executeTakeFirst();
    if (!account) continue;
    const work = await db
      .selectFrom('contributions as c')
      .innerJoin('pages as p', 'p.id', 'c.page_id')
      .select(['c.role', 'p.topic'])
      .where('c.account_id', '=', accountId)
      .execute();
    const rejected = await db
      .selectFrom('submissions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('status', '=', 'rejected')
      .executeTakeFirstOrThrow();
    const accepted = work.length;
    const rejectedCount = Number(rejected.n);
    const trust = trustScore(accepted, rejectedCount);
    await db
      .updateTable('accounts')
      .set({
        accepted_count: accepted,
        rejected_count: rejectedCount,
        trust_score: trust,
        contribution_score: contributionScore(work.map((r) => r.role)),
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
      t.weight += ROLE_WEIGHTS[r.role] ?? 0;
      t.accepted += 1;
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
