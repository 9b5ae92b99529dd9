// The public addresses of records and proofs (SPEC §12): a server-rendered page for browsers, the same JSON as
// before for API clients (content negotiation on Accept; see wantsHtml).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import * as contributors from '../../domain/contributors/contributor.service.js';
import type { Deps } from '../../domain/deps.js';
import * as pages from '../../domain/pages/page.service.js';
import { pendingClaimsOnPage } from '../../domain/consent/consent.service.js';
import * as log from '../../domain/transparency/log.service.js';
import { notFound } from '../../domain/errors.js';
import { optional } from '../../http/auth.js';
import { IdParam, Nullable, sendAs } from '../../http/schemas.js';
import { JSON_LD_TYPE, jsonLdText, recordJsonLd, wantsJsonLd } from '../linked-data/schema-org.js';
import { ANNO_TYPE, contributionAnnotation, wantsAnnotation } from '../linked-data/web-annotation.js';
import { TrustRecord, presentTrustRecord } from '../integration-v1/record.presenter.js';
import { QuoteOutput, VerdictOutput, presentQuote } from '../integration-v1/work.presenter.js';
import { verdictOf } from '../../domain/submissions/verdicts.js';
import { LogLink, presentLogLink } from '../log-link.js';
import { driftOf } from '../linked-data/drift.presenter.js';
import { contributionRef, profileUrl, recordUrl } from '../urls.js';
import { sendPage, wantsHtml } from './kit.js';
import { logEntryPage, proofPage, recordPage } from './record.pages.js';
import { PageUrl, ProofDecision, Provenance, ServiceUrl, WorkRole, provenanceOf } from '../vocabulary.js';
import { storedSources } from '../../domain/submissions/submission.service.js';
import { jsonLdAnswer } from '../docs/openapi.js';
import { InterestData, presentInterest } from '../interests.presenter.js';

/** A proof is addressed by the contribution's public id (`ctb_12`, as both APIs return it) or its bare number. */
const ProofParam = Type.Object({
  id: Type.String({ pattern: '^(ctb_)?[1-9][0-9]{0,9}$', description: 'The contribution: `ctb_<id>` as the API returns it, or the bare number' }),
});
// Past the integer range of the database nothing exists: 0 finds nothing, and is a 404 like any unknown id.
const proofId = (id: string) => {
  const n = Number(id.replace(/^ctb_/, ''));
  return n <= 2_147_483_647 ? n : 0;
};

const Proof = Type.Object({
  id: Type.String({ description: '`ctb_<id>`' }),
  role: WorkRole,
  summary: Type.String(),
  accepted: Type.String({ format: 'date' }),
  accepted_at: Type.String({ format: 'date-time' }),
  contributor: Type.Object({ username: Type.String(), name: Type.String(), profile_url: ServiceUrl }),
  page: Type.Object({ id: Type.Integer(), url: PageUrl, title: Type.String(), record_url: ServiceUrl }),
  publisher: Type.Object({ slug: Type.String(), name: Type.String() }),
  change: Type.Optional(Type.Object({ from: Type.String(), to: Type.String() })),
  evidence: Nullable(
    Type.Object(
      {
        before: Nullable(Type.String()),
        after: Nullable(Type.String()),
        reason: Type.String(),
        sources: Type.Array(PageUrl),
      },
      { description: 'The accepted evidence; null for an author named by the publisher' },
    ),
  ),
  quote: Type.Optional(QuoteOutput),
  claim_reviewed: Type.Optional(Nullable(Type.String())),
  verdict: Type.Optional(VerdictOutput),
  page_changed_since: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'When the page’s text changed after this work' }))),
  correction_missing: Type.Optional(Nullable(Type.Boolean({ description: 'Corrections: the corrected text no longer appears on the page' }))),
  provenance: Provenance,
  decision: Type.Object({
    decision: ProofDecision,
    decided_at: Type.String({ format: 'date-time' }),
    note: Nullable(Type.String()),
  }),
  log: LogLink,
  interests: Type.Array(InterestData, {
    description: 'The contributor’s declared interests in this page’s publication or topic: those held when the work was accepted, and those held now',
  }),
});

/**
 * `root`: the addresses SPEC §12 gives (`record_url`, `proof_url`), HTML for browsers and JSON otherwise; left out of
 * the documents, which describe the same operations once, under /v1 (`surface`: JSON and JSON-LD only), so that a
 * client generated from the /v1 document and based at `{site}/v1` reaches them.
 */
