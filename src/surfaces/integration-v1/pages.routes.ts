// Pages and their trust records: registration (publisher), lookup and articles (public).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { USERNAME_PATTERN } from '../../domain/accounts/rules.js';
import { splitBatchInSlices } from '../../domain/batch.js';
import type { Deps } from '../../domain/deps.js';
import * as pages from '../../domain/pages/page.service.js';
import * as notices from '../../domain/pages/notice.service.js';
import { actingPublisher, actingPublishers, optional, publisherCaller } from '../../http/auth.js';
import { asciiJson } from '../../http/ascii-json.js';
import { ApiList, Batch, IdParam, Ok, PageQuery, pagination, RecordFormat } from '../../http/schemas.js';
import { jsonLdText, recordJsonLd } from '../linked-data/schema-org.js';
import { itemValidator } from '../../http/validation.js';
import { BatchResult, ItemResultData, presentItemResult, sendBatch } from './batch.presenter.js';
import { TrustRecord, presentTrustRecord } from './record.presenter.js';
import { recordLines } from '../record-lines.js';
import { NoticeType, PageUrl, Standing } from '../vocabulary.js';
import { NoticeEntry } from '../notices.presenter.js';
import { presentLogLink } from '../log-link.js';
import { jsonLdAnswer, link } from '../docs/openapi.js';
import { NON_BLANK_PATTERN } from '../../domain/text.js';

export const PageItem = Type.Object(
  {
    // Length and scheme are checked by the URL rules (SPEC §3) so that they answer invalid_url.
    url: { ...PageUrl, description: 'http(s), at most 2,048 characters' },
    title: Type.Optional(Type.String({ maxLength: 500 })),
    topic: Type.Optional(Type.String({ maxLength: 100 })),
    authors: Type.Optional(
      Type.Array(Type.String({ pattern: USERNAME_PATTERN }), {
        maxItems: 20,
        description: 'Usernames of the page’s authors; each is a claim the person confirms or declines (docs/decisions/consent-to-be-named.md), published at once where they gave the publication a standing permission',
      }),
    ),
    content_hash: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'The page’s current version: lower-case hex sha256 of its normalised text (Unicode NFC, every run of white space ' +
          'one space, trimmed; docs/decisions/page-versions-and-drift.md). Work accepted afterwards applies to this version; a different one later ' +
          'marks it as done on an older version. One of `content_hash`, `text`, `fetch`.',
      }),
    ),
    text: Type.Optional(
      Type.String({
        maxLength: 2_000_000,
        description: 'The page’s text instead of its hash: the service hashes it, checks accepted corrections still appear, and keeps only the hash',
      }),
    ),
    fetch: Type.Optional(
      Type.Boolean({ description: '`true`: the service fetches the page itself (on a verified domain, public addresses only) to learn its text' }),
    ),
  },
  { additionalProperties: false },
);
const validatePageItem = itemValidator<Type.Static<typeof PageItem>>(PageItem);
const PublisherQuery = Type.Object({
  publisher: Type.Optional(Type.String({ maxLength: 100, description: 'Session callers in several publications: which one' })),
});
const NoticeBody = Type.Object(
  {
    type: NoticeType,
    date: Type.Optional(Type.String({ format: 'date', description: 'The notice’s own date, YYYY-MM-DD, not in the future; default today (UTC)' })),
    reason: Type.String({ minLength: 1, maxLength: notices.NOTICE_REASON_MAX, pattern: NON_BLANK_PATTERN, description: 'Why, in the words readers will see: public and committed to in the transparency log (removed only by a decision after a report), so it should name nobody who has not agreed to be named' }),
    url: Type.Optional({ ...PageUrl, description: 'The notice itself, on the publisher’s site' }),
  },
  { additionalProperties: false },
);
const NoticeResult = Type.Object({
  page: Type.Object({ id: Type.Integer(), url: PageUrl }),
  notice: NoticeEntry,
  standing: Standing,
  previous_standing: Standing,
});
const LookupQuery = Type.Object({ url: { ...PageUrl, description: 'Full URL of the page' }, format: Type.Optional(RecordFormat) });

