// Embeds (SPEC §11): the attribution block as JSON or a self-injecting script, open to every origin, cached for
// five minutes with an ETag. Not rate limited (cached; readers are unlimited). Nothing about the reader is logged
// or stored: the app's access log carries no address or user agent on any route.
import fs from 'node:fs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type, { type TSchema } from 'typebox';
import type { Deps } from '../../domain/deps.js';
import type { Config } from '../../config.js';
import { DomainError } from '../../domain/errors.js';
import { whenReady } from '../../domain/pages/record-cache.js';
import { compressible, etagForCoding, negotiateCoding, representationOf } from '../../http/precompressed.js';
import { scriptSafeJson } from '../../http/ascii-json.js';
import { IdParam, StringEnum } from '../../http/schemas.js';
import { optional } from '../../http/auth.js';
import { RequestLines } from '../../http/request-lines.js';
import { sendWire } from '../../http/wire.js';
import { STALE_IF_ERROR, tierHeaders } from '../../http/cache-tier.js';
import { STATIC_KEY } from '../../domain/pages/cache-tags.js';
import { LANGS, pickLang } from './i18n.js';
import { type EmbedAsk, type EmbedOutput, cachedEmbed, embedAsk, embedFor, etagOf } from './embed.service.js';
import { EMBED_CSS, EMBED_CSS_VERSION, STYLES } from './renderer.js';
import { PageUrl } from '../vocabulary.js';
import { revalidatedAnswers } from '../docs/openapi.js';

/** The fixed headers of a cached answer: one frozen set for answers sent as they are, one for those negotiated. */
interface FixedHeaders {
  readonly identity: Readonly<Record<string, string>>;
  /** With `Vary: Accept-Encoding`: each coding of such an answer is its own representation (http/precompressed.ts). */
  readonly negotiated: Readonly<Record<string, string>>;
  /** A fixed surrogate key for the cache tier (embed.js); answers from the record cache name their own. */
  readonly key?: string;
}

/**
 * The fixed headers of a cached embed answer: its Cache-Control; given to the reply, as
 * the security headers are (security-headers.ts: nothing on the raw response, so Node writes them in one pass).
 * `nosniff` and `Cross-Origin-Resource-Policy: cross-origin` (readers' browsers load these from every publisher's
 * site) come with the embeds' security set, on errors too (security-headers.ts). An answer too small to compress
 * is the same whatever the caller accepts, so it says no `Vary`.
 */
function fixedHeaders(cacheControl: string): FixedHeaders {
  // Open to every origin through the public reads' set (security-headers.ts PUBLIC_READ_CORS), errors included.
  const identity = { 'cache-control': cacheControl };
  return { identity: Object.freeze(identity), negotiated: Object.freeze({ ...identity, vary: 'Accept-Encoding' }) };
}
// Readers keep seeing the last block while the service is down (stale-if-error; the cache tier honours it: docs/cache.md).
const EMBED_HEADERS = fixedHeaders(`public, max-age=300, stale-if-error=${STALE_IF_ERROR}`);
/** embed.js changes only with a release: the cache tier keeps it by its own max-age. */
const SCRIPT_HEADERS = fixedHeaders(`public, max-age=3600, stale-if-error=${STALE_IF_ERROR}`);
/** The stylesheet at its current version's address never changes (the address does); at any other, the embeds' set. */
const STYLESHEET_HEADERS = fixedHeaders('public, max-age=31536000, immutable');
/** A static answer's set, under one fixed surrogate key only when a cache tier is configured (http/cache-tier.ts). */
const withStaticKey = (config: Config, set: FixedHeaders): FixedHeaders =>
  config.cachePurgeUrls.length === 0 ? set : { ...set, key: STATIC_KEY };

const EmbedQuery = {
  style: Type.Optional(StringEnum(STYLES, { description: '`full` (default), `compact` or `badge`' })),
  // Open by design (a page's own `lang`, such as `en-GB`, is passed as is): not an enum, the known ones are examples.
  lang: Type.Optional(Type.String({ maxLength: 35, examples: [...LANGS], description: '`en`, `de`, `fr` or `es`; anything else falls back to English' })),
  format: Type.Optional(
    StringEnum(['json', 'js', 'jsonld'] as const, {
      description:
        '`js` returns a script that injects the block where it is included; `jsonld` returns the record as a ready ' +
        'script element of type `application/ld+json` (schema.org) to paste into the page, as text/html, or 404 ' +
        '`not_found` (JSON) for a page with no public record',
    }),
  ),
};

