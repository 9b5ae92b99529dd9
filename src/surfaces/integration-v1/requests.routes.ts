// Requests on /api/v1: publishers open and cancel them; the marketplace lists open ones; specialists take them.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { splitBatch } from '../../domain/batch.js';
import type { Deps } from '../../domain/deps.js';
import * as requests from '../../domain/requests/request.service.js';
import { API_REQUEST_TYPES, kindFromApiRequestType, type ApiRequestType } from '../../domain/work-kinds.js';
import { accountOf, actingPublisher, actingPublishers, contributorCaller, optional, publisherCaller } from '../../http/auth.js';
import { ApiList, Batch, IdParam, Ok, PageQuery, pagination, StringEnum } from '../../http/schemas.js';
import { itemValidator } from '../../http/validation.js';
import { BatchResult, ItemResultData, presentItemResult, sendBatch } from './batch.presenter.js';
import { ApiRequest, presentApiRequest } from './work.presenter.js';
import { PageUrl } from '../vocabulary.js';
import { link } from '../docs/openapi.js';

export const RequestItem = Type.Object(
  {
    url: Type.Optional({ ...PageUrl, description: 'The page (http(s), at most 2,048 characters); registered first if new' }),
    article_ref_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The page, by id (instead of url)' })),
    request_type: StringEnum(API_REQUEST_TYPES),
    title: Type.Optional(Type.String({ maxLength: 300 })),
    brief: Type.Optional(Type.String({ maxLength: 5000 })),
    topic: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
const validateRequestItem = itemValidator<Type.Static<typeof RequestItem>>(RequestItem);
const PublisherQuery = Type.Object({ publisher: Type.Optional(Type.String({ maxLength: 100 })) });

export function requestRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['requests'];
  const site = deps.config.siteUrl;

  app.post(
    '/requests',
    {
      preValidation: [publisherCaller],
      schema: {
        tags,
        summary: 'Open requests for work on the publisher’s pages (one object, or an array of at most 500)',
        querystring: PublisherQuery,
        body: Batch(RequestItem),
        response: { 200: Ok(Type.Union([ItemResultData, BatchResult])), 201: Ok(ItemResultData) },
        links: {
          201: {
            request: link('getReviewRequestsById', 'The request opened', { id: '$response.body#/data/id' }),
            cancel: link('postRequestsByIdCancel', 'Cancel it', { id: '$response.body#/data/id' }),
          },
        },
      },
    },
    async (req, reply) => {
      const publisherId = await actingPublisher(deps, req, req.query.publisher);
      const { single, items } = splitBatch(req.body, validateRequestItem);
      const results = await requests.openRequests(
        deps,
        publisherId,
        accountOf(req),
        items.map((i) =>
          i.ok ? { ...i, value: { ...i.value, kind: kindFromApiRequestType(i.value.request_type as ApiRequestType) } } : i,
        ),
      );
      return sendBatch(reply, single, results, presentItemResult);
    },
  );

  app.post(
    '/requests/:id/cancel',
    {
      preValidation: [publisherCaller],
      schema: { tags, summary: 'Cancel an open or taken request', params: IdParam, querystring: PublisherQuery, response: { 200: Ok(ApiRequest) } },
    },
    async (req) => {
      const r = await requests.cancelRequest(deps, await actingPublishers(deps, req, req.query.publisher), req.params.id);
      return { success: true as const, data: presentApiRequest(site, r) };
    },
  );

  app.get(
    '/review-requests',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'The public marketplace of open requests, newest first',
        querystring: Type.Object({
          ...PageQuery.properties,
          topic: Type.Optional(Type.String({ maxLength: 100 })),
          type: Type.Optional(StringEnum(API_REQUEST_TYPES)),
        }),
        response: { 200: ApiList(ApiRequest) },
      },
    },
    async (req) => {
      const { page, perPage } = pagination(req.query);
      const kind = req.query.type ? kindFromApiRequestType(req.query.type as ApiRequestType) : undefined;
      const { rows, total } = await requests.marketplace(deps, { topic: req.query.topic, kind }, page, perPage);
      return { success: true as const, data: rows.map((r) => presentApiRequest(site, r)), meta: { total, page, per_page: perPage } };
    },
  );

  app.get(
    '/review-requests/:id',
    { preValidation: [optional], schema: { tags, summary: 'One request', params: IdParam, response: { 200: Ok(ApiRequest) } } },
    async (req) => ({ success: true as const, data: presentApiRequest(site, await requests.getRequest(deps, req.params.id)) }),
  );

  app.post(
    '/review-requests/:id/take',
    {
      preValidation: [contributorCaller],
      schema: { tags, summary: 'Take an open request (fires request.taken)', params: IdParam, response: { 200: Ok(ApiRequest) } },
    },
    async (req) => ({ success: true as const, data: presentApiRequest(site, await requests.takeRequest(deps, accountOf(req), req.params.id)) }),
  );

  app.post(
    '/review-requests/:id/release',
    {
      preValidation: [contributorCaller],
      schema: { tags, summary: 'Give a taken request back to the marketplace', params: IdParam, response: { 200: Ok(ApiRequest) } },
    },
    async (req) => ({
      success: true as const,
      data: presentApiRequest(site, await requests.releaseRequest(deps, accountOf(req), req.params.id)),
    }),
  );
}
