// The domain's fixed lists as values (SPEC §2, §4, §13): states, kinds, levels, event and change names. Each is
// checked against the type it lists, both ways, so a value added to one and forgotten in the other breaks the
// build. The surfaces make their schema enums from these (src/surfaces/vocabulary.ts); nothing restates them.
import type { AssertedBy, AuthorLinkState, ClaimPreference, ClaimState, Consent, DomainsTable, PublisherMembersTable, RequestsTable, SubmissionsTable, WorkKind } from '../db/schema.js';
import type { NamingStatus } from './consent/consent.service.js';
import type { KeyStatus } from './api-keys/api-key.service.js';
import type { ItemStatus } from './batch.js';
import type { ChangeKind } from './changes/change-log.js';
import type { EventType } from './events/outbox.js';
import type { Level } from './reputation/scores.js';

/** Accepts a list only when it names every member of `T` (and, by its element type, nothing else). */
const every =
  <T extends string>() =>
  <const L extends readonly T[]>(list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : { missing: Exclude<T, L[number]> })): L =>
    list;

/** Every kind of work, `author` included: the role of a contribution on both surfaces (SPEC §2). */
export const WORK_KINDS = every<WorkKind>()(['review', 'fact_check', 'edit', 'correction', 'source', 'author']);
export const REQUEST_STATUSES = every<RequestsTable['status']>()(['open', 'taken', 'fulfilled', 'cancelled']);
export const SUBMISSION_STATUSES = every<SubmissionsTable['status']>()(['pending', 'accepted', 'rejected', 'withdrawn']);
export const MEMBER_ROLES = every<PublisherMembersTable['role']>()(['owner', 'editor']);
export const DOMAIN_STATUSES = every<DomainsTable['status']>()(['pending', 'verified']);
export const DOMAIN_METHODS = every<NonNullable<DomainsTable['verified_by']>>()(['dns', 'file', 'operator']);
export const KEY_STATUSES = every<KeyStatus>()(['active', 'revoked', 'expired']);
export const ITEM_STATUSES = every<ItemStatus>()(['created', 'updated', 'skipped', 'failed']);
export const LEVELS = every<Level>()(['newcomer', 'contributor', 'trusted', 'expert']);
export const EVENT_TYPES = every<EventType>()([
  'page.registered',
  'page.changed',
  'page.notice',
  'contribution.submitted',
  'contribution.accepted',
  'contribution.withdrawn',
  'request.taken',
  'submission.received',
  'panel.updated',
  'contributor.named',
  'contributor.credited',
  'contributor.uncredited',
]);
export const CHANGE_KINDS = every<ChangeKind>()([
  'page.registered',
  'page.updated',
  'page.changed',
  'page.notice',
  'contribution.accepted',
  'contribution.withdrawn',
  'contributor.created',
  'contributor.updated',
  'publisher.created',
  'domain.verified',
  'domain.moved',
  'domain.revoked',
  'panel.issued',
  'contributor.erased',
  'panel.flagged',
  'moderation.decided',
]);
/** Consent: who asserted a public contribution, how its person agreed, a claim's states, a person's
 * standing answers to a publication, and what naming an author at registration did. */
export const ASSERTERS = every<AssertedBy>()(['publisher', 'contributor', 'operator']);
export const CONSENTS = every<Consent>()(['confirmed', 'standing_permission', 'submitted', 'operator', 'not_asked']);
export const CLAIM_STATES = every<ClaimState>()(['pending', 'confirmed', 'declined', 'withdrawn']);
export const CLAIM_PREFERENCES = every<ClaimPreference>()(['permit', 'refuse']);
/** A CMS user linked to a person: asked, then the person's answer (ended: they unlinked it later). */
export const AUTHOR_LINK_STATES = every<AuthorLinkState>()(['pending', 'confirmed', 'declined', 'ended']);
export const NAMING_STATUSES = every<NamingStatus>()(['published', 'pending', 'declined', 'withdrawn', 'refused', 'limited']);
/** Decisions on submitted work (SPEC §4). */
export const DECISIONS = ['accept', 'reject'] as const;
/** Why a webhook is disabled (stored, so kept with the tables' names). */
export { DISABLED_REASONS } from '../db/vocabulary.js';
