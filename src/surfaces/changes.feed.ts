// The public change feed, one route for both surfaces (each mounts it with its own envelope and words):
// `GET /v1/changes` and `GET /api/v1/changes`, the list (`?after=&limit=`) and its live stream (the same path asked
// with `Accept: text/event-stream`). An entry is the log's stored body as is, with `links` added to what it
// changed; on /v1 a contribution's id is its /v1 string (`ctb_12`). docs/changes.md describes every kind.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { OpenedChange } from '../domain/changes/change.store.js';
import { FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, type FeedFilter, readFeed, resolveWatch } from '../domain/changes/feed.service.js';
import type { Deps } from '../domain/deps.js';
import { SLUG_PATTERN, USERNAME_PATTERN } from '../domain/accounts/rules.js';
import { optional } from '../http/auth.js';
import { AppError } from '../http/errors.js';
import { Nullable, sendSerialised, StringEnum } from '../http/schemas.js';
import { answerHeaders } from '../http/security-headers.js';
import { contributionRef, profileUrl, proofUrl, recordUrl } from './urls.js';
import { FLAG_REASONS, REVISIT_DUE } from '../domain/panels/review-flags.js';
import { Openings, Withheld } from './public-v1/log.presenter.js';
import { ChangeKind, NoticeType, PageUrl, Provenance, ServiceUrl, Standing, WorkRole } from './vocabulary.js';
import { type FeedWords, FeedStreams, feedStreams, type PresentEvent } from './changes.streams.js';

export type { FeedWords };

const FeedQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: 'The cursor: entries with a seq greater than this, oldest first (0: from the start)' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, default: FEED_DEFAULT_LIMIT, description: `At most this many entries; above ${FEED_MAX_LIMIT} is capped` })),
  contributor: Type.Optional(
    Type.String({ pattern: USERNAME_PATTERN, description: 'Only the entries about this contributor (a username): what names them' }),
  ),
  publication: Type.Optional(Type.String({ pattern: SLUG_PATTERN, description: 'Only the entries of this publication (a publisher’s slug)' })),
  domain: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+\\.?$',
      description: 'Only the entries about pages on this domain or its subdomains, and the domain’s own verifications',
    }),
  ),
});

const Named = Type.Object({ slug: Type.String(), name: Type.String() });
/**
 * A field of free text as an entry holds it: a salted commitment, opened in `openings` at its pointer; in an entry
 * written before free text was committed to, the text itself; where a decision withheld that text, `{withheld}`.
 */
const Text = (description?: string) =>
  Type.Union(
    [
      Type.Object({ commitment: Type.String({ contentEncoding: 'base64' }) }),
      Type.String({ description: 'In entries written before free text was committed to' }),
      Type.Object({ withheld: Type.Integer({ description: 'The decision that withheld it' }) }),
    ],
    { description: `${description ? `${description}. ` : ''}Free text: a commitment, opened in \`openings\` at its JSON Pointer` },
  );
