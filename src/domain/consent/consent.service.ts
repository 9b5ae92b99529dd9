// Consent: nothing is said in public about a person until they agree, and they can always take their
// name back. A publication naming an author makes a claim; the person confirms it (then it is published, as any
// accepted work is: the contribution, its change-log entry, their scores) or declines it (the publication cannot
// name them on that page again). A person may let one publication of theirs publish its claims at once, or refuse
// all of a publication's claims. Any public contribution of theirs can be withdrawn: it leaves every public read,
// their scores move back, and the feed and the log get an entry saying the named person withdrew.
import { appendChangesFrom, type Change, type PublicContributor, type PublicPublisher, takeSeqs } from '../changes/change-log.js';
import { isoNow } from '../clock.js';
import type { Db, Deps } from '../deps.js';
import { conflict, DomainError, forbidden, notFound } from '../errors.js';
import { appendEvent, appendEvents, type NewEvent } from '../events/outbox.js';
import { insertAuthors } from '../pages/page.store.js';
import { requireMember } from '../publishers/publisher.service.js';
import { findPublisherBySlug, listMemberships } from '../publishers/publisher.store.js';
import { acceptedWork, applyReputationChanges, publicContributor, recomputeReputation, workPositions } from '../reputation/reputation.store.js';
import type { ClaimPreference, ClaimState } from '../../db/schema.js';
import type { AuthorshipFacts, WithdrawnFacts } from '../webhooks/facts.js';
import * as store from './consent.store.js';

/** What naming an author did, as the publisher sees it in the registration's answer. */
export type NamingStatus = 'published' | 'pending' | 'declined' | 'withdrawn' | 'refused' | 'limited';

/**
 * Claims a publication may have waiting on one person, and make in a day (the settings
 * CLAIMS_PENDING_PER_PERSON and CLAIMS_PER_PUBLICATION_PER_DAY): a publication cannot flood someone's list. Past
 * either, the naming is answered `limited` and nothing is made.
 */
export interface ClaimLimits {
  pendingPerPerson: number;
  perPublicationPerDay: number;
}

/** The provenance of a public contribution: who said it, and how its person agreed (fields of every record). */
export interface Provenance {
  asserted_by: 'publisher' | 'contributor' | 'operator';
  consent: 'confirmed' | 'standing_permission' | 'submitted' | 'operator' | 'not_asked';
}

/**
 * The decisions for one registration call's namings, made against what is stored and what the call itself did
 * before (its own claims count towards the limits). `decide` says what naming `accountId` on the page does;
 * `pageId` is null for a page the call creates (no claim can exist yet).
 */
export class Namings {
  /** Claims to write once the pages have ids: by the registration's page key. */
  readonly claims: { key: string; accountId: number; state: 'pending' | 'confirmed' }[] = [];
  private constructor(
    private readonly existing: Map<string, { state: string }>,
    private readonly preferences: Map<number, ClaimPreference>,
    private readonly members: Set<number>,
    private readonly pending: Map<number, number>,
    private madeToday: number,
    private readonly limits: ClaimLimits,
  ) {}

  static async load(trx: Db, publisherId: number, pageIds: number[], accountIds: number[], now: string, limits: ClaimLimits): Promise<Namings> {
    const since = new Date(Date.parse(now) - 86_400_000).toISOString();
    const [existing, preferences, members, pending, madeToday] = await Promise.all([
      store.claimsFor(trx, pageIds, accountIds),
      store.preferencesOf(trx, publisherId, accountIds),
      store.membersAmong(trx, publisherId, accountIds),
      store.pendingCounts(trx, publisherId, accountIds),
      store.claimsMadeSince(trx, publisherId, since),
    ]);
    return new Namings(existing, preferences, members, pending, madeToday, limits);
  }

  decide(key: string, pageId: number | null, accountId: number): NamingStatus {
    const claim = pageId === null ? undefined : this.existing.get(store.pairKey(pageId, accountId));
    if (claim) return claim.state === 'pending' ? 'pending' : claim.state === 'withdrawn' ? 'withdrawn' : 'declined';
    const preference = this.preferences.get(accountId);
    if (preference === 'refuse') return 'refused';
    // A standing permission holds only while the person is a member of the publication (item 3).
    if (preference === 'permit' && this.members.has(accountId)) {
      this.claims.push({ key, accountId, state: 'confirmed' });
      return 'published';
    }
    const waiting = this.pending.get(accountId) ?? 0;
    if (waiting >= this.limits.pendingPerPerson || this.madeToday >= this.limits.perPublicationPerDay) return 'limited';
    this.pending.set(accountId, waiting + 1);
    this.madeToday++;
    this.claims.push({ key, accountId, state: 'pending' });
    return 'pending';
  }
}

/** One authorship to publish: its page (as public entries show it) and its person. */
export interface Authorship {
  pageId: number;
  url: string;
  title: string;
  topic: string;
  accountId: number;
}

/**
 * The change-log entry that publishes an authorship, with its provenance. `contributor` is the person's public
 * face as their reputation left it in the same transaction.
 */
