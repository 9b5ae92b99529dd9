// Every fixed list of both surfaces as one schema enum per concept, made from the domain's own lists
// (src/domain/vocabulary.ts and its neighbours): routes and presenters use these, so a field that can only hold a
// known value says so in the OpenAPI documents (test/api/openapi.enums.test.ts checks no such field is a plain
// string) and in the generated client's types. A surface's own words (credential, record status) live here too.
import Type from 'typebox';
import { MAX_URL_LENGTH } from '../domain/pages/url-keys.js';
import { MAX_WEBHOOK_URL } from '../domain/webhooks/target.js';
import { VERDICT_LABELS, VERDICTS } from '../domain/submissions/verdicts.js';
import {
  ASSERTERS,
  CHANGE_KINDS,
  CLAIM_PREFERENCES,
  CLAIM_STATES,
  AUTHOR_LINK_STATES,
  CONSENTS,
  DECISIONS,
  DISABLED_REASONS,
  DOMAIN_METHODS,
  DOMAIN_STATUSES,
  EVENT_TYPES,
  ITEM_STATUSES,
  KEY_STATUSES,
  LEVELS,
  MEMBER_ROLES,
  NAMING_STATUSES,
  REQUEST_STATUSES,
  SUBMISSION_STATUSES,
  WORK_KINDS,
} from '../domain/vocabulary.js';
import { SUBMITTABLE_ROLES, V1_REQUEST_TYPES } from '../domain/work-kinds.js';
import { DRIFTING_ROLES } from '../domain/pages/drift.js';
import { NOTICE_TYPES, STANDINGS } from '../domain/pages/notices.js';
import { StringEnum } from '../http/schemas.js';
import { NOTICE_KINDS } from '../domain/mail/mail.kinds.js';
import type { AssertedBy, Consent } from '../db/schema.js';

/** A page record's `status` (SPEC §4): `verified` while the page's host is under a verified domain of its publisher. */
export const RECORD_STATUSES = ['verified', 'unverified'] as const;
export const RecordStatus = StringEnum(RECORD_STATUSES);
/** A notice on a page, in Crossmark's words where they fit (docs/decisions/page-notices.md). */
export const NoticeType = StringEnum(NOTICE_TYPES, { description: 'What the notice says happened to the page (docs/decisions/page-notices.md)' });
/** A page's standing after its notices: `current` unless the newest notice that sets one says otherwise. */
export const Standing = StringEnum(STANDINGS, {
  description: '`current`, or what the newest notice that sets a standing says: `retracted`, `partially_retracted`, `expression_of_concern`, `withdrawn`, `removed`',
});
/** A contribution's `role` on both surfaces (SPEC §2): every kind of work, `author` included. */
export const WorkRole = StringEnum(WORK_KINDS);
/** The kinds of work a contributor submits or a publisher requests, in the canonical words (/v1 `type`). */
export const RequestableKind = StringEnum(V1_REQUEST_TYPES);
export const SubmittableRole = StringEnum(SUBMITTABLE_ROLES);
export const RequestStatus = StringEnum(REQUEST_STATUSES);
export const SubmissionStatus = StringEnum(SUBMISSION_STATUSES);
export const Decision = StringEnum(DECISIONS);
/** How a proof's contribution was decided: accepted work, or an author the publisher named. */
export const ProofDecision = StringEnum(['accept', 'named_by_publisher'] as const, { description: '`accept`, or `named_by_publisher` for an author' });
export const Level = StringEnum(LEVELS, { description: 'SPEC §13: `newcomer` (fewer than 3 accepted), `contributor`, `trusted`, `expert`' });
export const VerdictName = StringEnum(VERDICTS);
export const VerdictLabel = StringEnum(VERDICTS.map((v) => VERDICT_LABELS[v]));
export const MemberRole = StringEnum(MEMBER_ROLES);
export const DomainStatus = StringEnum(DOMAIN_STATUSES);
export const DomainMethod = StringEnum(DOMAIN_METHODS, { description: 'How the domain was verified' });
/** Who a credential acts for (`GET /whoami`). */
export const CREDENTIALS = ['publisher_key', 'contributor_key', 'session'] as const;
export const Credential = StringEnum(CREDENTIALS);
/** The kinds of notice mail a person can turn off. */
export const NoticeKind = StringEnum(NOTICE_KINDS);
export const KEY_KINDS = ['publisher', 'contributor'] as const;
export const KeyKind = StringEnum(KEY_KINDS, { description: 'Fixed at creation' });
export const KeyStatus = StringEnum(KEY_STATUSES);
export const ItemStatus = StringEnum(ITEM_STATUSES);
/** An event of either webhook format (a delivery's `event`; an endpoint's `events`). */
export const EventType = StringEnum(EVENT_TYPES);
export const DisabledReason = StringEnum(DISABLED_REASONS, { description: '`failures` (20 failed attempts in a row, over at least 24 hours) or `owner`' });
/** Who said a contribution in public, and how its person agreed. */
export const Provenance = Type.Object(
  {
    asserted_by: StringEnum(ASSERTERS, { description: '`publisher` (the publication named them), `contributor` (they submitted the work), `operator`' }),
    consent: StringEnum(CONSENTS, {
      description: '`confirmed` (they confirmed the publication’s claim), `standing_permission` (they let this publication publish its claims), `submitted` (agreed by submitting), `operator`',
    }),
  },
  { description: 'Who asserted this contribution and how its person agreed' },
);
/** A contribution's provenance, field by field. */
export const provenanceOf = (c: { asserted_by: AssertedBy; consent: Consent }) => ({ asserted_by: c.asserted_by, consent: c.consent });
export const AuthorLinkState = StringEnum(AUTHOR_LINK_STATES, {
  description: '`pending` until the person answers; `confirmed` (name them as this user’s author), `declined`, or `ended` (the person unlinked it)',
});
export const ClaimState = StringEnum(CLAIM_STATES, { description: '`pending` until the person answers; `confirmed`, `declined`, or `withdrawn` (published, then taken back)' });
export const ClaimPreference = StringEnum(CLAIM_PREFERENCES, { description: '`permit`: this publication’s claims publish at once (members only); `refuse`: no claims from it' });
export const NamingStatus = StringEnum(NAMING_STATUSES, {
  description:
    '`published` (the person lets this publication publish at once, or was named already), `pending` (a claim waits for them), `declined`, `withdrawn` (they took their name back), `refused` (they refuse this publication’s claims), `limited` (too many claims waiting)',
});
/** A change-feed entry's (and a transparency-log entry's) `kind`; docs/changes.md describes each. */
export const ChangeKind = StringEnum(CHANGE_KINDS);

/** A fact check's verdict on the five-step scale (docs/decisions/linked-data.md). */
export const Verdict = Type.Object({
  value: Type.Integer({ minimum: 1, maximum: 5, description: '1 (false) to 5 (true)' }),
  name: VerdictName,
  label: VerdictLabel,
});

/** A page's address as given (SPEC §3: http or https, at most 2,048 characters). */
export const PageUrl = Type.String({ format: 'uri', maxLength: MAX_URL_LENGTH });
/** A webhook endpoint (SPEC §10: https, on a public address; checked again at every attempt). */
export const WebhookUrl = Type.String({ format: 'uri', maxLength: MAX_WEBHOOK_URL });
/** An address of this service (`record_url`, `profile_url`, `proof_url`, links), absolute under SITE_URL. */
export const ServiceUrl = Type.String({ format: 'uri' });
/** The kinds of work whose accepted entries a change to the page's text concerns (`page.changed`). */
export const DriftingRole = StringEnum(DRIFTING_ROLES);
