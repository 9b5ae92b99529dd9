// OpenAPI 3.1 documents built from the routes' own schemas: each surface collects its routes as they are
// registered, so a route cannot exist without being described (test/openapi.test.ts holds us to it).
import type { FastifyInstance, RouteOptions } from 'fastify';
import { contributorCaller, optional, publisherCaller, sessionOnly, signedIn } from '../../http/auth.js';
import { BODY_LIMITS, type BodyClass, MAX_DEPTH } from '../../http/bodies.js';
import { ERROR_CODES } from '../../domain/errors.js';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[] };

export interface OpenApiOptions {
  title: string;
  description: string;
  version: string;
  /** The mount point of the surface, e.g. `/api/v1`. */
  prefix: string;
  /** The error body of the surface, for documented error responses. */
  errorEnvelope: 'v1' | 'api';
}

interface Collected {
  method: string;
  url: string;
  route: RouteOptions;
}

/** A request the service sends (OpenAPI 3.1 `webhooks`): its JSON body and its headers. */
export interface WebhookDoc {
  summary: string;
  description?: string;
  body: unknown;
  /** A header's value is free text unless `event` says it is the event's name; `optional`: not on every request. */
  headers: { name: string; description: string; event?: boolean; optional?: boolean }[];
}

/**
 * What a route answers beyond its response schemas, said in its schema for the documents alone (Fastify ignores the
 * key, as it does `links`): another media type of a status (`application/ld+json`), a status without a schema (an
 * embed's 304), the headers of an answer (`ETag`). Error statuses a route answers beyond the ones every route of its
 * kind does go in its schema's `errors` (`['404']`, `['409']`).
 */
export type Answers = Record<
  string,
  { description?: string; media?: Record<string, { description?: string; schema?: unknown }>; headers?: (keyof typeof HEADERS)[] }
>;

export class OpenApiCollector {
  private readonly routes: Collected[] = [];
  private readonly webhooks = new Map<string, WebhookDoc>();

  constructor(private readonly opts: OpenApiOptions) {}