export function recordRoutes(fastify: FastifyInstance, deps: Deps, where: 'root' | 'surface' = 'root') {
  const root = where === 'root';
  const config = root ? { negotiated: true, hidden: true } : {};
  const also = (address: string) => (root ? '' : ` Also served at \`${address}\`, where a browser gets the HTML page.`);
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const site = deps.config.siteUrl;
  const tags = ['records'];

  app.get(
    '/records/:id',
    {
      preValidation: [optional],
      config,
      schema: {
        tags,
        summary: 'A page’s public trust record (record_url)',
        description: `With \`Accept: application/ld+json\`, schema.org JSON-LD (the HTML page embeds the same).${also('{site}/records/{id}')}`,
        params: IdParam,
        response: { 200: TrustRecord },
        answers: { 200: { media: jsonLdAnswer('`Accept: application/ld+json`: the record as schema.org JSON-LD'), headers: ['Vary'] } },
      },
    },
    async (req, reply) => {
      // One address, two representations (errors too): caches must key on Accept.
      void reply.header('vary', 'Accept');
      const record = await pages.recordById(deps, req.params.id);
      if (wantsJsonLd(req.headers.accept, undefined)) return sendAs(reply, `${JSON_LD_TYPE}; charset=utf-8`, jsonLdText(recordJsonLd(site, record)));
      if (root && wantsHtml(req)) return sendPage(deps, req, reply, recordPage(site, record, await pendingClaimsOnPage(deps, record.page.id)));
      return presentTrustRecord(site, record.page.url, record);
    },
  );

  app.get(
    '/proofs/:id',
    {
      preValidation: [optional],
      config,
      schema: {
        tags,
        summary: 'The proof of one accepted contribution: the evidence and the decision (proof_url)',
        description:
          'With `Accept: application/ld+json; profile="http://www.w3.org/ns/anno.jsonld"` (or plain ' +
          `\`application/ld+json\`), the contribution as a W3C Web Annotation.${also('{site}/proofs/{id}')}`,
        params: ProofParam,
        response: { 200: Proof },
        answers: {
          200: { media: jsonLdAnswer('`Accept: application/ld+json` (with or without the Web Annotation profile): the contribution as a W3C Web Annotation'), headers: ['Vary'] },
        },
      },
    },
    async (req, reply) => {
      // One address, two representations (errors too): caches must key on Accept.
      void reply.header('vary', 'Accept');
      const p = await contributors.getProof(deps, proofId(req.params.id));
      if (wantsAnnotation(req.headers.accept)) return sendAs(reply, `${ANNO_TYPE}; charset=utf-8`, jsonLdText(contributionAnnotation(site, p)));
      if (root && wantsHtml(req)) {
        const entry = p.log_seq === null ? null : await log.entryAt(deps, Number(p.log_seq) - 1);
        return sendPage(deps, req, reply, proofPage(site, p, entry && shownEntry(entry)));
      }
      return {
        id: contributionRef(p.id),
        role: p.role,
        summary: p.summary,
        accepted: p.accepted_at.slice(0, 10),
        accepted_at: p.accepted_at,
        contributor: { username: p.username, name: p.name, profile_url: profileUrl(site, p.username) },
        page: { id: p.page_id, url: p.page_url, title: p.page_title, record_url: recordUrl(site, p.page_id) },
        publisher: { slug: p.publisher_slug, name: p.publisher_name },
        ...(p.role === 'correction' && p.change_from !== null && p.change_to !== null ? { change: { from: p.change_from, to: p.change_to } } : {}),
        evidence:
          p.submission_id !== null && p.reason !== null
            ? { before: p.before_text, after: p.after_text, reason: p.reason, sources: storedSources(p.sources) }
            : null,
        quote: presentQuote(p),
        claim_reviewed: p.claim,
        verdict: verdictOf(p.verdict),
        ...driftOf(p),
        provenance: provenanceOf(p),
        decision: {
          decision: p.submission_id !== null ? ('accept' as const) : ('named_by_publisher' as const),
          decided_at: p.decided_at ?? p.accepted_at,
          note: p.decision_note,
        },
        log: presentLogLink(site, p.log_seq),
        interests: p.interests.map(presentInterest),
      };
    },
  );

  if (!root) return;
  // A log entry on its own (the record's notices link here): a page for people; the APIs have /v1/log/entries.
  app.get(
    '/log/:index',
    { config: { html: true }, schema: { params: Type.Object({ index: Type.String({ pattern: '^(0|[1-9][0-9]{0,14})$' }) }) } },
    async (req, reply) => {
      const index = Number(req.params.index);
      const entry = await log.entryAt(deps, index);
      if (!entry) throw notFound('Log entry');
      return sendPage(deps, req, reply, logEntryPage(index, { kind: entry.kind, createdAt: entry.createdAt, ...shownEntry(entry) }));
    },
  );
}

/** A log entry as a page shows it: as the log serves it (withheld text out), with what its check needs beside it. */
const shownEntry = (e: log.LogEntry) => ({ body: e.body.toString('utf8'), openings: e.openings, withheld: e.withheld, leafHash: e.leafHash?.toString('base64') ?? null });
