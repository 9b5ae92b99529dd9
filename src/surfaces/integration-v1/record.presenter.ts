// The /api/v1 page trust record (lookup, /articles/{id}, /pages items). Field by field, never a spread row.
import Type from 'typebox';
import { type PageRecord, hasRecord } from '../../domain/pages/record.js';
import { Nullable } from '../../http/schemas.js';
import { LogLink, presentLogLink } from '../log-link.js';
import { profileUrl, proofUrl, recordUrl } from '../urls.js';

export const ContributorEntry = Type.Object({
  username: Type.String(),
  name: Type.String(),
  level: Type.String(),
  trust_score: Type.Number(),
  summary: Type.String(),
  profile_url: Type.String(),
  proof_url: Type.String(),
  log: { ...LogLink, description: 'The transparency-log entry of the contribution proof_url names; null before the log began' },
});

export const TrustRecord = Type.Object({
  id: Nullable(Type.Integer()),
  url: Type.String(),
  title: Nullable(Type.String()),
  topic: Nullable(Type.String()),
  has_record: Type.Boolean(),
  registered: Type.Boolean(),
  status: Nullable(Type.String({ description: '`verified` or `unverified`; null for an unknown page' })),
  record_url: Nullable(Type.String()),
  publisher: Nullable(Type.Object({ slug: Type.String(), name: Type.String(), verified: Type.Boolean() })),
  contributors: Type.Record(Type.String(), Type.Array(ContributorEntry), {
    description: 'Accepted work keyed by role (`author`, `review`, `fact_check`, `edit`, `correction`, `source`)',
  }),
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
      record_url: null,
      publisher: null,
      contributors: {},
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
    status: record.verified ? 'verified' : 'unverified',
    record_url: recordUrl(siteUrl, page.id),
    publisher: { slug: page.publisher_slug, name: page.publisher_name, verified: record.verified },
    contributors: groupContributors(siteUrl, record),
  };
}

/** One entry per contributor and role; the proof is their latest accepted contribution in that role. */
function groupContributors(siteUrl: string, record: PageRecord) {
  const byRole: Record<string, Map<number, { entry: ReturnType<typeof entryOf>; summaries: string[] }>> = {};
  for (const c of record.contributions) {
    const role = (byRole[c.role] ??= new Map());
    const existing = role.get(c.account_id);
    if (existing) {
      existing.entry.proof_url = proofUrl(siteUrl, c.id);
      existing.entry.log = presentLogLink(siteUrl, c.log_seq);
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
  };
}
