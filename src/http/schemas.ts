// Schema pieces every surface uses: envelopes, pagination, nullable values.
import type { FastifyReply } from 'fastify';
import Type, { type TSchema } from 'typebox';
import { BATCH_MARK, MAX_BATCH } from './validation.js';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

import { ERROR_CODES } from '../domain/errors.js';
import { StringEnum } from '../domain/typebox.js';

export { StringEnum };

/** SPEC §6's codes (and 503's `service_unavailable`): what a program branches on. */
export const ErrorCode = StringEnum(ERROR_CODES, { description: 'SPEC §6; stable, for programs' });

export const ErrorBody = Type.Object({
  code: ErrorCode,
  message: Type.String(),
  details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
});

/** /api/v1: `{success: true, data}`. */
export const Ok = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

export const Meta = Type.Object({ total: Type.Integer(), page: Type.Integer(), per_page: Type.Integer() });

/** Lists (SPEC §8): `{data: [...], meta}`, with `success` on /api/v1. */
export const ApiList = <T extends TSchema>(item: T) =>
  Type.Object({ success: Type.Literal(true), data: Type.Array(item), meta: Meta });
export const V1List = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), meta: Meta });

/** Lists paged by position (`?after=` the last page's `meta.next_cursor`): steady while items are added. */
export const CursorQuery = Type.Object({
  after: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'The `meta.next_cursor` of the page before; leave out for the first page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items on this page' })),
});
export const CursorMeta = Type.Object({
  limit: Type.Integer(),
  has_more: Type.Boolean(),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page; null on the last page' }),
});
export const ApiCursorList = <T extends TSchema>(item: T) =>
  Type.Object({ success: Type.Literal(true), data: Type.Array(item), meta: CursorMeta });

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  // Values above 100 are capped, not refused (SPEC §8).
  per_page: Type.Optional(Type.Integer({ minimum: 1, default: 20 })),
});

export function pagination(q: { page?: number; per_page?: number }) {
  return { page: q.page ?? 1, perPage: Math.min(q.per_page ?? 20, 100) };
}

export const IdParam = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });

/** One item or an array of at most 500; items are validated one by one by the route (SPEC §9). */
export function Batch<T extends TSchema>(item: T) {
  const schema = Type.Union([item, Type.Array(item, { minItems: 1, maxItems: MAX_BATCH })]);
  return Object.assign(schema, { [BATCH_MARK]: true });
}

export const ItemError = Type.Object({ code: ErrorCode, message: Type.String(), details: Type.Optional(ErrorBody.properties.details) });

/**
 * Send JSON a route already serialised (a cached answer). The route's response schema still documents it; the
 * presenter that built it maps field by field, so nothing undeclared can be in it. Typed loosely because the
 * route's reply type expects the object form.
 */
export function sendSerialised<R>(reply: R, body: string): R {
  const r = reply as unknown as FastifyReply;
  return r.type('application/json; charset=utf-8').send(body) as unknown as R;
}

/** `format` of a record read: `json` (the default) or `jsonld` (schema.org JSON-LD, as `Accept: application/ld+json` asks). */
export const RecordFormat = StringEnum(['json', 'jsonld'] as const, {
  description: '`jsonld`: the record as schema.org JSON-LD (`application/ld+json`), as `Accept: application/ld+json` also asks',
});

/** Send a body already serialised in another media type (JSON-LD), past the route's JSON response schema. */
export function sendAs<R>(reply: R, contentType: string, body: string): R {
  const r = reply as unknown as FastifyReply;
  return r.type(contentType).send(body) as unknown as R;
}
