// Account webhooks (seed §4, SPEC §10, §16): register, list with delivery health, change, delete, the attempt log
// and redelivery. Session only: a key cannot change where an account's events go (403 session_required).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { API_V1_EVENTS, CONTRIBUTOR_EVENTS, V1_EVENTS, WEBHOOK_FORMATS } from '../../domain/webhooks/events.js';
import * as webhooks from '../../domain/webhooks/webhook.service.js';
import { sessionOf, sessionOnly } from '../../http/auth.js';
import { ApiList, Batch, IdParam, Nullable, Ok, PageQuery, pagination, StringEnum } from '../../http/schemas.js';
import { itemValidator } from '../../http/validation.js';
import { BatchWithCreated, createEach } from './batch.presenter.js';
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
  description: `Event names. api_v1: ${API_V1_EVENTS.join(', ')}. v1: ${V1_EVENTS.join(', ')}. contributor: ${CONTRIBUTOR_EVENTS.join(', ')}. Default: all of the format’s`,
});

const RegisterBody = Type.Object(
  {
    url: Url,
    events: Type.Optional(Events),
    format: Type.Optional(
      StringEnum(WEBHOOK_FORMATS, {
        description: '`api_v1` (default), `v1` (the /v1 scheme; one per publisher), or `contributor`: your own webhook, told of what names you, whichever publication did it (no publisher)',
      }),
    ),
    publisher: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Slug of the publication whose events to receive: required for v1; for api_v1 the caller’s only publication by default; left out for contributor',
      }),
    ),
  },
  { additionalProperties: false },
);

const validateRegisterItem = itemValidator<Type.Static<typeof RegisterBody>>(RegisterBody);

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
        summary: 'Register a webhook (one object, or an array of at most 500); the signing secret is in this response only',
        body: Batch(RegisterBody),
        response: { 200: Ok(BatchWithCreated('webhook', WebhookWithSecret)), 201: Ok(WebhookWithSecret) },
        links: {
          201: {
            webhook: link('getAccountWebhooksById', 'The webhook and its delivery health', { id: '$response.body#/data/id' }),
            deliveries: link('getAccountWebhooksByIdDeliveries', 'Its delivery attempts', { id: '$response.body#/data/id' }),
            change: link('patchAccountWebhooksById', 'Change, pause, re-enable or rotate its secret', { id: '$response.body#/data/id' }),
          },
        },
      },
    },
    async (req, reply) =>
      createEach(reply, req.body, validateRegisterItem, 'webhook', async (item) => {
        const { webhook, secret } = await webhooks.registerWebhook(deps, sessionOf(req).accountId, item);
        return { ...presentWebhook(webhook, deps.clock.now()), secret };
      }),
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

  const Replay = Type.Object({
    id: Type.Integer(),
    webhook_id: Type.Integer(),
    since: Type.String({ format: 'date-time', description: 'Events from this instant on are delivered again' }),
    status: StringEnum(['queued', 'done'] as const, { description: '`queued` until the relay has queued its deliveries (its next pass, within a second or so)' }),
    events: Nullable(Type.Integer({ description: 'How many deliveries it queued again; null while queued' })),
    requested_at: Type.String({ format: 'date-time' }),
    done_at: Nullable(Type.String({ format: 'date-time' })),
  });
  const presentReplay = (r: Awaited<ReturnType<typeof webhooks.getReplay>>) => ({
    id: r.id,
    webhook_id: r.webhook_id,
    since: r.since,
    status: r.done_at === null ? ('queued' as const) : ('done' as const),
    events: r.events,
    requested_at: r.requested_at,
    done_at: r.done_at,
  });

  app.post(
    '/account/webhooks/:id/replay',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Deliver again every event since a time or a change-log cursor, signed as usual and marked as replays',
        description:
          'Give `since` (a date-time) or `after` (a seq of the change feed: the events of that change and later). At most ' +
          `${webhooks.REPLAY_RETENTION_DAYS} days back. Each replayed delivery carries \`X-Service-Replay: true\` (\`Service-Replay: true\` on /v1 endpoints) and ` +
          'the event’s own delivery id, so a receiver that kept it can drop it (docs/webhooks.md, "Replay").',
        params: IdParam,
        body: Type.Object(
          {
            since: Type.Optional(Type.String({ format: 'date-time' })),
            after: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'A change-log seq (the feed’s cursor)' })),
          },
          { additionalProperties: false, minProperties: 1, maxProperties: 1, description: 'Exactly one of `since` and `after`' },
        ),
        response: { 202: Ok(Replay) },
      },
    },
    async (req, reply) => reply.code(202).send({ success: true as const, data: presentReplay(await webhooks.requestReplay(deps, sessionOf(req).accountId, req.params.id, req.body)) }),
  );

  app.get(
    '/account/webhooks/:id/replays/:replay_id',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'One replay request and what it queued',
        params: Type.Object({ id: IdParam.properties.id, replay_id: IdParam.properties.id }),
        response: { 200: Ok(Replay) },
      },
    },
    async (req) => ({ success: true as const, data: presentReplay(await webhooks.getReplay(deps, sessionOf(req).accountId, req.params.id, req.params.replay_id)) }),
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
