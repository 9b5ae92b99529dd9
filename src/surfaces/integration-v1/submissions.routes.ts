// Submitted work on /api/v1: contributors submit, list and withdraw their own; publishers read their inbox and
// decide.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { type ItemResult, splitBatch } from '../../domain/batch.js';
import type { Deps } from '../../domain/deps.js';
import * as submissions from '../../domain/submissions/submission.service.js';
import { accountOf, actingPublishers, contributorCaller, publisherCaller } from '../../http/auth.js';
import { ApiList, Batch, IdParam, ItemError, Ok, PageQuery, pagination } from '../../http/schemas.js';
import { itemValidator } from '../../http/validation.js';
import { proofUrl } from '../urls.js';
import { BatchResult, ItemResultData, presentItemResult, sendBatch } from './batch.presenter.js';
import { ApiSubmission, QuoteInput, presentApiSubmission } from './work.presenter.js';
import { Decision, ItemStatus, PageUrl, ServiceUrl, SubmissionStatus, SubmittableRole, VerdictName } from '../vocabulary.js';
import { link } from '../docs/openapi.js';
import { NON_BLANK_PATTERN } from '../../domain/text.js';

export const SubmissionItem = Type.Object(
  {
    url: Type.Optional({ ...PageUrl, description: 'A registered page' }),
    article_ref_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
    request_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'A request the caller has taken' })),
    role: Type.Optional({ ...SubmittableRole, description: 'Required without request_id' }),
    summary: Type.String({ minLength: 1, maxLength: 300, pattern: NON_BLANK_PATTERN, description: 'One line: what the work changes' }),
    evidence: Type.Object(
      {
        before: Type.Optional(Type.String({ maxLength: 20_000, description: 'Corrections: the text before, required and not blank' })),
        after: Type.Optional(Type.String({ maxLength: 20_000, description: 'Corrections: the text after, required and not blank' })),
        reason: Type.String({ minLength: 1, maxLength: 5_000, pattern: NON_BLANK_PATTERN }),
        sources: Type.Array(PageUrl, { maxItems: 20, description: 'http(s) URLs of the sources, without a user name or password; stored and answered as the WHATWG parser serialises each, percent-encoded where RFC 3986 wants it (`a b` → `a%20b`)' }),
      },
      { additionalProperties: false },
    ),
    quote: Type.Optional(QuoteInput),
    claim_reviewed: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1_000, pattern: NON_BLANK_PATTERN, description: 'Fact checks: the claim checked, as the page makes it; given with `verdict`' }),
    ),
    verdict: Type.Optional({
      ...VerdictName,
      description: 'Fact checks: the verdict on `claim_reviewed`, on the 1-5 scale `false` … `true` (docs/decisions/linked-data.md)',
    }),
  },
  { additionalProperties: false },
);
const validateSubmission = itemValidator<Type.Static<typeof SubmissionItem>>(SubmissionItem);

export const DecisionItem = Type.Object(
  {
    submission_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    decision: Decision,
    note: Type.Optional(Type.String({ maxLength: 5_000, description: 'Reason given to the contributor' })),
  },
  { additionalProperties: false },
);
const validateDecision = itemValidator<Type.Static<typeof DecisionItem>>(DecisionItem);

const DecisionResult = Type.Object({
  index: Type.Integer(),
  status: { ...ItemStatus, description: '`created` (accepted: the public contribution was made), `updated` (rejected) or `failed`' },
  submission_id: Type.Optional(Type.Integer()),
  contribution_id: Type.Optional(Type.Integer()),
  proof_url: Type.Optional(ServiceUrl),
  error: Type.Optional(ItemError),
});

const StatusQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(SubmissionStatus),
  publisher: Type.Optional(Type.String({ maxLength: 100, description: 'Session callers: limit to one publication' })),
});

