// The browser extension's reads (docs/extension.md): the verified domains it may ask about, the bucket of records
// under a hash prefix (everything its badge and popup show), and the inclusion proofs of the log entries a bucket's
// records cite. Nothing asked names a page or narrows it below its bucket. Every answer is public, the same for
// everyone, with an ETag (304 when it matches) and the cache tier's surrogate keys.
import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { FORMER_CONTRIBUTOR } from '../../domain/accounts/rules.js';
import type { Deps } from '../../domain/deps.js';
import { LOG_KEY, tag } from '../../domain/pages/cache-tags.js';
import { shareOut } from '../../domain/pages/bucket-share.js';
import { BUCKET_HEX, embedKeyHash } from '../../domain/pages/key-hash.js';
import { isFlagged } from '../../domain/pages/notices.js';
import { hostUnderDomain } from '../../domain/pages/url-keys.js';
import { verifiedDomainsOf } from '../../domain/publishers/publisher.store.js';
import { findPagesByHashPrefix, listVerifiedDomains } from '../../domain/pages/page.store.js';
import { buildRecords, hasRecord, type PageRecord } from '../../domain/pages/record.js';
import { currentVersionsCitingAny } from '../../domain/panels/panel.store.js';
import { proofsAgainstWitnessed } from '../../domain/transparency/witnesses.js';
import { optional } from '../../http/auth.js';
import { asciiJson } from '../../http/ascii-json.js';
import { STALE_IF_ERROR, surrogateHeaders } from '../../http/cache-tier.js';
import { Nullable } from '../../http/schemas.js';
import { compressible, negotiateCoding, representationOf } from '../../http/precompressed.js';
import { JSON_ANSWER, sendWire } from '../../http/wire.js';
import { profileUrl, recordUrl } from '../urls.js';
import { revalidatedAnswers } from '../docs/openapi.js';
import { NoticeType, PageUrl, ServiceUrl, Standing, WorkRole } from '../vocabulary.js';

const tags = ['extension'];
/** Browsers keep the host list an hour and a bucket five minutes; the tier keeps both until a change purges them. */
const HOSTS_MAX_AGE = 3600;
const BUCKET_MAX_AGE = 300;
/**
 * A bucket's proofs: a minute for browsers and the tier. A proof stays true against the checkpoint it carries; what a
 * minute delays is only an entry newer than that checkpoint (a change to the bucket purges it at once).
 */
const PROOFS_MAX_AGE = 60;

const Hash = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the page’s embed key (SPEC §3), lowercase hex' });
const Prefix = Type.String({ pattern: `^[0-9a-f]{${BUCKET_HEX}}$`, description: `The first ${BUCKET_HEX} hex digits of the hash, lowercase` });
const LogIndex = Nullable(Type.Integer({ minimum: 0, description: 'Its transparency-log entry (the index the proofs answer lists); null before the log' }));
const Day = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

export const BucketEntry = Type.Object({
  hash: Hash,
  standing: Standing,
  contributions: Type.Integer({ description: 'Accepted contributions' }),
  roles: Type.Record(Type.String(), Type.Integer(), { description: 'Accepted contributions by role' }),
  notices: Type.Array(NoticeType, { description: 'The notices’ types, newest first' }),
  url: PageUrl,
  title: Nullable(Type.String({ description: 'The page’s title; null when the publisher gave none' })),
  publisher: Type.Object({ slug: Type.String(), name: Type.String() }),
  record_url: { ...ServiceUrl, description: 'The record’s page on this service' },
  work: Type.Array(
    Type.Object({
      role: WorkRole,
      name: Type.String({ description: 'As the record shows it: a person who deleted their account is “A former contributor”' }),
      profile_url: Nullable({ ...ServiceUrl, description: 'The contributor’s public profile; null for a former contributor' }),
      date: { ...Day, description: 'When it was accepted, YYYY-MM-DD' },
      log_index: LogIndex,
    }),
    { description: 'Accepted contributions, oldest first' },
  ),
  notice_items: Type.Array(
    Type.Object({
      type: NoticeType,
      date: { ...Day, description: 'The notice’s own date, YYYY-MM-DD' },
      reason: Type.String(),
      url: Nullable({ ...PageUrl, description: 'The notice on the publisher’s site; null when it has none' }),
      log_index: LogIndex,
    }),
    { description: 'The notices, newest first' },
  ),
  panels: Type.Array(Type.Object({ title: Type.String({ description: 'The statement’s question' }), url: ServiceUrl }), {
    description: 'Panel statements whose current version cites the page',
  }),
});