  /** Register on the surface's instance before its routes. */
  attach(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      // Pages for people (config.html) and operational routes (config.hidden) are not part of the API.
      const config = route.config as { hidden?: boolean; html?: boolean } | undefined;
      if (config?.hidden || config?.html) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (method === 'HEAD') continue;
        this.routes.push({ method: method.toLowerCase(), url: route.url, route });
      }
    });
  }

  /** Describe an event the surface's webhooks deliver; it appears under the document's `webhooks`. */
  addWebhook(name: string, doc: WebhookDoc): void {
    this.webhooks.set(name, doc);
  }

  /** Every documented `METHOD /path` (with `{param}`), for the coverage test. */
  operations(): string[] {
    return this.routes.map((r) => `${r.method.toUpperCase()} ${toOpenApiPath(r.url)}`);
  }

  document(serverUrl: string): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const { method, url, route } of this.routes) {
      // Routes outside the surface's prefix (the public record and proof addresses) carry their own server.
      const inside = url.startsWith(`${this.opts.prefix}/`);
      const path = toOpenApiPath(inside ? url.slice(this.opts.prefix.length) : url);
      const item = (paths[path] ??= inside ? {} : { servers: [{ url: serverUrl }] });
      item[method] = this.operation(route);
    }
    const errorBody = {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: [...ERROR_CODES], description: 'SPEC §6; stable, for programs' },
        message: { type: 'string', description: 'For people; may change' },
        details: {
          type: 'array',
          description: 'Validation errors: one entry per field at fault',
          items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
        },
      },
    };
    const errorSchema =
      this.opts.errorEnvelope === 'api'
        ? { type: 'object', required: ['success', 'error'], properties: { success: { const: false }, error: errorBody } }
        : { type: 'object', required: ['error'], properties: { error: errorBody } };
    return {
      openapi: '3.1.0',
      info: { title: this.opts.title, version: this.opts.version, description: this.opts.description },
      servers: [{ url: `${serverUrl}${this.opts.prefix}` }],
      paths,
      ...(this.webhooks.size > 0 ? { webhooks: this.webhookItems() } : {}),
      components: {
        schemas: { Error: errorSchema },
        headers: HEADERS,
        responses: errorResponses(),
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (`cred_live_…`) or a session token' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
    };
  }

  private webhookItems(): Record<string, unknown> {
    const items: Record<string, unknown> = {};
    for (const [name, w] of this.webhooks) {
      items[name] = {
        post: {
          operationId: `webhook${name.split(/[^A-Za-z0-9]+/).map((x) => x[0]!.toUpperCase() + x.slice(1)).join('')}`,
          summary: w.summary,
          ...(w.description ? { description: w.description } : {}),
          parameters: w.headers.map((h) => ({
            name: h.name,
            in: 'header',
            required: !h.optional,
            description: h.description,
            schema: h.event ? { type: 'string', const: name } : { type: 'string' },
          })),
          requestBody: { required: true, content: { 'application/json': { schema: clean(w.body) } } },
          responses: {
            '2XX': { description: 'Any 2xx acknowledges the delivery; anything else, a 3xx included, is retried' },
            '4XX': { description: 'Not acknowledged: retried on the schedule (docs/webhooks.md)' },
          },
          // The receiver checks the signature headers, not a credential of ours.
          security: [],
        },
      };
    }
    return items;
  }

  private operation(route: RouteOptions): Record<string, unknown> {
    const schema = (route.schema ?? {}) as Record<string, Schema | undefined> & {
      tags?: string[];
      summary?: string;
      links?: Record<string, unknown>;
      answers?: Answers;
      errors?: string[];
    };
    const config = route.config as { unlimited?: boolean; cors?: boolean } | undefined;
    // A public read is CORS-open (app.ts): every answer says so.
    const cors = config?.cors ? CORS_HEADERS : {};
    const parameters = [
      ...paramsOf(schema.params, 'path'),
      ...paramsOf(schema.querystring, 'query'),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, body] of Object.entries((schema.response ?? {}) as Record<string, Schema>)) {
      // A text answer (the log's checkpoint and key) names its media type; a union lists each form under its own.
      const forms = ((body.anyOf as Schema[] | undefined) ?? [body]).map((s) => [(s as Record<string, unknown>)['x-credence-media'] ?? 'application/json', s] as const);
      const content = forms.length > 1 && forms.some(([m]) => m !== 'application/json')
        ? Object.fromEntries(forms.map(([m, s]) => [m, { schema: clean(s) }]))
        : { [forms[0]![0] as string]: { schema: clean(body) } };
      const limited = !config?.unlimited;
      responses[status] = {
        description: status.startsWith('2') ? 'Success' : 'Error',
        headers: { ...(limited ? LIMITED_HEADERS : { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } }), ...cors },
        content,
        // Where to go next with what this answer holds (create, then read): OpenAPI links, from the route's schema.
        ...(schema.links?.[status] ? { links: schema.links[status] } : {}),
      };
    }
    const limited = !config?.unlimited;
    for (const [status, extra] of Object.entries(schema.answers ?? {})) {
      const base = (responses[status] ??= {
        description: extra.description ?? (status.startsWith('2') || status.startsWith('3') ? 'Success' : 'Error'),
        headers: { ...(limited ? LIMITED_HEADERS : { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } }), ...cors },
      }) as { description: string; headers: Record<string, unknown>; content?: Record<string, unknown> };
      if (extra.description) base.description = extra.description;
      for (const h of extra.headers ?? []) base.headers[h] = { $ref: `#/components/headers/${h}` };
      for (const [media, m] of Object.entries(extra.media ?? {})) {
        (base.content ??= {})[media] = { schema: clean(m.schema ?? { description: m.description }) };
      }
    }
    // A route that takes a body runs its guards before reading it (buildApp moves them to preParsing).
    const guards = ([] as unknown[]).concat(route.preValidation ?? [], route.preParsing ?? []);
    const authenticated = guards.some((g) => g === sessionOnly || g === signedIn || g === publisherCaller || g === contributorCaller);
    // Every error the operation can answer, each with the one error schema: what any request can meet (a bad
    // request, headers too large, HTTPS required), then what its credential, path, body and limit add.
    const errors: string[] = ['400', '403', '431'];
    if (authenticated || guards.includes(optional)) errors.push('401');
    // A path parameter past the router's length (500 characters) is 414.
    if (schema.params) errors.push('404', '414');
    errors.push(...(schema.errors ?? []));
    if (route.method !== 'GET' && authenticated) errors.push('404', '409');
    // Every method but GET may carry a body, which is read (and refused when too large or not JSON) before the route.
    if (schema.body || route.method !== 'GET') errors.push('413', '415');
    if (limited) errors.push('429');
    for (const status of [...new Set(errors)].sort()) responses[status] ??= { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` };
    responses.default = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    const security = guards.includes(sessionOnly)
      ? [{ bearer: [] }]
      : guards.includes(signedIn) || guards.includes(publisherCaller) || guards.includes(contributorCaller)
        ? [{ bearer: [] }, { apiKeyHeader: [] }]
        : guards.includes(optional)
          ? [{}, { bearer: [] }, { apiKeyHeader: [] }]
          : [];
    return {
      operationId: operationIdOf(String(route.method), route.url, this.opts.prefix),
      ...(schema.tags ? { tags: schema.tags } : {}),
      ...(schema.summary ? { summary: schema.summary } : {}),
      ...(guards.includes(sessionOnly) ? { description: 'Needs a session token; an API key gets 403 session_required.' } : {}),
      ...(parameters.length ? { parameters } : {}),
      // A body of another protocol (the C2SP witness's text) names its media type, as a text answer does.
      ...(schema.body
        ? { requestBody: { required: true, description: bodyLimitWords(route), content: { [String((schema.body as Record<string, unknown>)['x-credence-media'] ?? 'application/json')]: { schema: clean(schema.body) } } } }
        : {}),
      responses,
      ...(security ? { security } : {}),
    };
  }
}

function bodyLimitWords(route: RouteOptions): string {
  // A text body (another protocol's) has its route's own byte limit and no JSON structure to count.
  if ((route.schema?.body as Record<string, unknown> | undefined)?.['x-credence-media'] && route.bodyLimit) {
    return `At most ${route.bodyLimit / 1024} KB of text; more is a 413.`;
  }
  const limits = BODY_LIMITS[(route.config as { body?: BodyClass } | undefined)?.body ?? 'standard'];
  const size = limits.bytes >= 1024 * 1024 ? `${limits.bytes / (1024 * 1024)} MB` : `${limits.bytes / 1024} KB`;
  return `At most ${size}, and ${limits.members.toLocaleString('en')} keys and array items in all, nested at most ${MAX_DEPTH} deep; more is a 413 (a deeper nesting, a 400).`;
}

/** `:id` (and `:id(^\\d+$)`, a parameter the router only matches when it fits) → `{id}`. */
/** `:id` → `{id}`; a wildcard route's rest of the path (`/log/tile/*`) is the path parameter `{path}`, slashes and all. */
export const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, '{$1}').replace(/\*$/, '{path}');

