// The /v1 page record: every accepted contribution, oldest first, with `change` on corrections.
import Type from 'typebox';
import type { PageRecord } from '../../domain/pages/record.js';
import { LogLink, presentLogLink } from '../log-link.js';
import { contributionRef, proofUrl } from '../urls.js';

export const V1Contribution = Type.Object({
  id: Type.String({ description: '`ctb_<id>`' }),
  role: Type.String(),
  name: Type.String({ description: 'Contributor display name' }),
  contributor: Type.String({ description: 'Contributor username (profile slug)' }),
  accepted: Type.String({ format: 'date', description: 'Acceptance date, YYYY-MM-DD' }),
  change: Type.Optional(Type.Object({ from: Type.String(), to: Type.String() })),
  proof_url: Type.String(),
  log: LogLink,
});

export const V1PageRecord = Type.Object({
  url: Type.String(),
  status: Type.String({ description: '`verified` or `unverified`' }),
  title: Type.String(),
  contributions: Type.Array(V1Contribution),
});

export function presentV1Record(siteUrl: string, record: PageRecord) {
  return {
    url: record.page.url,
    status: record.verified ? 'verified' : 'unverified',
    title: record.page.title,
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
    })),
  };
}
