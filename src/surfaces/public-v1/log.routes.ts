// The transparency log (docs/transparency.md): its signed checkpoint, its key, inclusion and consistency proofs, and
// its entries. Proofs are answered from the tree's stored nodes. The log's static files (its checkpoint, key, policy
// and tiles: what a proof page's check reads) spend no caller's rate budget (`unlimited`): every answer is cacheable,
// with its Cache-Control and the log's surrogate key, so the cache tier answers repeats (docs/decisions/
// log-files-are-static-reads.md). Proofs and entries stay on /v1's limits.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import * as log from '../../domain/transparency/log.service.js';
import * as tiles from '../../domain/transparency/tiles.js';
import * as witnesses from '../../domain/transparency/witnesses.js';
import { notFound } from '../../domain/errors.js';
import { LOG_KEY } from '../../domain/pages/cache-tags.js';
import { optional } from '../../http/auth.js';
import {
  V1ConsistencyProof,
  V1InclusionProof,
  V1LogEntries,
  V1LogKey,
  presentConsistency,
  presentEntry,
  presentInclusion,
} from './log.presenter.js';

/** A response that is not JSON: the OpenAPI documents read the media type from this marker. */
const Text = (description: string) => Type.String({ description, 'x-credence-media': 'text/plain' });
const Bytes = (description: string) => Type.String({ description, 'x-credence-media': 'application/octet-stream' });
/** Full tiles never change: a year, immutable. A partial tile is kept briefly (the full one replaces it soon). */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const PARTIAL = 'public, max-age=60';
/** The log's static files: no rate budget spent (the cache tier and browsers keep them; see the header). */
const STATIC_READ = { unlimited: true };
const Index = (description: string) => Type.Integer({ minimum: 0, maximum: 2 ** 52, description });

const prefersJson = (req: FastifyRequest) => {
  const accept = req.headers.accept ?? '';
  return accept.includes('application/json') && !accept.startsWith('text/plain');
};

