// Declared interests: a contributor says what might sway their work (an employer, a funder, a stake, a
// personal tie) in an organisation, a publication or a topic. An interest in a publication keeps them from taking
// its requests and submitting work on its pages (403); every interest is public on their profile, related ones on
// the proofs of their work and before a publisher decides (docs/decisions/declared-interests.md).
import { normaliseTopic } from '../accounts/rules.js';
import { isoNow } from '../clock.js';
import type { Db, Deps } from '../deps.js';
import { DomainError, invalid, missing, notFound } from '../errors.js';
import { findPublisherBySlug } from '../publishers/publisher.store.js';
import type { InterestKind, InterestSubject } from '../../db/schema.js';
import * as store from './interest.store.js';
import { characters } from '../text.js';

export const INTEREST_SUBJECTS = ['organisation', 'publication', 'topic'] as const satisfies readonly InterestSubject[];
export const INTEREST_KINDS = ['employment', 'funding', 'ownership', 'personal'] as const satisfies readonly InterestKind[];
export const INTEREST_NOTE_MAX = 500;
/** At most this many current interests a person (a bound on what a profile carries). */
export const INTERESTS_MAX = 50;

export type { InterestKind, InterestSubject };
export type Interest = store.InterestRow;

export interface InterestInput {
  subject?: unknown;
  name?: unknown;
  kind?: unknown;
  note?: unknown;
}

/** Declare an interest. A publication is named by its slug and must exist. */
export async function declareInterest(deps: Deps, accountId: number, input: InterestInput): Promise<Interest> {
  if (input.subject === undefined) throw missing('subject');
  if (typeof input.subject !== 'string' || !(INTEREST_SUBJECTS as readonly string[]).includes(input.subject)) {
    throw invalid('subject', `must be one of ${INTEREST_SUBJECTS.join(', ')}`);
  }
  if (input.kind === undefined) throw missing('kind');
  if (typeof input.kind !== 'string' || !(INTEREST_KINDS as readonly string[]).includes(input.kind)) throw invalid('kind', `must be one of ${INTEREST_KINDS.join(', ')}`);
  if (input.name === undefined) throw missing('name');
  const raw = typeof input.name === 'string' ? input.name.trim() : '';
  if (raw === '' || characters(raw) > 200) throw invalid('name', 'must be 1 to 200 characters');
  const note = typeof input.note === 'string' ? input.note.trim() : '';
  if (input.note !== undefined && typeof input.note !== 'string') throw invalid('note', 'must be a string');
  if (characters(note) > INTEREST_NOTE_MAX) throw invalid('note', `must be at most ${INTEREST_NOTE_MAX} characters`);
  const subject = input.subject as InterestSubject;
  let name = raw;
  let publisherId: number | null = null;
  if (subject === 'publication') {
    const pub = await findPublisherBySlug(deps.db, raw.toLowerCase());
    if (!pub) throw invalid('name', 'no publication has this slug');
    publisherId = pub.id;
    name = pub.name;
  } else if (subject === 'topic') {
    name = normaliseTopic(raw);
  }
  const current = await store.listInterests(deps.db, [accountId]);
  if (current.length >= INTERESTS_MAX) throw new DomainError('conflict', `At most ${INTERESTS_MAX} interests at once; end one first`);
  const id = await store.insertInterest(deps.db, { account_id: accountId, subject, name, publisher_id: publisherId, kind: input.kind as InterestKind, note, declared_at: isoNow(deps.clock) });
  return (await store.listInterests(deps.db, [accountId])).find((i) => i.id === id)!;
}

/** End one of the caller's interests (kept, with its end, for the proofs of work done while it was held). */
export async function endInterest(deps: Deps, accountId: number, id: number): Promise<void> {
  if (!(await store.endInterest(deps.db, accountId, id, isoNow(deps.clock)))) throw notFound('Interest');
}

export const listOwnInterests = (deps: Deps, accountId: number) => store.listInterests(deps.db, [accountId]);
export const interestsOf = (db: Db, accountIds: number[]) => store.listInterests(db, accountIds);

/**
 * Refuse work for a publication the person declared an interest in (taking its requests, submitting on its pages):
 * 403 naming the interest, whichever surface asked.
 */
export async function assertNoInterestIn(db: Db, accountId: number, publisherId: number): Promise<void> {
  const held = await store.findPublicationInterest(db, accountId, publisherId);
  if (held) {
    throw new DomainError(
      'forbidden',
      `You declared an interest in ${held.name} (${held.kind}): you cannot take its requests or submit work on its pages. End the declaration first if it no longer holds.`,
    );
  }
}

/** The interests that bear on work on a page: in its publication or its topic. */
export function relatedTo(interests: Interest[], page: { publisher_id: number; topic: string }): Interest[] {
  const topic = normaliseTopic(page.topic ?? '');
  return interests.filter((i) => (i.subject === 'publication' && i.publisher_id === page.publisher_id) || (i.subject === 'topic' && topic !== '' && i.name === topic));
}

/** Interests held at a time: declared by then and not ended before. */
export const heldAt = (interests: Interest[], at: string): Interest[] => interests.filter((i) => i.declared_at <= at && (i.ended_at === null || i.ended_at > at));

/** Every interest of some people, ended ones included (proofs show those held when the work was accepted). */
export const allInterestsOf = (db: Db, accountIds: number[]) => store.listInterests(db, accountIds, true);
