// The fixed names the tables store and the domain writes: change kinds, event types, levels, why a webhook is
// disabled. They sit here, below both, so that schema.ts can type its columns without importing the domain that
// imports it. The domain re-exports each from the module that works with it (change-log.ts, outbox.ts, scores.ts,
// vocabulary.ts), and src/domain/vocabulary.ts checks every list against its type.

/** What one entry of the change log records (docs/changes.md lists each kind's fields). */
export type ChangeKind =
  | 'page.registered'
  | 'page.updated'
  | 'page.changed'
  | 'page.notice'
  | 'contribution.accepted'
  | 'contribution.withdrawn'
  | 'contributor.created'
  | 'contributor.updated'
  | 'publisher.created'
  | 'domain.verified'
  | 'domain.moved'
  | 'domain.revoked'
  | 'panel.issued'
  | 'contributor.erased'
  | 'panel.flagged'
  // An operator's decision on a report or an appeal (docs/trust-and-safety.md): no notifier, no content.
  | 'moderation.decided';

/** What an outbox event announces to webhooks (SPEC §10). */
export type EventType =
  | 'page.registered'
  | 'page.changed'
  | 'page.notice'
  | 'contribution.submitted'
  | 'contribution.accepted'
  | 'contribution.withdrawn'
  | 'request.taken'
  | 'submission.received'
  | 'panel.updated'
  // A person's own webhooks only: asked to confirm a naming; named by the public record; no longer named.
  | 'contributor.named'
  | 'contributor.credited'
  | 'contributor.uncredited';

/** A contributor's level (SPEC §13). */
export type Level = 'newcomer' | 'contributor' | 'trusted' | 'expert';

/** Why a webhook is disabled: 20 failed attempts in a row over at least 24 hours, or its owner paused it. */
export const DISABLED_REASONS = ['failures', 'owner'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];
