// GET /v1/pages/record: the public page record (seed §4 rules 2 and 3).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import * as pages from '../../domain/pages/page.service.js';
import { hasRecord } from '../../domain/pages/record.js';
import { optional } from '../../http/auth.js';
import { notFound } from '../../http/errors.js';
import { RecordFormat, sendAs, sendSerialised } from '../../http/schemas.js';
import { JSON_LD_TYPE, jsonLdText, recordJsonLd, wantsJsonLd } from '../linked-data/schema-org.js';
import { V1PageRecord, presentV1Record } from './record.presenter.js';
import { PageUrl } from '../vocabulary.js';

export function pageRecordRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/pages/record',
    {
      preValidation: [optional],
      schema: {
        tags: ['pages'],
        summary: 'The page record: every accepted contribution to a page',
        description:
          'With `format=jsonld` or `Accept: application/ld+json`, the record as schema.org JSON-LD (`application/ld+json`): ' +
          'the page as a NewsArticle with its authors, editors and contributors, corrections and reviews (docs/decisions.md). ' +
          'A page nobody registered, and a registered page with no accepted work yet, have no record: 404.',
        querystring: Type.Object({ url: { ...PageUrl, description: 'Full URL of the page' }, format: Type.Optional(RecordFormat) }),
        response: { 200: V1PageRecord },
      },
    },
    async (req, reply) => {
      void reply.header('vary', 'Accept');
      if (wantsJsonLd(req.headers.accept, req.query.format)) {
        const body = await deps.recordCache.getOrLoad(`record-jsonld:${req.query.url}`, async () => {
          const { record } = await pages.lookupByUrl(deps, req.query.url);
          return hasRecord(record) ? jsonLdText(recordJsonLd(deps.config.siteUrl, record)) : null;
        });
        if (body === null) throw notFound('Record for this URL');
        return sendAs(reply, `${JSON_LD_TYPE}; charset=utf-8`, body);
      }
      // Cached finished answers, as for the /api/v1 lookup. An unknown page, and a registered page without accepted
      // work (no record yet: the lookup's has_record false), are cached as null and answered 404.
      const body = await deps.recordCache.getOrLoad(`record-json:${req.query.url}`, async () => {
        const { record } = await pages.lookupByUrl(deps, req.query.url);
        return hasRecord(record) ? JSON.stringify(presentV1Record(deps.config.siteUrl, record)) : null;
      });
      if (body === null) throw notFound('Record for this URL');
      return sendSerialised(reply, body);
    },
  );
}