export function pageRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['pages'];
  const site = deps.config.siteUrl;

  // One page registered: read its record by URL or by id.
  const registered = {
    lookup: link('getPagesLookup', 'The page’s trust record, by the URL registered', { url: '$response.body#/data/url' }),
    record: link('getArticlesById', 'The page’s trust record, by its id', { id: '$response.body#/data/id' }),
  };
  app.post(
    '/pages',
    {
      // 500 pages with their text (SPEC §9).
      config: { body: 'large' },
      preValidation: [publisherCaller],
      schema: {
        tags,
        summary: 'Register pages (one object, or an array of at most 500); upsert by URL',
        querystring: PublisherQuery,
        body: Batch(PageItem),
        response: { 200: Ok(Type.Union([ItemResultData, BatchResult])), 201: Ok(ItemResultData) },
        // Links only where every answer of the status has `data.id` and `data.url`: a 200 is also an array's
        // results, which no link expression can walk. Its description says how to follow each item.
        links: { 201: registered },
        answers: {
          200: {
            description:
              'One object already registered (`data.status` `updated` or `skipped`), or an array’s results. Each result’s ' +
              '`id` is the `id` of `GET /articles/{id}`, its `url` the `url` of `GET /pages/lookup`',
          },
        },
      },
    },
    async (req, reply) => {
      const publisherId = await actingPublisher(deps, req, req.query.publisher);
      const { single, items } = await splitBatchInSlices(req.body, validatePageItem);
      const results = await pages.registerPages(deps, publisherId, items);
      return sendBatch(reply, single, results, presentItemResult);
    },
  );

  app.get(
    '/pages',
    {
      preValidation: [publisherCaller],
      schema: {
        tags,
        summary: 'Pages registered to the caller’s publication, newest first, each with its trust record',
        querystring: Type.Object({ ...PageQuery.properties, ...PublisherQuery.properties }),
        response: { 200: ApiList(TrustRecord) },
        // `publisher` names no publication of the caller's.
        errors: ['404'],
      },
    },
    async (req) => {
      const publisherId = await actingPublisher(deps, req, req.query.publisher);
      const { page, perPage } = pagination(req.query);
      const { total, records } = await pages.listPages(deps, publisherId, page, perPage);
      return {
        success: true as const,
        data: records.map((r) => presentTrustRecord(site, r.page.url, r)),
        meta: { total, page, per_page: perPage },
      };
    },
  );

  // The hot path: the finished answer is cached by the URL as asked (cleared with the records), so a repeated lookup
  // skips parsing the URL, presenting and serialising, and is sent with no promise made (record-lines.ts).
  const lookups = recordLines(deps, {
    name: 'lookup',
    missing: 'A registered page for this URL',
    load: async (url, ld) => {
      const found = await pages.lookupByUrl(deps, url);
      if (!ld) return asciiJson({ success: true, data: presentTrustRecord(site, found.url.url, found.record) });
      return found.record ? jsonLdText(recordJsonLd(site, found.record)) : null;
    },
  });
  app.get(
    '/pages/lookup',
    {
      preValidation: [optional, lookups.hook],
      schema: {
        tags,
        summary: 'The trust record of a page, by URL (an unknown page is has_record: false, not an error)',
        description:
          'With `format=jsonld` or `Accept: application/ld+json`, the record as schema.org JSON-LD (`application/ld+json`); ' +
          'an unregistered page is then 404 `not_found`, as there is nothing to describe.',
        querystring: LookupQuery,
        response: { 200: Ok(TrustRecord) },
        answers: { 200: { media: jsonLdAnswer('`format=jsonld` or `Accept: application/ld+json`: the record as schema.org JSON-LD') } },
        // Only as JSON-LD: a page nobody registered has nothing to describe.
        errors: ['404'],
      },
    },
    (req, reply) => lookups.answer(req, reply, req.query.url, req.query.format),
  );

  app.post(
    '/pages/:id/notices',
    {
      preValidation: [publisherCaller],
      schema: {
        tags,
        summary: 'Attach a notice to one of the publication’s pages: a retraction, an expression of concern, a reinstatement, …',
        description:
          'Notices are never edited or removed; a reinstatement (409 on a page in good standing) ends a retraction, withdrawal, removal or ' +
          'expression of concern. The record keeps every contribution and every notice (docs/decisions/page-notices.md). ' +
          'Another publication’s page is 404.',
        params: IdParam,
        querystring: PublisherQuery,
        body: NoticeBody,
        response: { 201: Ok(NoticeResult) },
        links: { 201: { record: link('getArticlesById', 'The page’s trust record, with its notices', { id: '$response.body#/data/page/id' }) } },
      },
    },
    async (req, reply) => {
      const publisherIds = await actingPublishers(deps, req, req.query.publisher);
      const f = await notices.addNotice(deps, publisherIds, req.params.id, req.body);
      return reply.code(201).send({
        success: true as const,
        data: {
          page: { id: f.page.id, url: f.page.url },
          notice: {
            id: f.notice.id,
            type: f.notice.type,
            date: f.notice.date,
            reason: f.notice.reason,
            url: f.notice.url,
            published_at: f.published_at,
            log: presentLogLink(site, f.log_seq),
          },
          standing: f.standing,
          previous_standing: f.previous_standing,
        },
      });
    },
  );

  app.get(
    '/articles/:id',
    {
      preValidation: [optional],
      schema: { tags, summary: 'The trust record of a page, by its id', params: IdParam, response: { 200: Ok(TrustRecord) } },
    },
    async (req) => {
      const record = await pages.recordById(deps, req.params.id);
      return { success: true as const, data: presentTrustRecord(site, record.page.url, record) };
    },
  );
}
