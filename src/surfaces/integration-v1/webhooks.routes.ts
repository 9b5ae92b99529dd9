// Account webhooks (seed §4, SPEC §10, §16): register, list with delivery health, change, delete, the attempt log
// and redelivery. Session only: a key cannot change where an account's events go (403 session_required).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { API_V1_EVENTS, V1_EVENTS, WEBHOOK_FORMATS } from '../../domain/webhooks/events.js';
import * as webhooks from '../../domain/webhooks/webhook.service.js';
import { sessionOf, sessionOnly } from '../../http/auth.js';
import { ApiList, IdParam, Nullable, Ok, PageQuery, pagination, StringEnum } from '../../http/schemas.js';
import type { OpenApiCollector } from '../docs/openapi.js';
import { documentApiWebhooks } from './webhook-events.presenter.js';
import {
  AttemptData,
  DeliveryData,
  presentAttempt,
  presentDelivery,
  presentWebhook,
  WebhookData,
  WebhookWithSecret,
} from './webhooks.presenter.js';
import { EventType, WebhookUrl } from '../vocabulary.js';
import { link } from '../docs/openapi.js';

const Url = { ...WebhookUrl, minLength: 1, description: 'An https URL on a public address' };
const Events = Type.Array(EventType, {
  minItems: 1,
  maxItems: 20,
  description: `Event names. api_v1: ${API_V1_EVENTS.join(', ')}. v1: ${V1_EVENTS.join(', ')}. Default: all of the format’s`,
});

const RegisterBody = Type.Object(
  {
    url: Url,
    events: Type.Optional(Events),
    format: Type.Optional(StringEnum(WEBHOOK_FORMATS, { description: '`api_v1` (default) or `v1` (the /v1 scheme; one per publisher)' })),
    publisher: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Slug of the publication whose events to receive: required for v1; for api_v1 the caller’s only publication by default',
      }),
    ),
  },
  { additionalProperties: false },
);

const ChangeBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    enabled: Type.Optional(
      Type.Boolean({ description: '`true` re-enables: the failure count starts again at 0 and held deliveries resume. `false` pauses' }),
    ),
    rotate_secret: Type.Optional(
      Type.Boolean({ description: '`true`: a new secret, returned in this response only; the old one keeps signing for 24 hours' }),
    ),
  },
  { additionalProperties: false },
);

const DeliveryParams = Type.Object({
  id: IdParam.properties.id,
  delivery_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
});

const Redelivery = Type.Object({
  queued: Type.Boolean({ description: 'true: the delivery was still in the queue, now due at once (202); false: attempted now (200)' }),
  delivery: DeliveryData,
  attempt: Nullable(AttemptData),
});

export function webhookRoutes(fastify: FastifyInstance, deps: Deps, openapi: OpenApiCollector) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['webhooks'];
  documentApiWebhooks(openapi);

  app.get(
    '/account/webhooks',
    {
      preValidation: [sessionOnly],
      schema: { tags, summary: 'The caller’s webhooks and their delivery health', querystring: PageQuery, response: { 200: ApiList(WebhookData) } },
    },
    async (req) => {
      const { page, perPage } = pagination(req.query);
      const { total, items } = await webhooks.listWebhooks(deps, sessionOf(req).accountId, page, perPage);
      const now = deps.clock.now();
      return { success: true as const, data: items.map((w) => presentWebhook(w, now)), meta: { total, page, per_page: perPage } };
    },
  );

  app.post(
    '/account/webhooks',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Register a webhook; the signing secret is in this response only',
        body: RegisterBody,
        response: { 201: Ok(WebhookWithSecret) },
        links: {
          201: {
            webhook: link('getAccountWebhooksById', 'The webhook and its delivery health', { id: '$response.body#/data/id' }),
            deliveries: link('getAccountWebhooksByIdDeliveries', 'Its delivery attempts', { id: '$response.body#/data/id' }),
            change: link('patchAccountWebhooksById', 'Change, pause, re-enable or rotate its secret', { id: '$response.body#/data/id' }),
          },
        },
      },
    },
    async (req, reply) => {
      const { webhook, secret } = await webhooks.registerWebhook(deps, sessionOf(req).accountId, req.body);
      return reply.status(201).send({ success: true as const, data: { ...presentWebhook(webhook, deps.clock.now()), secret } });
    },
  );

  app.get(
    '/account/webhooks/:id',
    { preValidation: [sessionOnly], schema: { tags, summary: 'One webhook and its delivery health', params: IdParam, response: { 200: Ok(WebhookData) } } },
    async (req) => {
      const webhook = await webhooks.getWebhook(deps, sessionOf(req).accountId, req.params.id);
      return { success: true as const, data: presentWebhook(webhook, deps.clock.now()) };
    },
  );

  app.patch(
    '/account/webhooks/:id',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Re-enable (or pause) a webhook, rotate its secret, or change its URL or events',
        params: IdParam,
        body: ChangeBody,
        response: {
          200: Ok(
            Type.Intersect([
              WebhookData,
              Type.Object({ secret: Type.Optional(Type.String({ description: 'The new secret after `rotate_secret`, shown once' })) }),
            ]),
          ),
        },
      },
    },
    async (req) => {
      const { webhook, secret } = await webhooks.changeWebhook(deps, sessionOf(req).accountId, req.params.id, req.body);
      return { success: true as const, data: { ...presentWebhook(webhook, deps.clock.now()), ...(secret ? { secret } : {}) } };
    },
  );

  app.delete(
    '/account/webhooks/:id',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Remove a webhook and its deliveries',
        params: IdParam,
        response: { 200: Ok(Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) })) },
      },
    },
    async (req) => {
      await webhooks.deleteWebhook(deps, sessionOf(req).accountId, req.params.id);
      return { success: true as const, data: { id: req.params.id, deleted: true as const } };
    },
  );

  app.get(
    '/account/webhooks/:id/deliveries',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Recent delivery attempts, newest first: status code, duration, the first 1 KB of the answer',
        params: IdParam,
        querystring: PageQuery,
        response: { 200: ApiList(AttemptData) },
      },
    },
    async (req) => {
      const { page, perPage } = pagination(req.query);
      const { total, items } = await webhooks.listAttempts(deps, sessionOf(req).accountId, req.params.id, page, perPage);
      return { success: true as const, data: items.map(presentAttempt), meta: { total, page, per_page: perPage } };
    },
  );

  app.post(
    '/account/webhooks/:id/deliveries/:delivery_id/redeliver',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Send a delivery again: now, or (if it is still queued) as the next of its endpoint',
        params: DeliveryParams,
        response: { 200: Ok(Redelivery), 202: Ok(Redelivery) },
      },
    },
    async (req, reply) => {
      const r = await webhooks.redeliver(deps, sessionOf(req).accountId, req.params.id, req.params.delivery_id);
      return reply.status(r.queued ? 202 : 200).send({
        success: true as const,
        data: { queued: r.queued, delivery: presentDelivery(r.delivery), attempt: r.attempt ? presentAttempt(r.attempt) : null },
      });
    },
  );
}