const FeedEntry = Type.Object(
  {
    seq: Type.Integer({ description: 'Gapless from 1; the cursor of this entry (pass it as `after`, or it is the SSE event id)' }),
    kind: ChangeKind,
    created_at: Type.String({ format: 'date-time' }),
    page: Type.Optional(Type.Object({ id: Type.Integer(), url: PageUrl, title: Text(), topic: Type.Optional(Type.String()) })),
    publisher: Type.Optional(Named),
    previous_publisher: Type.Optional(Named),
    domain: Type.Optional(Type.String()),
    contribution: Type.Optional(
      Type.Object({
        id: Type.Union([Type.Integer(), Type.String()], { description: 'An integer on /api/v1, `ctb_<id>` on /v1' }),
        role: WorkRole,
        summary: Type.Optional(Text('On `contribution.accepted`')),
        accepted_at: Type.Optional(Type.String({ format: 'date-time', description: 'On `contribution.accepted`' })),
        change: Type.Optional(Type.Object({ from: Text(), to: Text() })),
        provenance: Type.Optional({ ...Provenance, description: 'On `contribution.accepted` (since consent was asked): who asserted it, how its person agreed' }),
        withdrawn_at: Type.Optional(Type.String({ format: 'date-time', description: 'On `contribution.withdrawn`' })),
        reason: Type.Optional(
          StringEnum(['withdrawn', 'unconfirmed'] as const, {
            description: 'On `contribution.withdrawn`: `withdrawn` (the named person took their name back) or `unconfirmed` (named before consent existed; off the record until they confirm)',
          }),
        ),
      }),
    ),
    contributor: Type.Optional(
      Type.Object(
        { commitment: Type.String({ contentEncoding: 'base64', description: 'base64(HMAC-SHA256(opening, canonical JSON of the contributor))' }) },
        { description: 'The person the entry names, committed to: `openings["/contributor"]` holds their fields while they have not been erased, their name and summary themselves committed to and opened at `/contributor/name` and `/contributor/summary`' },
      ),
    ),
    notice: Type.Optional(
      Type.Object(
        { id: Type.Integer(), type: NoticeType, date: Type.String({ format: 'date' }), reason: Text(), url: Nullable(PageUrl) },
        { description: 'On `page.notice`: the notice as the publisher gave it' },
      ),
    ),
    standing: Type.Optional({ ...Standing, description: 'On `page.notice`: the page’s standing after it' }),
    previous_standing: Type.Optional({ ...Standing, description: 'On `page.notice`: its standing before' }),
    panel: Type.Optional(
      Type.Object({
        id: Type.String(),
        version: Type.Integer(),
        topic: Type.String(),
        question: Type.Optional(Text('On `panel.issued`')),
        issued_at: Type.Optional(Type.String({ format: 'date-time', description: 'On `panel.issued`' })),
      }),
    ),
    flag: Type.Optional(
      Type.Object(
        {
          reason: StringEnum([...FLAG_REASONS, REVISIT_DUE] as const),
          source: Nullable(Type.String({ format: 'uri', description: 'The cited page; null for `revisit_due`' })),
          link: Type.String({ description: 'A path on this site: the correction’s proof, the page’s record, or the statement (`revisit_due`)' }),
          flagged_at: Type.String({ format: 'date-time' }),
        },
        { description: 'On `panel.flagged`: why the statement’s version needs review' },
      ),
    ),
    openings: Openings,
    withheld: Type.Optional(Withheld),
    links: Type.Object(
      { record: Type.Optional(ServiceUrl), proof: Type.Optional(ServiceUrl), profile: Type.Optional(ServiceUrl), panel: Type.Optional(ServiceUrl), publisher: Type.Optional(ServiceUrl) },
      { description: 'Where to read what the entry changed' },
    ),
  },
  {
    description:
      'One change to the public record. Without `openings`, `withheld` and `links`, its canonical JSON is the log entry as stored (docs/changes.md), unless a decision withheld clear text in it; `openings` open its commitments to personal fields and free text.',
  },
);

const FeedMeta = Type.Object({
  limit: Type.Integer(),
  next_cursor: Type.Integer({ description: 'Pass as `after` to go on: the last entry’s seq, or `after` itself when there was none' }),
  has_more: Type.Boolean(),
});

interface Body {
  page?: { id: number };
  contribution?: { id: number | string };
  panel?: { id: string; version: number };
  publisher?: { slug: string };
  [k: string]: unknown;
}

/** One entry as a surface shows it, serialised. */
function presentEntry(siteUrl: string, row: OpenedChange, words: FeedWords): string {
  const e = JSON.parse(row.body) as Body;
  const links: Record<string, string> = {};
  if (e.page) links.record = recordUrl(siteUrl, e.page.id);
  if (e.contribution) links.proof = proofUrl(siteUrl, Number(e.contribution.id));
  const person = (row.openings['/contributor']?.value as { username?: unknown } | undefined)?.username;
  if (typeof person === 'string') links.profile = profileUrl(siteUrl, person);
  if (e.panel) links.panel = `${siteUrl}/v1/panels/${encodeURIComponent(e.panel.id)}?version=${e.panel.version}`;
  if (e.publisher) links.publisher = `${siteUrl}/publishers/${encodeURIComponent(e.publisher.slug)}`;
  if (words === 'v1' && e.contribution) e.contribution = { ...e.contribution, id: contributionRef(Number(e.contribution.id)) };
  return JSON.stringify({ ...e, openings: row.openings, ...(Object.keys(row.withheld).length > 0 ? { withheld: row.withheld } : {}), links });
}

/** The list answer, serialised: `{success?, data, meta}`. */
async function feedPage(deps: Deps, query: { after?: number; limit?: number }, words: FeedWords, filter: FeedFilter | null): Promise<string> {
  const after = query.after ?? 0;
  const { rows, hasMore } = await readFeed(deps, after, query.limit ?? FEED_DEFAULT_LIMIT, filter ?? undefined);
  const meta = { limit: Math.min(query.limit ?? FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT), next_cursor: rows.at(-1)?.seq ?? after, has_more: hasMore };
  const data = `[${rows.map((r) => presentEntry(deps.config.siteUrl, r, words)).join(',')}]`;
  return `{${words === 'api' ? '"success":true,' : ''}"data":${data},"meta":${JSON.stringify(meta)}}`;
}

