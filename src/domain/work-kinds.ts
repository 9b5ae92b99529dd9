// Kinds of work (SPEC §2): one canonical set stored, two vocabularies spoken. Each surface accepts and emits its
// own words; translation happens only here.
import type { WorkKind } from '../db/schema.js';

export type { WorkKind };

export const REQUESTABLE: readonly WorkKind[] = ['review', 'fact_check', 'edit', 'correction', 'source'];

/** /v1 request `type`: the canonical words. */
export const V1_REQUEST_TYPES = ['review', 'fact_check', 'edit', 'correction', 'source'] as const;

const API_BY_KIND = {
  review: 'reviewer',
  fact_check: 'fact_checker',
  edit: 'editor',
  correction: 'correction',
  source: 'source',
} as const satisfies Partial<Record<WorkKind, string>>;

/** /api/v1 `request_type`. */
export const API_REQUEST_TYPES = Object.values(API_BY_KIND);
export type ApiRequestType = (typeof API_REQUEST_TYPES)[number];

/** Requests are never of kind `author`, so every request kind has a word here. */
export const apiRequestType = (kind: WorkKind): ApiRequestType => API_BY_KIND[kind as keyof typeof API_BY_KIND];

export function kindFromApiRequestType(word: ApiRequestType): WorkKind {
  const found = (Object.entries(API_BY_KIND) as [WorkKind, string][]).find(([, w]) => w === word);
  if (!found) throw new Error(`unknown request_type ${word}`);
  return found[0];
}

/** Roles a contributor may submit work in (authors are named by publishers, not submitted). */
export const SUBMITTABLE_ROLES = REQUESTABLE;
