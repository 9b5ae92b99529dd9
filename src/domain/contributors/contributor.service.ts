// The public reputation graph: profiles, the directory of contributors, and proofs of accepted work.
import { tag } from '../pages/cache-tags.js';
import { notFound } from '../errors.js';
import type { Deps } from '../deps.js';
import * as store from './contributor.store.js';
import { explainScores } from '../reputation/explain.js';
import { allInterestsOf, heldAt, interestsOf, relatedTo } from '../interests/interest.service.js';

/** Accepted work shown on a profile; older work stays reachable through each record and proof. */
const PROFILE_WORK_LIMIT = 100;

export async function getProfile(deps: Deps, idOrUsername: string) {
  const account = await store.findContributor(deps.db, idOrUsername);
  if (!account) throw notFound('Contributor');
  const [topics, work, interests] = await Promise.all([
    store.topicsOf(deps.db, [account.id]),
    store.listAcceptedWork(deps.db, account.id, PROFILE_WORK_LIMIT),
    interestsOf(deps.db, [account.id]),
  ]);
  return { account, topics: topics.get(account.id) ?? [], work, interests };
}

/** A contributor's scores as shown, and the sum behind each. */
export async function explainProfileScores(deps: Deps, idOrUsername: string) {
  const account = await store.findContributor(deps.db, idOrUsername);
  if (!account) throw notFound('Contributor');
  const [topics, explanation] = await Promise.all([store.topicsOf(deps.db, [account.id]), explainScores(deps.db, account.id)]);
  return { account, topics: topics.get(account.id) ?? [], explanation };
}

export async function searchContributors(
  deps: Deps,
  filter: { topic?: string | undefined; q?: string | undefined; order?: 'trust' | undefined },
  page: number,
  perPage: number,
) {
  const topic = filter.topic?.trim().toLowerCase() || undefined;
  const q = filter.q?.trim() || undefined;
  // Cached with the records: any contributor's change (score, name, topic, a new account) drops every directory
  // page, as does a change to a page shown as someone's latest work.
  return deps.recordCache.getOrLoad(`contributors:${JSON.stringify([topic, q, filter.order ?? null, page, perPage])}`, async (track) => {
    const { rows, total } = await store.searchContributors(deps.db, { topic, q, order: filter.order }, perPage, (page - 1) * perPage);
    const ids = rows.map((r) => r.id);
    const [topics, latest] = await Promise.all([store.topicsOf(deps.db, ids), store.latestWorkOf(deps.db, ids)]);
    track([tag.contributors, ...[...latest.values()].map((w) => tag.page(w.page_id))]);
    return {
      total,
      items: rows.map((account) => ({ account, topics: topics.get(account.id) ?? [], latest: latest.get(account.id) ?? null })),
    };
  });
}

export const recentWork = (deps: Deps, limit: number) => store.listRecentWork(deps.db, limit);

export async function getProof(deps: Deps, contributionId: number) {
  const proof = await store.findProof(deps.db, contributionId);
  if (!proof) throw notFound('Proof');
  // The person's declared interests that bear on this page (its publication, its topic): those held when the work
  // was accepted, and those held now.
  const all = await allInterestsOf(deps.db, [proof.account_id]);
  const held = new Set([...heldAt(all, proof.accepted_at), ...all.filter((i) => i.ended_at === null)]);
  const interests = relatedTo([...held], { publisher_id: proof.publisher_id, topic: proof.page_topic }).sort((a, b) => a.id - b.id);
  return { ...proof, interests };
}
