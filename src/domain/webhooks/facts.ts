// The facts each event carries in the outbox (`events.payload`), as the services that write them lay them out
// (pages, requests, submissions, panels). Each surface's webhook presenter reads these and nothing else, so a
// payload never needs a database read at send time and every retry sends what was true when the event happened.
import type { WorkKind } from '../work-kinds.js';

export interface PageFacts {
  id: number;
  url: string;
  title: string;
}

export interface SubmissionFacts {
  submission: {
    id: number;
    kind: WorkKind;
    status: 'pending' | 'accepted' | 'rejected' | 'withdrawn';
    summary: string;
    request_id: number | null;
    evidence: { before: string | null; after: string | null; reason: string; sources: string[] };
  };
  contributor: { username: string; name: string };
  page: PageFacts;
}

export interface AcceptedFacts extends SubmissionFacts {
  contribution: { id: number; role: WorkKind; accepted_at: string; change: { from: string | null; to: string | null } | null };
}

/**
 * An authorship published (its person confirmed the claim, or a standing permission of theirs published it at once):
 * `contribution.accepted` with no submission behind it.
 */
export interface AuthorshipFacts {
  authorship: { consent: 'confirmed' | 'standing_permission' };
  contribution: { id: number; role: 'author'; summary: string; accepted_at: string };
  contributor: { username: string; name: string };
  page: PageFacts;
}

/**
 * Published work its person took their name back from, or an authorship named before consent existed
 * taken off until its person confirms (`unconfirmed`). The /v1 `contribution.withdrawn` event covers it beside a
 * pending submission withdrawn (SubmissionFacts).
 */
export interface WithdrawnFacts {
  withdrawn: {
    contribution_id: number;
    submission_id: number | null;
    role: WorkKind;
    summary: string;
    accepted_at: string;
    reason: 'withdrawn' | 'unconfirmed';
  };
  contributor: { username: string; name: string };
  page: PageFacts;
}

export interface RequestTakenFacts {
  request: { id: number; kind: WorkKind; status: string; taken_by: string | null; topic: string };
  page: PageFacts;
}

export interface PageRegisteredFacts {
  page_id: number;
  url: string;
  title: string;
  topic: string;
}

export interface PanelUpdatedFacts {
  panel_id: string;
  version: number;
  previous_version: number | null;
  topic: string;
  changes: Record<string, { from: unknown; to: unknown }>;
}

/** The topics a `panel.updated` concerns: the statement's topic now, and the one it had if that changed. */
export function panelTopics(f: PanelUpdatedFacts): string[] {
  const before = f.changes.topic?.from;
  return [...new Set([f.topic, ...(typeof before === 'string' ? [before] : [])])];
}

/**
 * What a person's own webhook hears. `named`: a publication named them as an author of a page and waits
 * for their answer (nothing public yet). `credited` and `uncredited`: the public change log's entry that now names
 * them, or no longer does (`seq` finds it in the feed and the log), without the person's own name.
 */
export interface NamedFacts {
  claim_id: number;
  role: 'author';
  page: PageFacts;
  publisher: { slug: string; name: string };
}

export interface CreditedFacts {
  seq: number;
  page: PageFacts;
  publisher: { slug: string; name: string };
  contribution: {
    id: number;
    role: WorkKind;
    summary: string;
    accepted_at: string;
    change?: { from: string; to: string };
    provenance: { asserted_by: string; consent: string };
  };
}

export interface UncreditedFacts {
  seq: number;
  page: PageFacts;
  publisher: { slug: string; name: string };
  contribution: { id: number; role: WorkKind; withdrawn_at: string; reason: 'withdrawn' | 'unconfirmed' };
}