/** `GET /api/v1/account/api-keys/:id` → `getAccountApiKeysById`: stable, unique per document, readable in clients. */
export function operationIdOf(method: string, url: string, prefix: string): string {
  const path = url.startsWith(`${prefix}/`) ? url.slice(prefix.length) : url;
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((seg) => (seg.startsWith(':') ? ['by', seg.slice(1).replace(/\(.*$/, '')] : seg.split(/[^A-Za-z0-9]+/)))
    .filter(Boolean);
  const camel = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return `${method.toLowerCase()}${camel || 'Root'}`;
}

const HEADERS = {
  'X-Request-Id': { description: 'The id of this request; quote it when reporting a problem (the log line has it)', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'The bucket: `"<name>";q=<capacity>;w=<seconds to refill>` (IETF httpapi rate-limit headers)', schema: { type: 'string' } },
  RateLimit: { description: 'What is left: `"<name>";r=<remaining>;t=<seconds to full>`', schema: { type: 'string' } },
  'Retry-After': { description: 'Whole seconds until a request can succeed, at least 1', schema: { type: 'integer', minimum: 1 } },
  ETag: { description: 'The representation’s validator: send it back as `If-None-Match` for a 304 while it holds', schema: { type: 'string' } },
  Vary: { description: 'The request headers the representation depends on (`Accept`, `Accept-Encoding`)', schema: { type: 'string' } },
  'Cache-Control': { description: 'How long a cache may keep the answer', schema: { type: 'string' } },
  'Access-Control-Allow-Origin': {
    description: 'Public reads: `*`, so any site’s scripts read the answer (never with credentials); on their errors too',
    schema: { type: 'string', const: '*' },
  },
  'Access-Control-Expose-Headers': {
    description: 'Public reads: the headers a script may read (`ETag`, `RateLimit`, `Retry-After`, `X-Request-Id`, …)',
    schema: { type: 'string' },
  },
};
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': { $ref: '#/components/headers/Access-Control-Allow-Origin' },
  'Access-Control-Expose-Headers': { $ref: '#/components/headers/Access-Control-Expose-Headers' },
};
const LIMITED_HEADERS = {
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
};

