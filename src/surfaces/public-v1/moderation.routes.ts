// /v1 reports (DSA Art. 16: anyone, with or without an account) and the transparency counts (Art. 15, 24), counted
// from the change log's decision entries so that anyone can recount them.
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { localeOf } from '../../domain/mail/mail.kinds.js';
import { submitReport } from '../../domain/moderation/moderation.service.js';
import { CATEGORIES, type Category, ITEM_KINDS, parseItemRef, REPORTS_PER_HOUR } from '../../domain/moderation/rules.js';
import { transparencyCounts } from '../../domain/moderation/transparency.js';
import { sha256 } from '../../domain/tokens.js';
import { optional } from '../../http/auth.js';
import { invalid } from '../../domain/errors.js';
import { rateLimited } from '../../http/errors.js';
import { allowlist } from '../../http/surface.js';
import { Nullable, StringEnum } from '../../http/schemas.js';

const tags = ['reports'];
const reportPolicy = { name: 'reports', capacity: REPORTS_PER_HOUR, rate: REPORTS_PER_HOUR / 3600 };

const ReportBody = Type.Object(
  {
    item: Type.String({ maxLength: 80, description: 'What is reported: `<kind>:<id>[:<field>]`, kind one of ' + ITEM_KINDS.join(', ') + ' (e.g. `contribution:12:summary`)' }),
    category: StringEnum(CATEGORIES, { description: 'The DSA Transparency Database’s statement category; `STATEMENT_CATEGORY_OTHER_VIOLATION_TC`: against the terms' }),
    explanation: Type.String({ minLength: 10, maxLength: 5000, description: 'Why the text is unlawful or against the terms' }),
    notifier_name: Type.Optional(Type.String({ maxLength: 200 })),
    notifier_email: Type.Optional(Type.String({ maxLength: 254, description: 'Where the acknowledgement and the decision go; optional' })),
    good_faith: Type.Boolean({ description: 'The notifier states in good faith that the notice is accurate and complete (Art. 16(2)(d)); must be true' }),
  },
  { additionalProperties: false },
);

const Receipt = Type.Object({
  reference: Type.String({ description: 'The report’s reference, as the acknowledgement says it' }),
  source: StringEnum(['anonymous', 'account', 'trusted_flagger'] as const),
  received_at: Type.String({ format: 'date-time' }),
});

const Counts = Type.Record(Type.String(), Type.Integer());
const Transparency = Type.Object({
  period: Type.String(),
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  reports: Type.Object({ total: Type.Integer(), by_category: Counts, by_source: Counts }),
  decisions: Type.Object({ total: Type.Integer(), by_type: Counts, by_ground: Counts, automated: Type.Integer() }),
  median_seconds_to_decide: Nullable(Type.Integer()),
  appeals: Type.Object({ decided: Type.Integer(), reversed: Type.Integer(), upheld: Type.Integer() }),
  notifiers_suspended: Type.Integer(),
  entries: Type.Integer({ description: 'The `moderation.decided` entries of the change log counted' }),
});

/**
 * A report spends from its address's bucket and from its notifier's (account or address), so neither can flood. An
 * address on RATE_LIMIT_ALLOWLIST is exempt from these as from every other limit.
 */
async function limitReports(deps: Deps, exempt: boolean, keys: string[]): Promise<void> {
  if (exempt) return;
  for (const key of keys) {
    const r = await deps.rateLimiter.limit(key, reportPolicy);
    if (!r.allowed) throw rateLimited(r.retryAfterSeconds);
  }
}

export function moderationRoutes(app: FastifyInstance, deps: Deps) {
  const exempt = allowlist(deps.config.rateLimitAllowlist);
  app.post(
    '/reports',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'Report text that is unlawful or against the terms (a notice under DSA Art. 16)',
        description:
          'Anyone may report; with a session or key the report is the account’s (a trusted flagger’s is read first). ' +
          `The notifier gets an acknowledgement by mail with the reference, and later the decision. ${REPORTS_PER_HOUR} reports an hour per address and per notifier.`,
        body: ReportBody,
        response: { 201: Receipt },
      },
    },
    async (req, reply) => {
      const body = req.body as { item: string; category: Category; explanation: string; notifier_name?: string; notifier_email?: string; good_faith: boolean };
      const item = parseItemRef(body.item);
      if (!item) throw invalid('item', 'name what is reported as kind:id or kind:id:field, e.g. contribution:12:summary');
      const accountId = req.principal.kind === 'anonymous' ? null : req.principal.accountId;
      const notifier = accountId !== null ? `account:${accountId}` : body.notifier_email ? `email:${sha256(body.notifier_email.trim().toLowerCase())}` : null;
      await limitReports(deps, exempt(req.ip), [`report-ip:${req.ip}`, ...(notifier ? [`report-notifier:${notifier}`] : [])]);
      const r = await submitReport(deps, { ...body, item, locale: localeOf(req.headers['accept-language']) }, accountId);
      return reply.status(201).send({ reference: r.reference, source: r.source, received_at: r.created_at });
    },
  );

  app.get(
    '/transparency',
    {
      // Public, but a credential presented is still checked (a revoked key is a 401 here as everywhere).
      preValidation: [optional],
      schema: {
        tags,
        summary: 'The counts of reports, decisions and appeals of a half-year (DSA Art. 15, 24), from the change log',
        querystring: Type.Object({ period: Type.String({ maxLength: 7, description: 'A half-year: `2026-H2`' }) }, { additionalProperties: false }),
        response: { 200: Transparency },
      },
    },
    async (req) => transparencyCounts(deps, (req.query as { period: string }).period),
  );
}
