// /api/v1 shapes of requests and submissions. Field by field; request kinds in this surface's own words.
import { InterestData, presentInterest } from '../interests.presenter.js';
import type { Interest } from '../../domain/interests/interest.service.js';
import Type from 'typebox';
import type { RequestRow } from '../../domain/requests/request.store.js';
import type { SubmissionRow } from '../../domain/submissions/submission.store.js';
import { API_REQUEST_TYPES, apiRequestType } from '../../domain/work-kinds.js';
import { Nullable, StringEnum } from '../../http/schemas.js';
import { verdictOf } from '../../domain/submissions/verdicts.js';
import { recordUrl } from '../urls.js';
import { Decision, PageUrl, RequestStatus, ServiceUrl, SubmissionStatus, Verdict, WorkRole } from '../vocabulary.js';
import { storedSources } from '../../domain/submissions/submission.service.js';
import { NON_BLANK_PATTERN } from '../../domain/text.js';

const PageRef = Type.Object({ id: Type.Integer(), url: PageUrl, title: Type.String(), record_url: ServiceUrl });
const PublisherRef = Type.Object({ slug: Type.String(), name: Type.String() });

export const ApiRequest = Type.Object({
  id: Type.Integer(),
  request_type: StringEnum(API_REQUEST_TYPES),
  status: RequestStatus,
  title: Type.String(),
  brief: Type.String(),
  topic: Type.String(),
  page: PageRef,
  publisher: PublisherRef,
  taken_by: Nullable(Type.String({ description: 'Username of the specialist who took it' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export function presentApiRequest(siteUrl: string, r: RequestRow) {
  return {
    id: r.id,
    request_type: apiRequestType(r.kind),
    status: r.status,
    title: r.title,
    brief: r.brief,
    topic: r.topic,
    page: { id: r.page_id, url: r.page_url, title: r.page_title, record_url: recordUrl(siteUrl, r.page_id) },
    publisher: { slug: r.publisher_slug, name: r.publisher_name },
    taken_by: r.taken_by_username,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export const QuoteInput = Type.Object(
  {
    exact: Type.String({ minLength: 1, maxLength: 5_000, pattern: NON_BLANK_PATTERN, description: 'The passage of the page the work is about, word for word' }),
    prefix: Type.Optional(Type.String({ maxLength: 200, description: 'A few words just before it, to tell repeated passages apart' })),
    suffix: Type.Optional(Type.String({ maxLength: 200, description: 'A few words just after it' })),
  },
  { additionalProperties: false, description: 'A W3C Web Annotation TextQuoteSelector' },
);

export const QuoteOutput = Nullable(Type.Object({ exact: Type.String(), prefix: Nullable(Type.String()), suffix: Nullable(Type.String()) }));
export const VerdictOutput = Nullable(Verdict);

export const presentQuote = (r: { quote_exact: string | null; quote_prefix: string | null; quote_suffix: string | null }) =>
  r.quote_exact !== null ? { exact: r.quote_exact, prefix: r.quote_prefix, suffix: r.quote_suffix } : null;

export const ApiSubmission = Type.Object({
  id: Type.Integer(),
  status: SubmissionStatus,
  role: WorkRole,
  summary: Type.String(),
  request_id: Nullable(Type.Integer()),
  page: PageRef,
  publisher: PublisherRef,
  contributor: Type.Object({
    username: Type.String(),
    name: Type.String(),
    interests: Type.Optional(Type.Array(InterestData, { description: 'In a publisher’s inbox: what the contributor declared might sway their work' })),
  }),
  evidence: Type.Object({
    before: Nullable(Type.String()),
    after: Nullable(Type.String()),
    reason: Type.String(),
    sources: Type.Array(PageUrl),
  }),
  decision: Nullable(
    Type.Object({ decision: Decision, note: Nullable(Type.String()), decided_at: Type.String({ format: 'date-time' }) }),
  ),
  quote: QuoteOutput,
  claim_reviewed: Nullable(Type.String()),
  verdict: VerdictOutput,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export function presentApiSubmission(siteUrl: string, s: SubmissionRow & { interests?: Interest[] }) {
  return {
    id: s.id,
    status: s.status,
    role: s.kind,
    summary: s.summary,
    request_id: s.request_id,
    page: { id: s.page_id, url: s.page_url, title: s.page_title, record_url: recordUrl(siteUrl, s.page_id) },
    publisher: { slug: s.publisher_slug, name: s.publisher_name },
    contributor: { username: s.username, name: s.name, ...(s.interests ? { interests: s.interests.map(presentInterest) } : {}) },
    evidence: { before: s.before_text, after: s.after_text, reason: s.reason, sources: storedSources(s.sources) },
    decision:
      s.decided_at && (s.status === 'accepted' || s.status === 'rejected')
        ? { decision: s.status === 'accepted' ? ('accept' as const) : ('reject' as const), note: s.decision_note, decided_at: s.decided_at }
        : null,
    quote: presentQuote(s),
    claim_reviewed: s.claim,
    verdict: verdictOf(s.verdict),
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}
