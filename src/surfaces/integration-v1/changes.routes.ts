// GET /api/v1/changes: the public change feed in /api/v1's envelope (`success`) and words (src/surfaces/changes.feed.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { optional } from '../../http/auth.js';
import { sendSerialised } from '../../http/schemas.js';
import { closeStreamsOnShutdown, FeedEntry, FeedMeta, FeedQuery, feedPage, streamFeed, streamStart, wantsStream } from '../changes.feed.js';

export function apiChangeRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  closeStreamsOnShutdown(fastify);
  app.get(
    '/changes',
    {
      preValidation: [optional],
      schema: {
        tags: ['changes'],
        summary: 'Changes to the public record, oldest first, after a cursor; with Accept: text/event-stream, a live stream',
        description:
          'Each entry is one change to public data (a page registered or updated, accepted work, a contributor’s public fields, a publisher, a domain, a panel version). Go on with `after=meta.next_cursor`. Asked with `Accept: text/event-stream`, the answer is a Server-Sent Events stream: every entry after `after` (or after the `Last-Event-ID` header), then each new one; event id = seq, event name = kind, a comment line every 15 s.',
        querystring: FeedQuery,
        response: { 200: Type.Object({ success: Type.Literal(true), data: Type.Array(FeedEntry), meta: FeedMeta }) },
      },
    },
    async (req, reply) => {
      if (wantsStream(req)) return streamFeed(fastify, deps, reply, streamStart(req, req.query.after), 'api');
      return sendSerialised(reply, await feedPage(deps, req.query, 'api'));
    },
  );
}