const wantsStream = (req: FastifyRequest) => (req.headers.accept ?? '').includes('text/event-stream');

/** Where a stream starts: `Last-Event-ID` (a reconnecting EventSource sends it) wins over `after`. */
function streamStart(req: FastifyRequest, after: number | undefined): number {
  const header = req.headers['last-event-id'];
  if (header === undefined) return after ?? 0;
  const value = Array.isArray(header) ? header[0] : header;
  if (!value || !/^\d{1,10}$/.test(value.trim()) || Number(value) > 2_147_483_647) {
    throw new AppError(400, 'invalid_request', 'Last-Event-ID must be the seq of an entry (a whole number)', [
      { field: 'Last-Event-ID', message: 'must be a whole number' },
    ]);
  }
  return Number(value);
}

/** One entry as an SSE event: its seq as the id, its kind as the event name. */
const eventOf =
  (siteUrl: string): PresentEvent =>
  (row, words) =>
    `id: ${row.seq}\nevent: ${row.kind}\ndata: ${presentEntry(siteUrl, row, words)}\n\n`;

/**
 * Server-Sent Events: every entry after `after` (each event's `id` is its seq, its `event` the kind), then each new
 * one as this process's change follower reads it (within its poll interval), and a comment line every 15 s. The
 * caller's place is taken before anything is written, so a refusal is an ordinary answer in the surface's envelope.
 */
function streamFeed(streams: FeedStreams, req: FastifyRequest, reply: FastifyReply, after: number, words: FeedWords, filter: FeedFilter | null): void {
  const release = streams.admit(FeedStreams.clientsOf(req));
  try {
    reply.hijack();
    const raw = reply.raw;
    const headers = answerHeaders(reply.request, reply.getHeaders()) as Record<string, string | number | string[]>;
    raw.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-store',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    raw.write('retry: 2000\n\n');
    streams.attach(raw, words, after, release, filter ?? undefined);
  } catch (err) {
    // The place is given back whatever failed before the stream was attached.
    release();
    throw err;
  }
}

/**
 * `GET …/changes` on one surface: `v1` (the /v1 envelope, contribution ids as `ctb_<id>`) or `api` (/api/v1's
 * envelope with `success`, integer ids). The same route, words and schema otherwise.
 */
export function changeRoutes(fastify: FastifyInstance, deps: Deps, surface: FeedWords): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // One registry per process for both surfaces: the caps count a caller's streams on either.
  const streams = feedStreams(deps, eventOf(deps.config.siteUrl));
  // A stream never ends by itself: end them before the server closes.
  fastify.addHook('preClose', async () => streams.closeAll());
  const list =
    surface === 'api'
      ? Type.Object({ success: Type.Literal(true), data: Type.Array(FeedEntry), meta: FeedMeta })
      : Type.Object({ data: Type.Array(FeedEntry), meta: FeedMeta });
  app.get(
    '/changes',
    {
      preValidation: [optional],
      schema: {
        tags: ['changes'],
        summary: 'Changes to the public record, oldest first, after a cursor; with Accept: text/event-stream, a live stream',
        description:
          'Each entry is one change to public data (a page registered or updated, accepted work, a contributor’s public fields, a publisher, a domain, a panel version). Go on with `after=meta.next_cursor`. Asked with `Accept: text/event-stream`, the answer is a Server-Sent Events stream: every entry after `after` (or after the `Last-Event-ID` header), then each new one; event id = seq, event name = kind, a comment line every 15 s. A caller holds a few streams at once (per account when signed in, else per address: `FEED_STREAMS_PER_CLIENT`, 10 by default), a network (an IPv4 /24, an IPv6 /64) at most `FEED_STREAMS_PER_NETWORK` (100); one more is 429 `rate_limited` with `Retry-After`. A client that does not read its stream is disconnected and resumes with `Last-Event-ID`. To watch a name, filter by `contributor` (a username), `publication` (a slug) or `domain` (list and stream alike); an unknown contributor or publication is a 404.',
        querystring: FeedQuery,
        response: { 200: list },
        // An unknown `contributor` or `publication` to watch.
        errors: ['404'],
      },
    },
    async (req, reply) => {
      const filter = await resolveWatch(deps, req.query);
      if (wantsStream(req)) return streamFeed(streams, req, reply, streamStart(req, req.query.after), surface, filter);
      return sendSerialised(reply, await feedPage(deps, req.query, surface, filter));
    },
  );
}