export function submissionRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['submissions'];
  const site = deps.config.siteUrl;

  app.post(
    '/submissions',
    {
      preValidation: [contributorCaller],
      schema: {
        tags,
        summary: 'Submit work on a page, in answer to a request or unasked (one object, or an array of at most 500)',
        body: Batch(SubmissionItem),
        response: { 200: Ok(BatchResult), 201: Ok(ItemResultData) },
        links: {
          201: {
            submission: link('getSubmissionsById', 'The submission, with its status and, once decided, the decision', { id: '$response.body#/data/id' }),
            withdraw: link('postSubmissionsByIdWithdraw', 'Withdraw it while it is pending', { id: '$response.body#/data/id' }),
          },
        },
      },
    },
    async (req, reply) => {
      const { single, items } = splitBatch(req.body, validateSubmission);
      const results = await submissions.submitWork(deps, accountOf(req), items);
      return sendBatch(reply, single, results, presentItemResult);
    },
  );

  app.get(
    '/submissions',
    {
      preValidation: [contributorCaller],
      schema: { tags, summary: 'The caller’s own submissions, newest first', querystring: StatusQuery, response: { 200: ApiList(ApiSubmission) } },
    },
    async (req) => {
      const { page, perPage } = pagination(req.query);
      const { rows, total } = await submissions.listOwnSubmissions(deps, accountOf(req), req.query.status, page, perPage);
      return { success: true as const, data: rows.map((s) => presentApiSubmission(site, s)), meta: { total, page, per_page: perPage } };
    },
  );

  // Digits only, so `GET /submissions/decide` is a 405 (POST only), not a read of a submission called `decide`.
  app.get(
    '/submissions/:id(^\\d+$)',
    {
      preValidation: [contributorCaller],
      schema: {
        tags,
        summary: 'One submission of one’s own, with its evidence and, once decided, the decision',
        params: IdParam,
        response: { 200: Ok(ApiSubmission) },
      },
    },
    async (req) => ({ success: true as const, data: presentApiSubmission(site, await submissions.getOwnSubmission(deps, accountOf(req), req.params.id)) }),
  );

  app.post(
    '/submissions/:id/withdraw',
    {
      preValidation: [contributorCaller],
      schema: { tags, summary: 'Withdraw a pending submission of one’s own', params: IdParam, response: { 200: Ok(ApiSubmission) } },
    },
    async (req) => ({
      success: true as const,
      data: presentApiSubmission(site, await submissions.withdrawSubmission(deps, accountOf(req), req.params.id)),
    }),
  );

  app.get(
    '/publisher-auth/requests',
    {
      preValidation: [publisherCaller],
      schema: {
        tags,
        summary: 'Work submitted on the publisher’s pages, with its evidence, newest first',
        querystring: StatusQuery,
        response: { 200: ApiList(ApiSubmission) },
        // `publisher` names no publication of the caller's.
        errors: ['404'],
      },
    },
    async (req) => {
      const { page, perPage } = pagination(req.query);
      const publishers = await actingPublishers(deps, req, req.query.publisher);
      const { rows, total } = await submissions.listInbox(deps, publishers, req.query.status, page, perPage);
      return { success: true as const, data: rows.map((s) => presentApiSubmission(site, s)), meta: { total, page, per_page: perPage } };
    },
  );

  const presentDecision = (r: ItemResult) => ({
    index: r.index,
    status: r.status,
    ...(r.id !== undefined ? { submission_id: r.id } : {}),
    ...(typeof r.contributionId === 'number' ? { contribution_id: r.contributionId, proof_url: proofUrl(site, r.contributionId) } : {}),
    ...(r.error ? { error: r.error.toBody() } : {}),
  });

  app.post(
    '/submissions/decide',
    {
      preValidation: [publisherCaller],
      schema: {
        tags,
        summary: 'Accept or reject submitted work (one object, or an array of at most 500)',
        querystring: Type.Object({ publisher: Type.Optional(Type.String({ maxLength: 100 })) }),
        body: Batch(DecisionItem),
        response: {
          200: Ok(Type.Union([DecisionResult, Type.Object({ results: Type.Array(DecisionResult), summary: BatchResult.properties.summary })])),
        },
      },
    },
    async (req, reply) => {
      const { single, items } = splitBatch(req.body, validateDecision);
      const publishers = await actingPublishers(deps, req, req.query.publisher);
      const results = await submissions.decide(deps, accountOf(req), publishers, items);
      return sendBatch(reply, single, results, presentDecision, () => 200);
    },
  );
}
