// Stored reputation is kept by its changes (applyReputationChanges); it must always equal a full recount from the
// rows (recomputeReputation, SPEC §13). A seeded random mix, on two publications, of registrations naming authors
// (including topic and title changes and URLs repeated within a batch), claims confirmed and declined, submissions,
// batch decisions (accepts, rejects, repeats), withdrawn submissions, names taken back from public work, and
// declared-topic changes, compared with the recount at checkpoints; on both databases. Then the two replays of
// One publication cannot make an expert.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { createPrng } from '../../demo/prng.js';
import { createAccount, updateOwnProfile } from '../accounts/account.service.js';
import { registerPages } from '../pages/page.service.js';
import { createPublisher, verifyDomainByOperator } from '../publishers/publisher.service.js';
import { isNamedAuthor } from '../consent/consent.store.js';
import { decide, submitWork, withdrawSubmission } from '../submissions/submission.service.js';
import type { WorkKind } from '../work-kinds.js';
import { confirmClaim, declineClaim, listMyClaims, withdrawContribution } from '../consent/consent.service.js';
import { publicContributor, recomputeReputation } from './reputation.store.js';
import { FULL_FROM_ONE_PUBLICATION } from './scores.js';

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
  it('equals a full recount after a random sequence of writes', { timeout: 90_000 }, async () => {
    const deps = t.runtime.deps;
    const rng = createPrng(16);
    const owner = await createAccount(deps, { email: 'owner@rep.test', password: 'correct horse battery', name: 'Owner', username: 'rep-owner' });
    const pub = await createPublisher(deps, owner.user_id, { name: 'Rep', slug: 'rep' });
    await verifyDomainByOperator(deps, 'rep', 'rep.example');
    const pub2 = await createPublisher(deps, owner.user_id, { name: 'Rep two', slug: 'rep-two' });
    await verifyDomainByOperator(deps, 'rep-two', 'rep-two.example');
    const publications = [
      { id: pub.id, host: 'rep.example' },
      { id: pub2.id, host: 'rep-two.example' },
    ];
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
    const pagesOf = new Map<number, number[]>(publications.map((p) => [p.id, []]));
    let pending: { id: number; accountId: number }[] = [];
    const decided: number[] = [];

    const check = async () => {
      // The change log's face of each contributor follows too: its newest `contributor.updated` entry shows the
      // account as stored (applyReputationChanges works the fields out from its writes rather than reading them).
      for (const id of ids) {
        // The entry commits to it; what opens the commitment, kept beside the entry, is the account.
        const entry = await deps.db
          .selectFrom('changes as c')
          .innerJoin('change_openings as o', (j) => j.onRef('o.seq', '=', 'c.seq').on('o.pointer', '=', '/contributor'))
          .select(['o.value', 'c.seq'])
          .where('c.kind', '=', 'contributor.updated')
          .where('c.account_id', '=', id)
          .orderBy('c.seq', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (entry) {
          // The name and summary are committed to inside the slot's value, opened at their own pointers.
          const value = JSON.parse(entry.value) as Record<string, unknown>;
          const inner = await deps.db.selectFrom('change_openings').select(['pointer', 'value']).where('seq', '=', entry.seq).where('pointer', 'in', ['/contributor/name', '/contributor/summary']).execute();
          for (const r of inner) value[r.pointer.split('/')[2]!] = JSON.parse(r.value);
          expect(value).toEqual(await publicContributor(deps.db, id));
        }
      }
      const incremental = await snapshot(ids);
      await deps.db.transaction().execute((trx) => recomputeReputation(trx, ids, new Date().toISOString()));
      expect(incremental).toEqual(await snapshot(ids));
    };

    for (let step = 0; step < 180; step++) {
      const op = rng.int(13);
      if (op < 3 || pageIds.length < 3) {
        const publication = rng.pick(publications);
        // A batch of registrations: new and known URLs, sometimes a URL twice, a new topic or title, authors.
        const n = 1 + rng.int(12);
        const items = Array.from({ length: n }, (_, k) => {
          const slot = rng.int(pageIds.length + 8);
          const authors = Array.from({ length: rng.int(3) }, () => rng.pick(people).username);
          return {
            index: k,
            ok: true as const,
            value: {
              url: `https://${publication.host}/a/${slot}`,
              ...(rng.chance(0.7) ? { topic: rng.pick(topics) } : {}),
              ...(rng.chance(0.5) ? { title: `Title ${rng.int(3)}` } : {}),
              authors,
            },
          };
        });
        for (const r of await registerPages(deps, publication.id, items)) {
          expect(r.status).not.toBe('failed');
          if (!pageIds.includes(r.id!)) {
            pageIds.push(r.id!);
            pagesOf.get(publication.id)!.push(r.id!);
          }
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
        // Nobody checks a page they are named an author of, or asked to be: that submission is refused, nothing is written.
        if (r!.error?.code === 'conflict_of_interest' || r!.error?.code === 'claim_pending') continue;
        expect(r!.status).toBe('created');
        pending.push({ id: r!.id!, accountId: person.id });
      } else if (op < 8 && pending.length > 0) {
        // A batch of decisions, with an already decided one and a repeat among them.
        // Work by someone named an author of its page since they submitted cannot be accepted: it stays pending.
        const named = new Set<number>();
        for (const p of pending) {
          const s = await deps.db.selectFrom('submissions').select('page_id').where('id', '=', p.id).executeTakeFirstOrThrow();
          if (await isNamedAuthor(deps.db, s.page_id, p.accountId)) named.add(p.id);
        }
        const batch = pending.filter((p) => !named.has(p.id) && rng.chance(0.6));
        const body = batch.map((p) => ({ submission_id: p.id, decision: rng.chance(0.6) ? ('accept' as const) : ('reject' as const) }));
        if (decided.length > 0) body.push({ submission_id: rng.pick(decided), decision: 'accept' });
        if (batch.length > 0) body.push({ submission_id: batch[0]!.id, decision: 'reject' });
        const results = await decide(deps, owner.user_id, [pub.id, pub2.id], body.map((value, index) => ({ index, ok: true, value })));
        expect(results.filter((r) => r.status !== 'failed')).toHaveLength(batch.length);
        decided.push(...batch.map((p) => p.id));
        pending = pending.filter((p) => !batch.includes(p));
      } else if (op < 9 && pending.length > 0) {
        const p = pending.splice(rng.int(pending.length), 1)[0]!;
        await withdrawSubmission(deps, p.accountId, p.id);
      } else if (op < 10) {
        await updateOwnProfile(deps, rng.pick(people).id, { topics: topics.filter((x) => x && rng.chance(0.4)) });
      } else if (op < 12) {
        // A person answers the claims waiting for them: mostly confirmed, some declined.
        const person = rng.pick(people);
        for (const claim of await listMyClaims(deps, person.id, 'pending')) {
          if (rng.chance(0.8)) await confirmClaim(deps, person.id, claim.id);
          else await declineClaim(deps, person.id, claim.id);
        }
      } else {
        // A person takes their name back from one of their public works, wherever it is in their order.
        const person = rng.pick(people);
        const work = await deps.db.selectFrom('contributions').select('id').where('account_id', '=', person.id).execute();
        if (work.length > 0) await withdrawContribution(deps, person.id, rng.pick(work).id);
      }
      if (step % 20 === 19) await check();
    }
    await check();
    const after = await snapshot(ids);
    // The sequence did exercise the rules: decisions both ways, work in several topics, names taken back, and
    // people past the publication's full count (the diminishing returns).
    expect(after.accounts.some((a) => a.rejected_count > 0 && a.accepted_count > 0)).toBe(true);
    expect(new Set(after.topics.filter((x) => x.weight > 0).map((x) => x.topic)).size).toBeGreaterThan(1);
    expect(Number((await deps.db.selectFrom('withdrawn_contributions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)).toBeGreaterThan(0);
    const perPublication = await deps.db
      .selectFrom('contributions as c')
      .innerJoin('pages as p', 'p.id', 'c.page_id')
      .select((eb) => ['c.account_id', 'p.publisher_id', eb.fn.countAll<number>().as('n')])
      .groupBy(['c.account_id', 'p.publisher_id'])
      .execute();
    expect(perPublication.some((r) => Number(r.n) > FULL_FROM_ONE_PUBLICATION)).toBe(true);
  });
});

describe('one publication cannot make an expert', () => {
  it('a publisher’s second account, 50 fact checks accepted in one batch, stays below trusted', async () => {
    const deps = t.runtime.deps;
    const owner = await createAccount(deps, { email: 'sock-owner@rep.test', password: 'correct horse battery', name: 'Sock owner', username: 'sock-owner' });
    const pub = await createPublisher(deps, owner.user_id, { name: 'Sock', slug: 'sock' });
    await verifyDomainByOperator(deps, 'sock', 'sock.example');
    const sock = await createAccount(deps, { email: 'sock@rep.test', password: 'correct horse battery', name: 'Sock', username: 'sock-puppet' });
    const pages = await registerPages(
      deps,
      pub.id,
      Array.from({ length: 50 }, (_, i) => ({ index: i, ok: true as const, value: { url: `https://sock.example/p/${i}`, title: `P${i}`, topic: 'health' } })),
    );
    const submitted = await submitWork(
      deps,
      sock.user_id,
      pages.map((p, i) => ({ index: i, ok: true as const, value: { article_ref_id: p.id!, role: 'fact_check' as const, summary: 'Checked', evidence: { reason: 'Because', sources: [] } } })),
    );
    const decided = await decide(deps, owner.user_id, [pub.id], submitted.map((s, i) => ({ index: i, ok: true as const, value: { submission_id: s.id!, decision: 'accept' as const } })));
    expect(decided.every((r) => r.status === 'created')).toBe(true);
    const face = (await publicContributor(deps.db, sock.user_id))!;
    expect(face.accepted_count).toBe(9);
    expect(['newcomer', 'contributor']).toContain(face.level);
    expect(face.contribution_score).toBe(3 * 8 + 6 * 4);
  });

  it('a hundred author claims change nothing for the person they name until they confirm', async () => {
    const deps = t.runtime.deps;
    const owner = await createAccount(deps, { email: 'claims-owner@rep.test', password: 'correct horse battery', name: 'Claims owner', username: 'claims-owner' });
    const pub = await createPublisher(deps, owner.user_id, { name: 'Claims', slug: 'claims' });
    await verifyDomainByOperator(deps, 'claims', 'claims.example');
    const named = await createAccount(deps, { email: 'named@rep.test', password: 'correct horse battery', name: 'Named', username: 'named-person' });
    const before = await publicContributor(deps.db, named.user_id);
    const results = await registerPages(
      deps,
      pub.id,
      Array.from({ length: 100 }, (_, i) => ({ index: i, ok: true as const, value: { url: `https://claims.example/p/${i}`, title: `P${i}`, authors: ['named-person'] } })),
    );
    // The per-person limit: twenty wait at once; the rest are refused as `limited`.
    expect(results.filter((r) => r.authors?.[0]?.status === 'pending')).toHaveLength(20);
    expect(results.filter((r) => r.authors?.[0]?.status === 'limited')).toHaveLength(80);
    expect(await publicContributor(deps.db, named.user_id)).toEqual(before);
  });
});