const ERROR_RESPONSES: Record<string, { name: string; description: string }> = {
  '400': { name: 'BadRequest', description: 'The request is invalid: `invalid_request`, `invalid_url` or `missing_parameter`, naming the field' },
  '401': { name: 'Unauthorized', description: 'No valid credential: `unauthorized`, `key_revoked` or `key_expired`' },
  '403': { name: 'Forbidden', description: '`forbidden`, `conflict_of_interest` (work on a page the caller is, or was, named an author of), `page_not_verified`, `session_required`, `publisher_key_scope` (a publisher key outside its publisher’s actions), `account_suspended` (a write by an account a decision on a report suspended), or `https_required` without HTTPS' },
  '404': { name: 'NotFound', description: '`not_found`: nothing by that id, or not the caller’s' },
  '409': { name: 'Conflict', description: '`conflict`, `already_decided`, or `claim_pending` (work on a page where a claim naming the caller, or the contributor, as its author waits for their answer)' },
  '413': { name: 'PayloadTooLarge', description: '`payload_too_large`: the body is larger than the operation takes, or has more keys and items (its request body says how many)' },
  '415': { name: 'UnsupportedMediaType', description: '`invalid_request`: send the body as application/json' },
  '429': { name: 'TooManyRequests', description: '`rate_limited`: wait `Retry-After` seconds' },
  '414': { name: 'UriTooLong', description: '`invalid_request`: a path parameter is over 500 characters' },
  '431': { name: 'HeadersTooLarge', description: '`invalid_request`: the request headers are over 16 KB' },
};

function errorResponses(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(ERROR_RESPONSES)) {
    out[r.name] = {
      description: r.description,
      headers: status === '429' ? { ...LIMITED_HEADERS, 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return out;
}

function paramsOf(schema: Schema | undefined, where: 'path' | 'query'): unknown[] {
  const objects = schema ? ((schema.allOf as Schema[] | undefined) ?? [schema]) : [];
  return objects.flatMap((s) =>
    Object.entries(s.properties ?? {}).map(([name, prop]) => ({
      name: name === '*' ? 'path' : name,
      in: where,
      required: where === 'path' || (s.required ?? []).includes(name),
      ...(prop.description ? { description: prop.description } : {}),
      schema: clean(prop),
    })),
  );
}

/** A plain JSON copy without our private markers. */
function clean(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key.startsWith('x-credence') ? undefined : value)));
}

/**
 * An OpenAPI link (a route schema's `links`, by status): the operation to call next with values of this answer,
 * `$response.body#/data/id` and the like. test/api/openapi.links.test.ts checks each names an operation that exists.
 */
export const link = (operationId: string, description: string, parameters?: Record<string, string>) => ({
  operationId,
  description,
  ...(parameters ? { parameters } : {}),
});

/** A record or contribution as JSON-LD, for a route's `answers` (the shapes are schema.org's and the W3C's). */
export const jsonLdAnswer = (description: string) => ({
  'application/ld+json': { schema: { type: 'object', description, additionalProperties: true } },
});

/** The cached answers of the embeds and embed.js: a validator, and 304 while it holds. */
export const revalidatedAnswers: Answers = {
  200: { headers: ['ETag', 'Cache-Control', 'Vary'] },
  304: { description: 'Not modified: the `ETag` sent as `If-None-Match` still holds; no body', headers: ['ETag', 'Cache-Control'] },
};