/** An embed's three forms, each under its own media type in the documents: JSON, `format=js`, `format=jsonld`. */
const embedAnswer = <T extends TSchema>(json: T) =>
  Type.Union([
    json,
    Type.String({ description: '`format=js`: a script that injects the block where it is included', 'x-credence-media': 'application/javascript' }),
    Type.String({ description: '`format=jsonld`: a script element of type application/ld+json to paste into the page', 'x-credence-media': 'text/html' }),
  ]);

/**
 * Send a cached embed answer, compressed when the caller accepts br or gzip (each coding made once per cached
 * answer, http/precompressed.ts), or 304 when the caller already has it in any coding. A 200's headers are one frozen
 * set per representation, made on its first answer: the fixed set, its type, ETag and coding, written with its
 * bytes in one go (http/wire.ts).
 */
function sendCached(req: FastifyRequest, reply: FastifyReply, out: EmbedOutput, set: FixedHeaders = EMBED_HEADERS, tier?: Tier) {
  if (out.absent) throw new DomainError('not_found', 'This page has no public record to give as JSON-LD');
  const fixed = compressible(out) ? set.negotiated : set.identity;
  const rep = representationOf(out, negotiateCoding(req.headers['accept-encoding'], out));
  const inm = req.headers['if-none-match'];
  if (typeof inm === 'string' && (inm === '*' || inm.split(',').some((t) => sameRepresentation(t.trim().replace(/^W\//, ''), out.etag)))) {
    return reply.headers(fixed).header('etag', rep.etag).status(304).send();
  }
  let sent = rep.sent;
  if (sent?.fixed !== fixed) {
    const coding: Record<string, string> = rep.coding ? { 'content-encoding': rep.coding } : {};
    const headers = { ...fixed, 'content-type': out.contentType, etag: rep.etag, ...coding, ...(set.key ? { xkey: set.key } : {}) };
    // With a cache tier, its keys: the cached answer's tags, which stay its own while it is kept (http/cache-tier.ts).
    sent = rep.sent = { fixed, headers: Object.freeze(tier ? tierHeaders(tier.deps, req, tier.key, headers) : headers) };
  }
  sendWire(reply, sent.headers, rep.wire);
}

/**
 * An embed answer, sent at once when the cache has it: the handler returns nothing, so no promise is made on the warm
 * path. Otherwise sent when it is loaded, the handler returning that promise (a failure reaches the error handler).
 */
const answer = (req: FastifyRequest, reply: FastifyReply, out: EmbedOutput | Promise<EmbedOutput>, tier: Tier) =>
  whenReady(out, (o) => {
    sendCached(req, reply, o, EMBED_HEADERS, tier);
  });

/** The record cache's key of an answer, for the cache tier's headers. */
interface Tier {
  deps: Deps;
  key: string;
}

/** A tag the caller holds names this answer in one of its codings. */
const sameRepresentation = (tag: string, etag: string) => tag === etag || tag === etagForCoding(etag, 'br') || tag === etagForCoding(etag, 'gzip');

/** The /api/v1 embed routes. Registered inside the integration surface. */
export function embedApiRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['embeds'];
  const config = { unlimited: true };
  // No credential is needed, but one presented that cannot be used is a 401, as on every public read (http/auth.ts).
  // A line answered from the cache before is answered again ahead of validation (http/request-lines.ts): the warm path.
  const byId = new RequestLines<EmbedAsk>(deps.config.recordCacheEntries);
  const byUrl = new RequestLines<EmbedAsk>(deps.config.recordCacheEntries);
  const cached = (req: FastifyRequest, reply: FastifyReply, ask: EmbedAsk) => {
    const out = cachedEmbed(deps, ask);
    // An absent record goes on to the handler, whose 404 goes through the surface's error handler.
    if (out === undefined || out.absent) return false;
    sendCached(req, reply, out, EMBED_HEADERS, { deps, key: ask.key });
    return true;
  };

  app.get(
    '/embed/article/:id',
    {
      config,
      preValidation: [optional, byId.hook(cached)],
      schema: {
        tags,
        summary: 'The attribution block of a page, by id (CORS-open, cached 5 minutes, ETag)',
        params: IdParam,
        querystring: Type.Object(EmbedQuery),
        response: { 200: embedAnswer(Type.Object({ success: Type.Literal(true), html: Type.String() })) },
        answers: revalidatedAnswers,
      },
    },
    (req, reply) => {
      const q = req.query;
      const ask = byId.known(req) ?? embedAsk({ id: req.params.id }, q.style ?? 'full', pickLang(q.lang), q.format ?? 'json');
      return byId.answered(req, ask, answer(req, reply, embedFor(deps, ask), { deps, key: ask.key }));
    },
  );

  app.get(
    '/embed/by-url',
    {
      config,
      preValidation: [optional, byUrl.hook(cached)],
      schema: {
        tags,
        summary: 'The attribution block of a page, by URL; html is empty for a page without accepted work',
        querystring: Type.Object({ url: { ...PageUrl, description: 'Full URL of the page' }, ...EmbedQuery }),
        response: { 200: embedAnswer(Type.Object({ success: Type.Literal(true), html: Type.String(), title: Type.String() })) },
        answers: revalidatedAnswers,
        errors: ['404'],
      },
    },
    (req, reply) => {
      const q = req.query;
      const ask = byUrl.known(req) ?? embedAsk({ url: q.url }, q.style ?? 'full', pickLang(q.lang), q.format ?? 'json');
      return byUrl.answered(req, ask, answer(req, reply, embedFor(deps, ask), { deps, key: ask.key }));
    },
  );

  // A cross-origin fetch that sets If-None-Match itself is preflighted: app.ts answers it, as for every public read.
}

const EMBED_JS = new URL('../../../embed/embed.js', import.meta.url);
/** Where embed/embed.js takes the block's stylesheet: the placeholder is replaced when the script is read. */
const CSS_PLACEHOLDER = '"__CREDENCE_EMBED_CSS__"';

/** embed.js as served: the file, with the block's stylesheet put in (it adopts it into each block's shadow root). */
function embedScriptSource(): string {
  const file = fs.readFileSync(EMBED_JS, 'utf8');
  if (!file.includes(CSS_PLACEHOLDER)) throw new Error(`embed/embed.js lost its ${CSS_PLACEHOLDER}`);
  return file.replace(CSS_PLACEHOLDER, () => scriptSafeJson(EMBED_CSS));
}

/**
 * `{site_url}/embed.js`, read once at start. `root` is the address pages load (left out of the documents); `surface`
 * the same script under /v1, documented there so a client based at `{site}/v1` reaches it.
 */
export function embedScriptRoute(fastify: FastifyInstance, config: Config, where: 'root' | 'surface' = 'root') {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const headers = withStaticKey(config, SCRIPT_HEADERS);
  const source = embedScriptSource();
  const out: EmbedOutput = {
    body: source,
    etag: etagOf(source),
    contentType: 'application/javascript; charset=utf-8',
  };
  app.get(
    '/embed.js',
    {
      config: { unlimited: true, ...(where === 'root' ? { hidden: true } : {}) },
      schema: {
        tags: ['embeds'],
        summary: 'The embeddable script (see the README for its data- attributes)',
        description: 'Pages load it from `{site}/embed.js`; this is the same script.',
        response: { 200: Type.String({ description: 'The script', 'x-credence-media': 'application/javascript' }) },
        answers: revalidatedAnswers,
      },
    },
    (req, reply) => {
      sendCached(req, reply, out, headers);
    },
  );
}

/**
 * `{site_url}/embed.css`: the attribution block's stylesheet, which every block links (renderer.ts) instead of
 * carrying it. At its versioned address (`?v=`, what the block links) it is cached for a year; asked for
 * without the current version, for five minutes like the embeds. Open to every origin, like the embeds.
 */
export function embedStylesheetRoute(fastify: FastifyInstance, config: Config) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const versioned = withStaticKey(config, STYLESHEET_HEADERS);
  const out: EmbedOutput = { body: EMBED_CSS, etag: etagOf(EMBED_CSS), contentType: 'text/css; charset=utf-8' };
  app.get(
    '/embed.css',
    {
      config: { unlimited: true, hidden: true },
      schema: { querystring: Type.Object({ v: Type.Optional(Type.String({ maxLength: 64, description: 'The version the block links' })) }) },
    },
    (req, reply) => {
      sendCached(req, reply, out, req.query.v === EMBED_CSS_VERSION ? versioned : EMBED_HEADERS);
    },
  );
}