export function authorshipEntry(
  a: Authorship,
  publisherId: number,
  publisher: PublicPublisher,
  contributionId: number,
  consent: 'confirmed' | 'standing_permission',
  contributor: PublicContributor,
  now: string,
): Change {
  return {
    kind: 'contribution.accepted',
    ids: { pageId: a.pageId, accountId: a.accountId, publisherId },
    data: {
      page: { id: a.pageId, url: a.url, title: a.title },
      publisher,
      contribution: {
        id: contributionId,
        role: 'author',
        summary: 'Wrote this page',
        accepted_at: now,
        provenance: { asserted_by: 'publisher', consent } satisfies Provenance,
      },
      contributor: { username: contributor.username, name: contributor.name },
    },
    now,
  };
}

/**
 * The publication's `contribution.accepted` event of a published authorship, beside its change-log entry: its public
 * trust record changed, so its webhooks refresh cached attribution blocks (seed 001 §6).
 */
export function authorshipEvent(
  a: Authorship,
  publisherId: number,
  contributionId: number,
  consent: 'confirmed' | 'standing_permission',
  contributor: PublicContributor,
  now: string,
): NewEvent {
  const facts: AuthorshipFacts = {
    authorship: { consent },
    contribution: { id: contributionId, role: 'author', summary: 'Wrote this page', accepted_at: now },
    contributor: { username: contributor.username, name: contributor.name },
    page: { id: a.pageId, url: a.url, title: a.title },
  };
  return { type: 'contribution.accepted', publisherId, pageId: a.pageId, payload: facts, now };
}

/** The claims of the signed-in person, newest first (at most 200), optionally of one state. */
/**
 * How many author claims on a page wait for confirmation: a count only, since a person named but not yet agreeing
 * is not on the record (SPEC: consent before publication).
 */
export const pendingClaimsOnPage = (deps: Deps, pageId: number): Promise<number> => store.pendingOnPage(deps.db, pageId);

export async function listMyClaims(deps: Deps, accountId: number, state?: 'pending' | 'confirmed' | 'declined' | 'withdrawn') {
  return store.listClaimsOf(deps.db, accountId, state);
}

async function ownClaim(db: Db, accountId: number, id: number) {
  const claim = await store.findClaimOf(db, accountId, id);
  if (!claim) throw notFound('Claim');
  return claim;
}

/** The person confirms a claim: the authorship is published, as accepted work is, within the transaction. */
export async function confirmClaim(deps: Deps, accountId: number, id: number) {
  const now = isoNow(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
    const claim = await ownClaim(trx, accountId, id);
    if (!(await store.settleClaim(trx, claim.id, 'confirmed', now))) throw conflict(`This claim is ${claim.state} already`);
    const a: Authorship = { pageId: claim.page_id, url: claim.page_url, title: claim.page_title, topic: claim.page_topic, accountId };
    const contributors = new Map<number, PublicContributor>();
    const position = await workPositions(trx, [{ accountId, publisherId: claim.publisher_id }]);
    const contributorEntries = await applyReputationChanges(trx, [acceptedWork(accountId, 'author', a.topic, position(accountId, claim.publisher_id))], now, contributors);
    const first = await takeSeqs(trx);
    const ids = await insertAuthors(trx, [{ page_id: a.pageId, account_id: accountId, summary: 'Wrote this page', log_seq: first, consent: 'confirmed' }], now);
    const publisher = { slug: claim.publisher_slug, name: claim.publisher_name };
    const contributionId = ids.get(`${a.pageId}:${accountId}`)!;
    const entry = authorshipEntry(a, claim.publisher_id, publisher, contributionId, 'confirmed', contributors.get(accountId)!, now);
    await appendEvents(trx, [authorshipEvent(a, claim.publisher_id, contributionId, 'confirmed', contributors.get(accountId)!, now)]);
    await appendChangesFrom(trx, first, [entry, ...contributorEntries]);
  });
  await deps.changes.committed();
  return ownClaim(deps.db, accountId, id);
}

/** The person declines a claim: nothing was public, nothing becomes so; the publication cannot name them there again. */
export async function declineClaim(deps: Deps, accountId: number, id: number) {
  const now = isoNow(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
    const claim = await ownClaim(trx, accountId, id);
    if (!(await store.settleClaim(trx, claim.id, 'declined', now))) throw conflict(`This claim is ${claim.state} already`);
  });
  return ownClaim(deps.db, accountId, id);
}

/**
 * A person's standing answer to a publication: `permit` (its claims publish at once; only for the publication's
 * members, never on by default), `refuse` (no claims from it at all), or null (ask each time). Permitting does not
 * confirm claims already waiting; withdrawing a permission leaves what it published until the person takes it back.
 */
export async function setClaimPreference(deps: Deps, accountId: number, slug: string, preference: ClaimPreference | null) {
  const now = isoNow(deps.clock);
  const publisher = await publisherBySlug(deps, accountId, slug, preference === 'permit');
  if (preference === null) await store.deletePreference(deps.db, accountId, publisher.id);
  else await store.setPreference(deps.db, accountId, publisher.id, preference, now);
  return { publisher: { slug: publisher.slug, name: publisher.name }, preference };
}