const Withheld = Type.Object({
  publisher: Type.Object({ slug: Type.String(), name: Type.String() }),
  domains: Type.Array(Type.String(), { description: 'Its verified domains the withheld records’ pages are under (a domain covers its subdomains)' }),
  records: Type.Integer({ minimum: 1, description: 'How many of its records under the prefix are not listed' }),
});

const Bucket = Type.Object({
  prefix: Type.String(),
  records: Type.Array(BucketEntry, { description: 'One per embed key hash under the prefix, by hash, each publisher’s up to its share of the bucket' }),
  withheld: Type.Array(Withheld, {
    description:
      'Publishers with more records under the prefix than their share of a bucket (128 KB of entries and proofs): how many are not listed, and on which of their domains. ' +
      'A page on one of those domains that is not listed may have a record: the extension says so, never “no record” (docs/extension.md).',
  }),
});

const Proofs = Type.Object({
  checkpoint: Type.String({ description: 'The witnessed checkpoint every proof is against, with its cosignature lines, exactly as /v1/log/checkpoint serves it' }),
  proofs: Type.Array(
    Type.Object({
      index: Type.Integer({ minimum: 0, description: 'The entry’s index in the log' }),
      entry: Type.String({ description: 'Base64 of the entry’s bytes, as the log’s entry bundle holds them (its leaf is SHA-256(0x00 ‖ bytes))' }),
      hashes: Type.Array(Type.String(), { description: 'The inclusion path, base64 SHA-256 hashes (RFC 9162 §2.1.3)' }),
    }),
    { description: 'Every log entry the bucket’s records cite that the checkpoint covers, by index; a newer entry is covered within seconds' },
  ),
});

const logIndex = (seq: number | null) => (seq === null ? null : Number(seq) - 1);
const newestWork = (r: PageRecord) => r.contributions.reduce((m, c) => (c.accepted_at > m ? c.accepted_at : m), '');

/**
 * The record each hash shows: of several pages sharing an embed key (SPEC §3), the one with the newest accepted
 * work, as the embed chooses; ties go to the older page. The extension knows only the key, as the embed does.
 */
export function recordsByHash(records: PageRecord[]): { hash: string; record: PageRecord }[] {
  const byHash = new Map<string, PageRecord>();
  for (const record of records) {
    const hash = embedKeyHash(record.page.embed_key);
    const held = byHash.get(hash);
    if (!held || newestWork(record) > newestWork(held)) byHash.set(hash, record);
  }
  return [...byHash].map(([hash, record]) => ({ hash, record })).sort((a, b) => (a.hash < b.hash ? -1 : 1));
}

/** A record's line in a bucket: the badge's counts and everything the popup shows. */
export function bucketEntry(siteUrl: string, hash: string, record: PageRecord, panels: { slug: string; question: string }[]) {
  const roles: Record<string, number> = {};
  for (const c of record.contributions) roles[c.role] = (roles[c.role] ?? 0) + 1;
  return {
    hash,
    standing: record.standing,
    contributions: record.contributions.length,
    roles,
    notices: record.notices.map((n) => n.type),
    url: record.page.url,
    title: record.page.title || null,
    publisher: { slug: record.page.publisher_slug, name: record.page.publisher_name },
    record_url: recordUrl(siteUrl, record.page.id),
    work: record.contributions.map((c) => ({
      role: c.role,
      name: c.username === FORMER_CONTRIBUTOR.username ? FORMER_CONTRIBUTOR.name : c.name || c.username,
      profile_url: c.username === FORMER_CONTRIBUTOR.username ? null : profileUrl(siteUrl, c.username),
      date: c.accepted_at.slice(0, 10),
      log_index: logIndex(c.log_seq),
    })),
    notice_items: record.notices.map((n) => ({ type: n.type, date: n.notice_date, reason: n.reason, url: n.notice_url, log_index: logIndex(n.log_seq) })),
    panels: panels.map((p) => ({ title: p.question, url: `${siteUrl}/panels/${encodeURIComponent(p.slug)}` })),
  };
}

