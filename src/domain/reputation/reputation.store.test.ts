// Stored reputation is kept by its changes (applyReputationChanges); it must always equal a full recount from the
// rows (recomputeReputation, SPEC §13). A seeded random mix of registrations with authors (including topic and
// title changes and URLs repeated within a batch), submissions, batch decisions (accepts, rejects, repeats),
// withdrawals and declared-topic changes, compared with the recount at checkpoints; on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { createPrng } from '../../demo/prng.js';
import { createAccount, updateOwnProfile } from '../accounts/account.service.js';
import { registerPages } from '../pages/page.service.js';
import { createPublisher, verifyDomainByOperator } from '../publishers/publisher.service.js';
import { decide, submitWork, withdrawSubmission } from '../submissions/submission.service.js';
import type { WorkKind } from '../work-kinds.js';
import { publicContributor, recomputeReputation } from './reputation.store.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

async function snapshot(ids: number[]) {
  const db = t.runtime.deps.db;
  const accounts = await db
    .selectFrom('accounts')
    .select(['id', 'accepted_count', 'rejected_count', 'contribution_score', 'trust_score', 'level'])
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
  const topics = await db
    .selectFrom('account_topics')
    .select(['account_id', 'topic', 'weight', 'accepted', 'authority'])
    .where('account_id', 'in', ids)
    .orderBy('account_id')
    .orderBy('topic')
    .execute();
  return { accounts, topics };
}

describe('incremental reputation', () => {
  it('equals a full recount after a random sequence of writes', async () => {
    const deps = t.runtime.deps;
    const rng = createPrng(16);
    const owner = await createAccount(deps, { email: 'owner@rep.test', password: 'correct horse battery', name: 'Owner', username: 'rep-owner' });
    const pub = await createPublisher(deps, owner.user_id, { name: 'Rep', slug: 'rep' });
    await verifyDomainByOperator(deps, 'rep', 'rep.example');
    const people: { id: number; username: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await createAccount(deps, { email: `p${i}@rep.test`, password: 'correct horse battery', name: `Person ${i}`, username: `rep-person-${i}` });
      people.push({ id: r.user_id, username: `rep-person-${i}` });
    }
    const ids = people.map((p) => p.id);
    // Hyphenated names sort differently by code unit and by a locale's collation (the order the log shows).
    const topics = ['health', 'climate', 'economy', '', 'e-health', 'ehealth'];
    const kinds: WorkKind[] = ['review', 'fact_check', 'edit', 'correction', 'source'];
    const pageIds: number[] = [];
    let pending: { id: number; accountId: number }[] = [];
    const decided: number[] = [];

    const check = async () => {
      // The change log's face of each contributor follows too: its newest `contributor.updated` entry shows the
      // account as stored (applyReputationChanges works the fields out from its writes rather than reading them).
      for (const id of ids) {
        const entry = await deps.db
          .selectFrom('changes')
          .select('body')
          .where('kind', '=', 'contributor.updated')
          .where('account_id', '=', id)
          .orderBy('seq', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (entry) expect((JSON.parse(entry.body) as { contributor: unknown }).contributor).toEqual(await publicContributor(deps.db, id));
      }
      const incremental = await snapshot(ids);
      await deps.db.transaction().execute((trx) => recomputeReputation(trx, ids, new Date().toISOString()));
      expect(incremental).toEqual(await snapshot(ids));
    };

    for (let step = 0; step < 120; step++) {
      const op = rng.int(10);
      if (op < 3 || pageIds.length < 3) {
        // A batch of registrations: new and known URLs, sometimes a URL twice, a new topic or title, authors.
        const n = 1 + rng.int(12);
        const items = Array.from({ length: n }, (_, k) => {
          const slot = rng.int(pageIds.length + 8);
          const authors = Array.from({ length: rng.int(3) }, () => rng.pick(people).username);
          return {
            index: k,
            ok: true as const,
            value: {
              url: `https://rep.example/a/${slot}`,
              ...(rng.chance(0.7) ? { topic: rng.pick(topics) } : {}),
              ...(rng.chance(0.5) ? { title: `Title ${rng.int(3)}` } : {}),
              authors,
            },
          };
        });
        for (const r of await registerPages(deps, pub.id, items)) {
          expect(r.status).not.toBe('failed');
          if (!pageIds.includes(r.id!)) pageIds.push(r.id!);
        }
      } else if (op < 6) {
        const person = rng.pick(people);
        const kind = rng.pick(kinds);
        const [r] = await submitWork(deps, person.id, [
          {
            index: 0,
            ok: true,
            value: { article_ref_id: rng.pick(pageIds), role: kind, summary: 'Work', evidence: { before: 'a', after: 'b', reason: 'Because', sources: [] } },
          },
        ]);
        expect(r!.status).toBe('created');
        pending.push({ id: r!.id!, accountId: person.id });
      } else if (op < 8 && pending.length > 0) {
        // A batch of decisions, with an already decided one and a repeat among them.
        const batch = pending.filter(() => rng.chance(0.6));
        const body = batch.map((p) => ({ submission_id: p.id, decision: rng.chance(0.6) ? ('accept' as const) : ('reject' as const) }));
        if (decided.length > 0) body.push({ submission_id: rng.pick(decided), decision: 'accept' });
        if (batch.length > 0) body.push({ submission_id: batch[0]!.id, decision: 'reject' });
        const results = await decide(deps, owner.user_id, [pub.id], body.map((value, index) => ({ index, ok: true, value })));
        expect(results.filter((r) => r.status !== 'failed')).toHaveLength(batch.length);
        decided.push(...batch.map((p) => p.id));
        pending = pending.filter((p) => !batch.includes(p));
      } else if (op < 9 && pending.length > 0) {
        const p = pending.splice(rng.int(pending.length), 1)[0]!;
        await withdrawSubmission(deps, p.accountId, p.id);
      } else {
        await updateOwnProfile(deps, rng.pick(people).id, { topics: topics.filter((x) => x && rng.chance(0.4)) });
      }
      if (step % 20 === 19) await check();
    }
    await check();
    const after = await snapshot(ids);
    // The sequence did exercise the rules: decisions both ways and work in several topics.
    expect(after.accounts.some((a) => a.rejected_count > 0 && a.accepted_count > 0)).toBe(true);
    expect(new Set(after.topics.filter((x) => x.weight > 0).map((x) => x.topic)).size).toBeGreaterThan(1);
  });
});
