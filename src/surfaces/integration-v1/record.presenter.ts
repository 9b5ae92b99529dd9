// The /api/v1 page trust record (lookup, /articles/{id}, /pages items). Field by field, never a spread row.
import Type from 'typebox';
import { type PageRecord, hasRecord } from '../../domain/pages/record.js';
import { Nullable } from '../../http/schemas.js';
import { LogLink, presentLogLink } from '../log-link.js';
import { claimOf, driftOf } from '../linked-data/drift.presenter.js';
import { profileUrl, proofUrl, recordUrl } from '../urls.js';
import { Level, PageUrl, Provenance, RecordStatus, ServiceUrl, Standing, Verdict, provenanceOf } from '../vocabulary.js';
import { Notices, presentNotices } from '../notices.presenter.js';
import type { Static } from 'typebox';
import type { Level as LevelName } from '../../domain/reputation/scores.js';

export const ContributorEntry = Type.Object({
  username: Type.String(),
  name: Type.String(),
  level: Level,
  trust_score: Type.Number(),
  summary: Type.String(),
  profile_url: ServiceUrl,
  proof_url: ServiceUrl,
  log: { ...LogLink, description: 'The transparency-log entry of the contribution proof_url names; null before the log began' },
  claim_reviewed: Type.Optional(Type.String({ description: 'Fact checks with a verdict (of the proof’s contribution): the claim checked' })),
  verdict: Type.Optional(Verdict),
  page_changed_since: Nullable(
    Type.String({ format: 'date-time', description: 'When the page’s text changed after the proof’s contribution (reviews, fact checks, corrections); null while it has not' }),
  ),
  correction_missing: Nullable(Type.Boolean({ description: 'Corrections: true when the corrected text no longer appears on the page; null when unknown' })),
  provenance: { ...Provenance, description: 'Who asserted the proof’s contribution and how its person agreed' },
});

export const TrustRecord = Type.Object({
  id: Nullable(Type.Integer()),
  url: PageUrl,
  title: Nullable(Type.String()),
  topic: Nullable(Type.String()),
  has_record: Type.Boolean(),
  registered: Type.Boolean(),
  status: Nullable({ ...RecordStatus, description: 'null for an unknown page' }),
  standing: Nullable({ ...Standing, description: 'What the page’s notices leave it as (`current` without any); null for an unknown page' }),
  content_changed_at: Nullable(Type.String({ format: 'date-time', description: 'When the page’s text last changed, as far as the service knows' })),
  record_url: Nullable(ServiceUrl),
  publisher: Nullable(Type.Object({ slug: Type.String(), name: Type.String(), verified: Type.Boolean() })),
  contributors: Type.Record(Type.String(), Type.Array(ContributorEntry), {
    description: 'Accepted work keyed by role (`author`, `review`, `fact_check`, `edit`, `correction`, `source`)',
  }),
  notices: Notices,
});

export function presentTrustRecord(siteUrl: string, url: string, record: PageRecord | null) {
  if (!record) {
    return {
      id: null,
      url,
      title: null,
      topic: null,
      has_record: false,
      registered: false,
      status: null,
      standing: null,
      content_changed_at: null,
      record_url: null,
      publisher: null,
      contributors: {},
      notices: [],
    };
  }
  const { page } = record;
  return {
    id: page.id,
    url: page.url,
    title: page.title,
    topic: page.topic,
    has_record: hasRecord(record),
    registered: true,
    status: record.verified ? ('verified' as const) : ('unverified' as const),
    standing: record.standing,
    content_changed_at: page.content_changed_at,
    record_url: recordUrl(siteUrl, page.id),
    publisher: { slug: page.publisher_slug, name: page.publisher_name, verified: record.verified },
    contributors: groupContributors(siteUrl, record),
    notices: presentNotices(siteUrl, record.notices),
  };
}

/** One entry per contributor and role; the proof is their latest accepted contribution in that role. */
function groupContributors(siteUrl: string, record: PageRecord) {
  const byRole: Record<string, Map<number, { entry: ReturnType<typeof entryOf>; summaries: string[] }>> = {};
  for (const c of record.contributions) {
    const role = (byRole[c.role] ??= new Map());
    const existing = role.get(c.account_id);
    if (existing) {
      // The entry speaks for its proof: the contributor's latest work in that role.
      const { summary: _summary, ...latest } = entryOf(siteUrl, c);
      Object.assign(existing.entry, latest, { summary: existing.entry.summary });
      delete existing.entry.claim_reviewed;
      delete existing.entry.verdict;
      Object.assign(existing.entry, claimOf(c));
      if (c.summary && !existing.summaries.includes(c.summary)) existing.summaries.push(c.summary);
      existing.entry.summary = existing.summaries.join('; ');
    } else {
      role.set(c.account_id, { entry: entryOf(siteUrl, c), summaries: c.summary ? [c.summary] : [] });
    }
  }
  const out: Record<string, ReturnType<typeof entryOf>[]> = {};
  for (const [role, entries] of Object.entries(byRole)) out[role] = [...entries.values()].map((e) => e.entry);
  return out;
}

function entryOf(siteUrl: string, c: PageRecord['contributions'][number]) {
  return {
    username: c.username,
    name: c.name,
    level: c.level,
    trust_score: c.trust_score,
    summary: c.summary,
    profile_url: profileUrl(siteUrl, c.username),
    proof_url: proofUrl(siteUrl, c.id),
    log: presentLogLink(siteUrl, c.log_seq),
    ...claimOf(c),
    ...driftOf(c),
    provenance: provenanceOf(c),
  } as {
    username: string;
    name: string;
    level: LevelName;
    trust_score: number;
    summary: string;
    profile_url: string;
    proof_url: string;
    claim_reviewed?: string;
    verdict?: Static<typeof Verdict>;
    page_changed_since: string | null;
    correction_missing: boolean | null;
    log: ReturnType<typeof presentLogLink>;
    provenance: ReturnType<typeof provenanceOf>;
  };
}
