// A panel statement version as /v1 publishes it (seed §2 "Panel statement", plus `topic` and `current_version`).
// The admin routes answer the same shape, so an admin sees exactly what readers will.
import Type from 'typebox';
import type { StatementView } from '../../domain/panels/panel.service.js';
import { CERTAINTIES, PANEL_VOTES, REOPEN_TRIGGERS } from '../../domain/panels/panel.schema.js';
import { StringEnum } from '../../http/schemas.js';
import { FLAG_REASONS, REVISIT_DUE } from '../../domain/panels/review-flags.js';
import { LogLink, presentLogLink } from '../log-link.js';
import { profileUrl } from '../urls.js';

export const V1PanelEntry = Type.Object({
  name: Type.String(),
  role: Type.String({ description: 'e.g. `chair`, `member`' }),
  vote: StringEnum(PANEL_VOTES),
  username: Type.Optional(Type.String({ description: 'Present when the panellist has an account' })),
  profile_url: Type.Optional(Type.String({ format: 'uri', description: 'The panellist’s public profile, when they have an account' })),
});

export const V1PanelStatement = Type.Object({
  id: Type.String({ description: 'Statement identifier (slug-like)' }),
  question: Type.String(),
  version: Type.Integer({ description: 'This version; starts at 1' }),
  status: StringEnum(['issued', 'superseded'] as const, { description: '`issued` for the current version' }),
  answer: Type.String(),
  certainty: StringEnum(CERTAINTIES),
  vote: Type.Object({ agree: Type.Integer(), dissent: Type.Integer() }),
  panel: Type.Array(V1PanelEntry),
  issued_at: Type.String({ format: 'date-time', description: 'When this version was issued' }),
  revisit_by: Type.String({ format: 'date' }),
  reopen_triggers: Type.Array(StringEnum(REOPEN_TRIGGERS)),
  topic: Type.String(),
  current_version: Type.Integer({ description: 'The statement’s current version' }),
  log: LogLink,
  sources: Type.Array(Type.String({ format: 'uri' }), { description: 'The pages this version cites' }),
  review: Type.Object(
    {
      needed: Type.Boolean({ description: 'true while a flag stands: the panel should look again; the next version clears it' }),
      flags: Type.Array(
        Type.Object({
          reason: StringEnum([...FLAG_REASONS, REVISIT_DUE] as const, {
            description:
              '`source_corrected` (a cited page got an accepted correction), `source_retracted` (retracted, withdrawn or removed), `source_concern` (an expression of concern), `source_changed` (its text changed after this version was issued), `revisit_due` (the revisit date passed)',
          }),
          source: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'The cited page; null for `revisit_due`' }),
          link: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'Where to read what happened: the correction’s proof, the page’s record' }),
          flagged_at: Type.String({ format: 'date-time' }),
        }),
      ),
    },
    { description: 'Flags raised on this version: `reopen_triggers` as facts' },
  ),
});

export function presentV1Statement(siteUrl: string, s: StatementView) {
  const c = s.content;
  return {
    id: s.id,
    question: c.question,
    version: s.version,
    status: s.status,
    answer: c.answer,
    certainty: c.certainty,
    vote: { agree: c.vote.agree, dissent: c.vote.dissent },
    panel: c.panel.map((p) => ({
      name: p.name,
      role: p.role,
      vote: p.vote,
      ...(p.username ? { username: p.username, profile_url: profileUrl(siteUrl, p.username) } : {}),
    })),
    issued_at: s.issued_at,
    revisit_by: c.revisit_by,
    reopen_triggers: [...c.reopen_triggers],
    topic: c.topic,
    current_version: s.current_version,
    log: presentLogLink(siteUrl, s.log_seq),
    sources: [...s.sources],
    review: {
      // A superseded version keeps its flags as history; only the current one still needs review.
      needed: s.status === 'issued' && s.review.length > 0,
      flags: s.review.map((f) => ({
        reason: f.reason as (typeof FLAG_REASONS)[number] | typeof REVISIT_DUE,
        source: f.source,
        link: f.link === null ? null : `${siteUrl}${f.link}`,
        flagged_at: f.flagged_at,
      })),
    },
  };
}
