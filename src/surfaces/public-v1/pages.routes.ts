// GET /v1/pages/record: the public page record (seed §4 rules 2 and 3).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import * as pages from '../../domain/pages/page.service.js';
import { useCached } from '../../domain/pages/record-cache.js';
import { hasRecord } from '../../domain/pages/record.js';
import { optional } from '../../http/auth.js';
import { asciiJson } from '../../http/ascii-json.js';
import { notFound } from '../../http/errors.js';
import { RecordFormat } from '../../http/schemas.js';
import { JSON_ANSWER, sendWire } from '../../http/wire.js';
import { JSON_LD_ANSWER, jsonLdText, recordJsonLd, wantsJsonLd } from '../linked-data/schema-org.js';
import { V1PageRecord, presentV1Record } from './record.presenter.js';
import { recordLines } from '../record-lines.js';
import { PageUrl } from '../vocabulary.js';

export function pageRecordRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const records = recordLines(deps, 'record');
  app.get(
    '/pages/record',
    {
      preValidation: [optional, records.hook],
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
    (req, reply) => {
      void reply.header('vary', 'Accept');
      const url = req.query.url;
      const keys = records.keys(req, url, req.query.format);
      if (wantsJsonLd(req.headers.accept, keys.format)) {
        const load = async () => {
          const { record } = await pages.lookupByUrl(deps, url);
          return hasRecord(record) ? jsonLdText(recordJsonLd(deps.config.siteUrl, record)) : null;
        };
        return records.answered(req, keys, useCached(deps.recordCache, keys.jsonld, load, (body) => {
          if (body === null) throw notFound('Record for this URL');
          sendWire(reply, JSON_LD_ANSWER, body);
        }));
      }
      // Cached finished answers, as for the /api/v1 lookup (sent with no promise made on a hit). An unknown page, and
      // a registered page without accepted work (no record yet: the lookup's has_record false), are cached as null
      // and answered 404.
      const load = async () => {
        const { record } = await pages.lookupByUrl(deps, url);
        return hasRecord(record) ? asciiJson(presentV1Record(deps.config.siteUrl, record)) : null;
      };
      return records.answered(req, keys, useCached(deps.recordCache, keys.json, load, (body) => {
        if (body === null) throw notFound('Record for this URL');
        sendWire(reply, JSON_ANSWER, body);
      }));
    },
  );
}
