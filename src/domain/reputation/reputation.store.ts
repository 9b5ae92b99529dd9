// Recompute an account's stored reputation from its accepted contributions, inside the caller's transaction.
import type { Db } from '../deps.js';
import { contributionScore, level, trustScore } from './scores.js';

export async function recomputeReputation(db: Db, accountIds: number[], now: string): Promise<void> {
  for (const accountId of new Set(accountIds)) {
    const roles = await db.selectFrom('contributions').select('role').where('account_id', '=', accountId).execute();
    const account = await db.selectFrom('accounts').select('rejected_count').where('id', '=', accountId).executeTakeFirst();
    if (!account) continue;
    const accepted = roles.length;
    const trust = trustScore(accepted, account.rejected_count);
    await db
      .updateTable('accounts')
      .set({
        accepted_count: accepted,
        trust_score: trust,
        contribution_score: contributionScore(roles.map((r) => r.role)),
        level: level({ accepted, trust, panellist: false }),
        updated_at: now,
      })
      .where('id', '=', accountId)
      .execute();
  }
}
