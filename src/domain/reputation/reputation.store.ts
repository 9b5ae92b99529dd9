// Recompute accounts' stored reputation (SPEC §13) inside the caller's transaction: on every decision, every
// authorship and every profile change, so reads never compute scores.
import type { Db } from '../deps.js';
import { isPanellist } from '../panels/panel.store.js';
import { contributionScore, level, ROLE_WEIGHTS, topicAuthority, trustScore } from './scores.js';

export async function recomputeReputation(db: Db, accountIds: number[], now: string): Promise<void> {
  for (const accountId of new Set(accountIds)) {
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
