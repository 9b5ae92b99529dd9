// GET /v1/pages/record: the public page record (seed §4 rules 2 and 3).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import * as pages from '../../domain/pages/page.service.js';
import { hasRecord } from '../../domain/pages/record.js';
import { optional } from '../../http/auth.js';
import { asciiJson } from '../../http/ascii-json.js';
import { RecordFormat } from '../../http/schemas.js';
import { jsonLdText, recordJsonLd } from '../linked-data/schema-org.js';
import { V1PageRecord, presentV1Record } from './record.presenter.js';
import { recordLines } from '../record-lines.js';
import { PageUrl } from '../vocabulary.js';
import { jsonLdAnswer } from '../docs/openapi.js';

export function pageRecordRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Cached finished answers, as for the /api/v1 lookup (sent with no promise made on a hit). An unknown page, and a
  // registered page without accepted work (no record yet: the lookup's has_record false), are cached as null and
  // answered 404.
  const records = recordLines(deps, {
    name: 'record',
    missing: 'Record for this URL',
    load: async (url, ld) => {
      const { record } = await pages.lookupByUrl(deps, url);
      if (!hasRecord(record)) return null;
      return ld ? jsonLdText(recordJsonLd(deps.config.siteUrl, record)) : asciiJson(presentV1Record(deps.config.siteUrl, record));
    },
  });
  app.get(
    '/pages/record',
    {
      preValidation: [optional, records.hook],
      schema: {
        tags: ['pages'],
        summary: 'The page record: every accepted contribution to a page',
        description:
          'With `format=jsonld` or `Accept: application/ld+json`, the record as schema.org JSON-LD (`application/ld+json`): ' +
          'the page as a NewsArticle with its authors, editors and contributors, corrections and reviews (docs/decisions/linked-data.md). ' +
          'A page nobody registered, and a registered page with no accepted work yet, have no record: 404.',
        querystring: Type.Object({ url: { ...PageUrl, description: 'Full URL of the page' }, format: Type.Optional(RecordFormat) }),
        response: { 200: V1PageRecord },
        answers: { 200: { media: jsonLdAnswer('`format=jsonld` or `Accept: application/ld+json`: the record as schema.org JSON-LD') } },
        errors: ['404'],
      },
    },
    (req, reply) => records.answer(req, reply, req.query.url, req.query.format),
  );
}
