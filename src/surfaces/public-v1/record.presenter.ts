// The /v1 page record: every accepted contribution, oldest first, with `change` on corrections.
import Type from 'typebox';
import type { PageRecord } from '../../domain/pages/record.js';
import { LogLink, presentLogLink } from '../log-link.js';
import { Nullable } from '../../http/schemas.js';
import { claimOf, driftOf } from '../linked-data/drift.presenter.js';
import { contributionRef, proofUrl } from '../urls.js';
import { PageUrl, Provenance, RecordStatus, ServiceUrl, Standing, Verdict, WorkRole, provenanceOf } from '../vocabulary.js';
import { Notices, presentNotices } from '../notices.presenter.js';

export const V1Contribution = Type.Object({
  id: Type.String({ description: '`ctb_<id>`' }),
  role: WorkRole,
  name: Type.String({ description: 'Contributor display name' }),
  contributor: Type.String({ description: 'Contributor username (profile slug)' }),
  accepted: Type.String({ format: 'date', description: 'Acceptance date, YYYY-MM-DD' }),
  change: Type.Optional(Type.Object({ from: Type.String(), to: Type.String() })),
  proof_url: ServiceUrl,
  log: LogLink,
  claim_reviewed: Type.Optional(Type.String({ description: 'Fact checks with a verdict: the claim checked' })),
  verdict: Type.Optional(Verdict),
  page_changed_since: Nullable(
    Type.String({ format: 'date-time', description: 'Reviews, fact checks and corrections: when the page’s text changed after this work; null while it has not' }),
  ),
  correction_missing: Nullable(Type.Boolean({ description: 'Corrections: true when the corrected text no longer appears on the page; null when unknown' })),
  provenance: Provenance,
});

export const V1PageRecord = Type.Object({
  url: PageUrl,
  status: RecordStatus,
  standing: Standing,
  title: Type.String(),
  content_changed_at: Nullable(Type.String({ format: 'date-time', description: 'When the page’s text last changed, as far as the service knows' })),
  contributions: Type.Array(V1Contribution),
  notices: Notices,
});

export function presentV1Record(siteUrl: string, record: PageRecord) {
  return {
    url: record.page.url,
    status: record.verified ? ('verified' as const) : ('unverified' as const),
    standing: record.standing,
    title: record.page.title,
    content_changed_at: record.page.content_changed_at,
    contributions: record.contributions.map((c) => ({
      id: contributionRef(c.id),
      role: c.role,
      name: c.name,
      contributor: c.username,
      accepted: c.accepted_at.slice(0, 10),
      ...(c.role === 'correction' && c.change_from !== null && c.change_to !== null
        ? { change: { from: c.change_from, to: c.change_to } }
        : {}),
      proof_url: proofUrl(siteUrl, c.id),
      log: presentLogLink(siteUrl, c.log_seq),
      ...claimOf(c),
      ...driftOf(c),
      provenance: provenanceOf(c),
    })),
    notices: presentNotices(siteUrl, record.notices),
  };
}