export function logRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['transparency log'];

  app.get(
    '/log/checkpoint',
    {
      config: STATIC_READ,
      preValidation: [optional],
      schema: {
        tags,
        summary:
          'The newest checkpoint carrying the policy’s quorum of witness cosignatures (C2SP tlog-checkpoint in a signed note, with tlog-cosignature lines), text/plain',
        response: { 200: Text('origin, tree size and base64 root hash, a blank line, then the log’s Ed25519 signature line and the witnesses’ cosignature lines') },
      },
    },
    async (_req, reply) => {
      const c = await witnesses.witnessedCheckpoint(deps);
      // A checkpoint changes whenever the log grows: caches may keep it for a moment, never longer.
      return reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=1').header('xkey', LOG_KEY).send(c.note);
    },
  );

  app.get(
    '/log/policy',
    {
      config: STATIC_READ,
      preValidation: [optional],
      schema: {
        tags,
        summary: 'The log’s C2SP tlog-policy: its key, its witnesses and the quorum of cosignatures a reader should require, text/plain',
        response: { 200: Text('log, witness, group and quorum lines') },
      },
    },
    async (_req, reply) =>
      reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=300').header('xkey', LOG_KEY).send(witnesses.policyText(deps)),
  );

  app.get(
    '/log/key',
    {
      config: STATIC_READ,
      preValidation: [optional],
      schema: {
        tags,
        summary: 'The key that signs checkpoints, in the note key format (text/plain), or as JSON with its history when asked for application/json',
        response: { 200: Type.Union([Text('name+hex(key hash)+base64(0x01 || Ed25519 public key)'), V1LogKey]) },
      },
    },
    async (req, reply) => {
      const k = await log.verifierKeys(deps);
      // The key changes only when the operator rotates it (and restarts): kept five minutes, like the policy.
      void reply.header('vary', 'Accept').header('cache-control', 'public, max-age=300').header('xkey', LOG_KEY);
      if (!prefersJson(req)) return reply.type('text/plain; charset=utf-8').send(`${k.current}\n`);
      return reply.type('application/json; charset=utf-8').send(
        JSON.stringify({
          origin: k.origin,
          verifier_key: k.current,
          algorithm: 'Ed25519',
          public_key: k.publicKey.toString('base64'),
          key_hash: k.keyHash.toString('hex'),
          history: k.history.map((h) => ({
            verifier_key: h.verifier_key,
            first_tree_size: h.first_size,
            last_tree_size: h.last_size,
            first_signed_at: h.first_at,
          })),
        }),
      );
    },
  );

  app.get(
    '/log/proof/inclusion',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'An inclusion proof (RFC 9162) of one entry, against the newest checkpoint or an earlier tree size',
        querystring: Type.Object({
          index: Index('The entry’s index (its seq − 1)'),
          tree_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 2 ** 52, description: 'The tree size; the newest checkpoint’s when left out' })),
        }),
        response: { 200: V1InclusionProof },
      },
    },
    async (req) => {
      const p = await log.inclusionProof(deps, req.query.index, req.query.tree_size);
      return presentInclusion(p, await log.checkpointNoteOf(deps, p.treeSize));
    },
  );

  app.get(
    '/log/proof/bundle',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary:
          'A C2SP tlog-proof file of one entry (its bytes on the extra line, its inclusion proof, the witnessed checkpoint with cosignatures) that checks offline, text/plain',
        querystring: Type.Object({ index: Index('The entry’s index (its seq − 1)') }),
        response: { 200: Text('c2sp.org/tlog-proof@v1, extra, index, proof hashes, a blank line, the checkpoint') },
      },
    },
    async (req, reply) => {
      const text = await witnesses.proofBundle(deps, req.query.index);
      return reply
        .type('text/plain; charset=utf-8')
        .header('content-disposition', `attachment; filename="entry-${req.query.index}.tlog-proof"`)
        .header('cache-control', 'public, max-age=60')
        .send(text);
    },
  );

  app.get(
    '/log/proof/consistency',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'A consistency proof (RFC 9162) that the tree of `first` entries is a prefix of the tree of `second`',
        querystring: Type.Object({
          first: Index('The smaller tree size (a checkpoint you hold)'),
          second: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 52, description: 'The larger tree size; the newest checkpoint’s when left out' })),
        }),
        response: { 200: V1ConsistencyProof },
      },
    },
    async (req) => {
      const p = await log.consistencyProof(deps, req.query.first, req.query.second);
      return presentConsistency(p, await log.checkpointNoteOf(deps, p.second));
    },
  );

  app.get(
    '/log/entries',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'Entries of the log by index, oldest first, up to the newest checkpoint (at most 1,000 per call)',
        querystring: Type.Object({
          start: Index('The first index'),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: log.MAX_ENTRIES, default: 100 })),
        }),
        response: { 200: V1LogEntries },
      },
    },
    async (req) => {
      const { entries, treeSize } = await log.entries(deps, req.query.start, req.query.limit ?? 100);
      return { data: entries.map(presentEntry), meta: { start: req.query.start, count: entries.length, tree_size: treeSize } };
    },
  );

  app.get(
    '/log/tile/*',
    {
      config: STATIC_READ,
      preValidation: [optional],
      schema: {
        tags,
        summary:
          'C2SP tlog-tiles: a hash tile `tile/L/N[.p/W]` or an entry bundle `tile/entries/N[.p/W]` (N in 3-digit path elements, x-prefixed but the last) of the newest checkpoint’s tree',
        params: Type.Object({ '*': Type.String({ description: 'L/N[.p/W] or entries/N[.p/W]' }) }),
        response: { 200: Bytes('256 (or W) SHA-256 hashes, or the entries each after its big-endian uint16 length') },
      },
    },
    async (req, reply) => {
      const t = tiles.parseTilePath(req.params['*']);
      if (!t) throw notFound('Tile');
      const { bytes, withheld } = t.level === null ? await tiles.entryBundle(deps, t) : { bytes: await tiles.hashTile(deps, { ...t, level: t.level }), withheld: false };
      return reply
        .type('application/octet-stream')
        // A bundle holding an entry with text withheld may change again (a restore): never immutable.
        .header('cache-control', t.width === tiles.TILE_WIDTH && !withheld ? IMMUTABLE : PARTIAL)
        // The cache tier keeps tiles for their own Cache-Control (a full tile never changes); the key lets an
        // operator purge the log's files whole (docs/cache.md).
        .header('xkey', LOG_KEY)
        .send(bytes as unknown as string);
    },
  );
}