async function publisherBySlug(deps: Deps, accountId: number, slug: string, mustBeMember: boolean) {
  if (mustBeMember) {
    try {
      return (await requireMember(deps, accountId, slug)).publisher;
    } catch (err) {
      // Not a member (or no such publication): the same refusal. Anything else (the database) is not a refusal.
      if (err instanceof DomainError) throw forbidden('A standing permission is for a publication you are a member of');
      throw err;
    }
  }
  const p = await findPublisherBySlug(deps.db, slug);
  if (!p) throw notFound('Publication');
  return p;
}

/** A publication's claims (all its pages, or one; any state, or one), newest first: what it named and what each person answered. */
export const listPublisherClaims = (deps: Deps, publisherId: number, filter: { pageId?: number; state?: ClaimState } = {}) =>
  store.listClaimsOfPublisher(deps.db, publisherId, filter);

/** The publications the person belongs to: where a standing permission may be given. */
export const listMyPublications = (deps: Deps, accountId: number) => listMemberships(deps.db, accountId);

export const listMyContributions = (deps: Deps, accountId: number) => store.listContributionsOf(deps.db, accountId);

export const listMyPreferences = (deps: Deps, accountId: number) => store.listPreferencesOf(deps.db, accountId);

/**
 * The person takes their name back from a public contribution of theirs (any role): it leaves the record, the
 * embed, the profile and their scores at once, the feed and the log get a `contribution.withdrawn` entry, and the
 * publication's /v1 webhooks hear of it. An authorship's claim ends `withdrawn`: the publication cannot name them
 * on that page again.
 */
export async function withdrawContribution(deps: Deps, accountId: number, id: number) {
  const now = isoNow(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
    const c = await store.findContributionOf(trx, accountId, id);
    if (!c) throw notFound('Contribution');
    await takeOff(trx, c, 'withdrawn', now);
  });
  await deps.changes.committed();
  return { id, withdrawn_at: now };
}

/**
 * Take a contribution off the public record inside `trx`: scores back, the row out of `contributions`, one entry
 * in the change log, and the publication's event. `withdrawn`: the person did it. `unconfirmed`: an authorship
 * named before consent existed, taken off until its person confirms it (its claim waits for them).
 */
async function takeOff(trx: Db, c: store.OwnContribution, reason: 'withdrawn' | 'unconfirmed', now: string): Promise<void> {
  const before = await publicContributor(trx, c.account_id);
  // Out of `contributions`, then the person's scores recounted: the work after it on the same publication moves up
  // a place, so its weight may change too (SPEC §13's diminishing returns).
  await store.moveToWithdrawn(trx, c, now);
  await recomputeReputation(trx, [c.account_id], now, new Map([[c.account_id, before]]));
  const person = (await publicContributor(trx, c.account_id))!;
  if (c.role === 'author') {
    if (reason === 'withdrawn') await store.markClaimWithdrawn(trx, c.page_id, c.publisher_id, c.account_id, now);
    else await store.insertClaims(trx, [{ page_id: c.page_id, publisher_id: c.publisher_id, account_id: c.account_id, state: 'pending' }], now);
  }
  await appendEvent(trx, {
    type: 'contribution.withdrawn',
    publisherId: c.publisher_id,
    pageId: c.page_id,
    payload: {
      withdrawn: { contribution_id: c.id, submission_id: c.submission_id, role: c.role, summary: c.summary, accepted_at: c.accepted_at, reason },
      contributor: { username: person.username, name: person.name },
      page: { id: c.page_id, url: c.page_url, title: c.page_title },
    } satisfies WithdrawnFacts,
    now,
  });
  const first = await takeSeqs(trx);
  await store.linkWithdrawal(trx, c.id, first);
  await appendChangesFrom(trx, first, [
    {
      kind: 'contribution.withdrawn',
      ids: { pageId: c.page_id, accountId: c.account_id, publisherId: c.publisher_id },
      data: {
        page: { id: c.page_id, url: c.page_url, title: c.page_title },
        publisher: { slug: c.publisher_slug, name: c.publisher_name },
        contribution: { id: c.id, role: c.role, withdrawn_at: now, reason },
        contributor: { username: person.username, name: person.name },
      },
      now,
    },
  ]);
}

/**
 * Authorships named before consent existed (migration 0013 marks them `not_asked`) leave the public record, each
 * with its public entry, and wait as claims for their person. Run by `serve` and `migrate` after the migrations;
 * safe to run twice and on several instances (each row is taken off in its own transaction, once).
 */
export async function retractNotAsked(deps: Deps): Promise<number> {
  let done = 0;
  for (;;) {
    const batch = await store.listNotAsked(deps.db, 100);
    if (batch.length === 0) break;
    for (const row of batch) {
      const now = isoNow(deps.clock);
      await deps.db.transaction().execute(async (trx) => {
        const c = await store.findContributionOf(trx, row.account_id, row.id);
        if (!c) return; // another instance took it off
        await takeOff(trx, c, 'unconfirmed', now);
        done++;
      });
    }
  }
  if (done > 0) await deps.changes.committed();
  return done;
}
