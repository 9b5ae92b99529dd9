// The browser extension's reads (docs/extension.md): the verified domains it may ask about, the bucket of records
// under a hash prefix, and the records of one embed key hash (asked only once the reader opens the popup). Every
// answer is public, the same for everyone, with an ETag (304 when it matches) and the cache tier's surrogate keys.
import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { tag } from '../../domain/pages/cache-tags.js';
import { BUCKET_HEX, embedKeyHash } from '../../domain/pages/key-hash.js';
import { findPagesByHashPrefix, findPagesByKeyHash, listVerifiedDomains } from '../../domain/pages/page.store.js';
import { buildRecords, hasRecord, type PageRecord } from '../../domain/pages/record.js';
import { optional } from '../../http/auth.js';
import { asciiJson } from '../../http/ascii-json.js';
import { AppError } from '../../http/errors.js';
import { surrogateHeaders } from '../../http/cache-tier.js';
import { Standing } from '../vocabulary.js';
import { V1PageRecord, presentV1Record } from './record.presenter.js';

const tags = ['extension'];
/** Browsers keep the host list an hour and a bucket five minutes; the tier keeps both until a change purges them. */
const HOSTS_MAX_AGE = 3600;
const BUCKET_MAX_AGE = 300;

const Hash = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the page’s embed key (SPEC §3), lowercase hex' });

export const BucketEntry = Type.Object({
  hash: Hash,
  standing: Standing,
  contributions: Type.Integer({ description: 'Accepted contributions' }),
  roles: Type.Record(Type.String(), Type.Integer(), { description: 'Accepted contributions by role' }),
  notices: Type.Array(Type.String(), { description: 'The notices’ types, newest first' }),
});

/** A record's line in a bucket: enough for the badge and its title. Several pages sharing a key are summed. */
export function bucketEntries(records: { hash: string; record: PageRecord }[]) {
  const byHash = new Map<string, { hash: string; standing: string; contributions: number; roles: Record<string, number>; notices: string[] }>();
  for (const { hash, record } of records) {
    const e = byHash.get(hash) ?? { hash, standing: 'current', contributions: 0, roles: {}, notices: [] };
    e.contributions += record.contributions.length;
    for (const c of record.contributions) e.roles[c.role] = (e.roles[c.role] ?? 0) + 1;
    e.notices.push(...record.notices.map((n) => n.type));
    if (e.standing === 'current') e.standing = record.standing;
    byHash.set(hash, e);
  }
  return [...byHash.values()].sort((a, b) => (a.hash < b.hash ? -1 : 1));
}

/** Send `body` with an ETag of its bytes, or 304 when the reader already holds them. */
function sendTagged(req: FastifyRequest, reply: FastifyReply, body: string, headers: Record<string, string>) {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  void reply.headers(headers).header('etag', etag);
  const held = req.headers['if-none-match'];
  if (typeof held === 'string' && held.split(/\s*,\s*/).some((t) => t.replace(/^W\//, '') === etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(body);
}

export function extensionRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const withRecords = async (pages: Awaited<ReturnType<typeof findPagesByHashPrefix>>) =>
    (await buildRecords(deps.db, pages)).filter(hasRecord);

  app.get(
    '/extension/hosts',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'Every verified domain (a domain covers its subdomains): the hosts the browser extension may ask about',
        description: 'With an ETag (`If-None-Match` answers 304). `bucket_hex` is how many hex digits of a key hash a bucket is asked by.',
        response: { 200: Type.Object({ domains: Type.Array(Type.String()), bucket_hex: Type.Integer() }) },
      },
    },
    async (req, reply) => {
      const body = asciiJson({ domains: await listVerifiedDomains(deps.db), bucket_hex: BUCKET_HEX });
      return sendTagged(req, reply, body, { ...surrogateHeaders(deps, req, [tag.hosts]), 'cache-control': `public, max-age=${HOSTS_MAX_AGE}` });
    },
  );

  app.get(
    '/extension/buckets/:prefix',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'Every record whose embed key hash starts with the prefix: the extension’s private lookup',
        description:
          'The request names only a prefix of the hash, shared by many pages; the reader matches the full hash itself. ' +
          'Pages without accepted work or notices are not listed. Public and the same for everyone (docs/extension.md).',
        params: Type.Object({ prefix: Type.String({ pattern: `^[0-9a-f]{${BUCKET_HEX}}$`, description: `The first ${BUCKET_HEX} hex digits of the hash` }) }),
        response: { 200: Type.Object({ prefix: Type.String(), records: Type.Array(BucketEntry) }) },
      },
    },
    async (req, reply) => {
      const pages = await findPagesByHashPrefix(deps.db, req.params.prefix);
      const records = await withRecords(pages);
      const body = asciiJson({
        prefix: req.params.prefix,
        records: bucketEntries(records.map((record) => ({ hash: embedKeyHash(record.page.embed_key), record }))),
      });
      const depends = [tag.bucket(req.params.prefix), ...pages.map((p) => tag.page(p.id)), ...pages.map((p) => tag.publisher(p.publisher_id))];
      return sendTagged(req, reply, body, { ...surrogateHeaders(deps, req, depends), 'cache-control': `public, max-age=${BUCKET_MAX_AGE}` });
    },
  );

  app.get(
    '/extension/records/:hash',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'The records of every page whose embed key hashes to `hash`: what the extension’s popup shows',
        description: 'Asked only when the reader opens the popup on a page its bucket listed: this request names the page (docs/extension.md).',
        params: Type.Object({ hash: Hash }),
        response: { 200: Type.Object({ hash: Type.String(), records: Type.Array(V1PageRecord) }) },
        errors: ['404'],
      },
    },
    async (req, reply) => {
      const pages = await findPagesByKeyHash(deps.db, req.params.hash);
      const records = await withRecords(pages);
      if (records.length === 0) throw new AppError(404, 'not_found', 'No record for this hash');
      const body = asciiJson({ hash: req.params.hash, records: records.map((r) => presentV1Record(deps.config.siteUrl, r)) });
      const depends = [tag.bucket(req.params.hash.slice(0, BUCKET_HEX)), ...records.flatMap((r) => [tag.page(r.page.id), tag.publisher(r.page.publisher_id), ...tag.domains(r.page.host)])];
      return sendTagged(req, reply, body, { ...surrogateHeaders(deps, req, depends), 'cache-control': 'public, max-age=60' });
    },
  );
}