/**
 * Send `body` with an ETag of its bytes, gzip or brotli when the reader takes it (http/precompressed.ts: a bucket at a
 * million pages is tens of kilobytes of JSON, a fifth of it compressed), or 304 when the reader already holds it.
 */
function sendTagged(req: FastifyRequest, reply: FastifyReply, body: string, headers: Record<string, string>) {
  const answer = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
  const rep = representationOf(answer, negotiateCoding(req.headers['accept-encoding'], answer));
  const all = { ...headers, ...(compressible(answer) ? { vary: 'Accept-Encoding' } : {}), etag: rep.etag };
  const held = req.headers['if-none-match'];
  if (typeof held === 'string' && held.split(/\s*,\s*/).some((t) => t.replace(/^W\//, '') === rep.etag)) return reply.headers(all).code(304).send();
  sendWire(reply, { ...JSON_ANSWER, ...all, ...(rep.coding ? { 'content-encoding': rep.coding } : {}) }, rep.wire);
  return reply;
}

/** When a record last changed: its newest accepted work or notice. */
const newestActivity = (r: PageRecord) => r.notices.reduce((m, n) => (n.created_at > m ? n.created_at : m), newestWork(r));

/**
 * The records of a bucket, one per hash, each publisher's up to its share (domain/pages/bucket-share.ts), those
 * withheld by publisher, and what the answer depends on (cache-tags.ts). The bucket and its proofs both come from
 * here, so every entry listed has its proofs and nothing withheld is proved.
 */
export async function loadBucket(deps: Pick<Deps, 'db' | 'config'>, prefix: string) {
  const built = await buildRecords(deps.db, await findPagesByHashPrefix(deps.db, prefix));
  // As the embed: a page off its publisher's verified domains shows nothing, so a domain verified or moved away
  // changes the bucket (each page's domains are tagged, listed or not).
  const candidates = recordsByHash(built.filter((r) => r.verified && hasRecord(r))).map(({ hash, record }) => ({
    hash,
    record,
    publisherId: record.page.publisher_id,
    flagged: isFlagged(record.standing),
    newest: newestActivity(record),
    entryBytes: asciiJson(bucketEntry(deps.config.siteUrl, hash, record, [])).length,
    urlBytes: Buffer.byteLength(record.page.url),
    cited: record.contributions.filter((c) => c.log_seq !== null).length + record.notices.filter((n) => n.log_seq !== null).length,
  }));
  const share = shareOut(candidates);
  const records = share.listed.sort((a, b) => (a.hash < b.hash ? -1 : 1)).map(({ hash, record }) => ({ hash, record }));
  const domains = await verifiedDomainsOf(deps.db, [...share.withheld.keys()]);
  const withheld = [...share.withheld]
    .map(([publisherId, list]) => ({
      publisher: { slug: list[0]!.record.page.publisher_slug, name: list[0]!.record.page.publisher_name },
      domains: (domains.get(publisherId) ?? []).filter((d) => list.some((c) => hostUnderDomain(c.record.page.host, d))).sort(),
      records: list.length,
    }))
    .sort((a, b) => (a.publisher.slug < b.publisher.slug ? -1 : 1));
  const depends = new Set([tag.bucket(prefix), tag.panels, ...built.flatMap((r) => tag.domains(r.page.host))]);
  // Every change to a page carries its URL, so the follower purges its bucket (follower.ts); what a record shows
  // beyond its pages (the publisher's name, the contributors' names) is tagged here.
  for (const { record } of records) {
    depends.add(tag.publisher(record.page.publisher_id));
    for (const c of record.contributions) depends.add(tag.account(c.account_id));
  }
  for (const publisherId of share.withheld.keys()) depends.add(tag.publisher(publisherId));
  return { records, withheld, depends };
}

/** A bucket's answer (any prefix length: the routes take BUCKET_HEX digits, bench/extension.ts others) and its tags. */
export async function bucketAnswer(deps: Pick<Deps, 'db' | 'config'>, prefix: string) {
  const { records, withheld, depends } = await loadBucket(deps, prefix);
  const cited = await currentVersionsCitingAny(deps.db, records.map((r) => r.record.page.lookup_key));
  for (const c of cited) depends.add(tag.panel(c.slug));
  const body = asciiJson({
    prefix,
    records: records.map(({ hash, record }) => bucketEntry(deps.config.siteUrl, hash, record, cited.filter((c) => c.lookup_key === record.page.lookup_key))),
    withheld,
  });
  return { body, depends };
}

/** The proofs answer of a bucket and its tags. */
export async function proofsAnswer(deps: Deps, prefix: string) {
  const { records, depends } = await loadBucket(deps, prefix);
  const seqs = records.flatMap(({ record }) => [...record.contributions.map((c) => c.log_seq), ...record.notices.map((n) => n.log_seq)]);
  const p = await proofsAgainstWitnessed(deps, seqs.filter((s): s is number => s !== null).map((s) => Number(s) - 1));
  const body = asciiJson({
    checkpoint: p.checkpoint,
    proofs: p.proofs.map((x) => ({ index: x.index, entry: x.entry.toString('base64'), hashes: x.hashes.map((h) => h.toString('base64')) })),
  });
  return { body, depends };
}

export function extensionRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/extension/hosts',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'Every verified domain (a domain covers its subdomains): the hosts the browser extension may ask about',
        description:
          'With an ETag (`If-None-Match` answers 304). `bucket_hex` is how many hex digits of a key hash a bucket is asked by. ' +
          'The extension asks again daily, and when the change feed has a `domain.verified`, `domain.moved` or `domain.revoked` entry (docs/extension.md).',
        response: { 200: Type.Object({ domains: Type.Array(Type.String()), bucket_hex: Type.Integer() }) },
        answers: revalidatedAnswers,
      },
    },
    async (req, reply) => {
      const body = asciiJson({ domains: await listVerifiedDomains(deps.db), bucket_hex: BUCKET_HEX });
      return sendTagged(req, reply, body, { ...surrogateHeaders(deps, req, [tag.hosts]), 'cache-control': `public, max-age=${HOSTS_MAX_AGE}, stale-if-error=${STALE_IF_ERROR}` });
    },
  );

  app.get(
    '/extension/buckets/:prefix',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'Every record whose embed key hash starts with the prefix, with all the extension shows: its private lookup',
        description:
          'The request names only a prefix of the hash, shared by many pages; the reader matches the full hash itself. ' +
          'Pages without accepted work or notices, or off their publisher’s verified domains, are not listed (as the embed shows nothing for them). ' +
          'Each publisher’s records are listed up to its share of the bucket (128 KB of entries and proofs, flagged records first); the rest are counted in `withheld` with the domains they are on. ' +
          'Public and the same for everyone, with an ETag (docs/extension.md).',
        params: Type.Object({ prefix: Prefix }),
        response: { 200: Bucket },
        answers: revalidatedAnswers,
      },
    },
    async (req, reply) => {
      const { body, depends } = await bucketAnswer(deps, req.params.prefix);
      return sendTagged(req, reply, body, { ...surrogateHeaders(deps, req, depends), 'cache-control': `public, max-age=${BUCKET_MAX_AGE}, stale-if-error=${STALE_IF_ERROR}` });
    },
  );

  app.get(
    '/extension/buckets/:prefix/proofs',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'Inclusion proofs of every log entry a bucket’s records cite, against one witnessed checkpoint: what the popup checks',
        description:
          'Asked by prefix, like the bucket, so it says no more about the reader’s page. Public, with an ETag; kept a minute (docs/extension.md).',
        params: Type.Object({ prefix: Prefix }),
        response: { 200: Proofs },
        answers: revalidatedAnswers,
        errors: ['404'],
      },
    },
    async (req, reply) => {
      const { body, depends } = await proofsAnswer(deps, req.params.prefix);
      const tier = surrogateHeaders(deps, req, depends);
      const headers: Record<string, string> = { ...tier, 'cache-control': `public, max-age=${PROOFS_MAX_AGE}, stale-if-error=${STALE_IF_ERROR}` };
      // A new checkpoint changes the answer: the tier keeps it a minute, and the log's key purges it with the log's files.
      if (tier.xkey) Object.assign(headers, { xkey: `${tier.xkey} ${LOG_KEY}`, 'surrogate-control': `max-age=${PROOFS_MAX_AGE}` });
      return sendTagged(req, reply, body, headers);
    },
  );
}
