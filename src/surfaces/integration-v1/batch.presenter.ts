// Per-item results of write calls (SPEC §9): `{index, status, id, url}` or `{index, status: "failed", error}`.
import Type, { type TSchema } from 'typebox';
import type { FastifyReply } from 'fastify';
import { applyEach, type ItemResult, splitBatch, summarise } from '../../domain/batch.js';
import type { DomainError } from '../../domain/errors.js';
import { ItemError } from '../../http/schemas.js';
import type { Static } from 'typebox';
import { ItemStatus, NamingStatus, PageUrl } from '../vocabulary.js';

export const ItemResultData = Type.Object({
  index: Type.Integer(),
  status: ItemStatus,
  id: Type.Optional(Type.Integer()),
  url: Type.Optional(PageUrl),
  error: Type.Optional(ItemError),
  authors: Type.Optional(
    Type.Array(Type.Object({ username: Type.String(), status: NamingStatus }), {
      description: 'Registrations: what naming each author did. A named person is shown in public only once they confirm',
    }),
  ),
});

export const BatchResult = Type.Object({
  results: Type.Array(ItemResultData),
  summary: Type.Object({
    created: Type.Integer(),
    updated: Type.Integer(),
    skipped: Type.Integer(),
    failed: Type.Integer(),
  }),
});

export function presentItemResult(r: ItemResult) {
  return {
    index: r.index,
    status: r.status,
    ...(typeof r.id === 'number' ? { id: r.id } : {}),
    ...(typeof r.url === 'string' ? { url: r.url } : {}),
    ...(r.error ? { error: r.error.toBody() } : {}),
    ...(r.authors ? { authors: r.authors as { username: string; status: Static<typeof NamingStatus> }[] } : {}),
  };
}

export const singleResultStatus = (r: ItemResult) => (r.status === 'created' ? 201 : 200);

/**
 * Answer a write call: one object gets its single result (or its error, as an ordinary error response), an array
 * gets every item's result and the summary (SPEC §9).
 */
export function sendBatch<R, T>(
  reply: R,
  single: boolean,
  results: ItemResult[],
  present: (r: ItemResult) => T,
  statusOf: (r: ItemResult) => number = singleResultStatus,
): R {
  const r = reply as unknown as FastifyReply;
  if (single) {
    const first = results[0]!;
    if (first.error) throw first.error;
    return r.status(statusOf(first)).send({ success: true, data: present(first) }) as unknown as R;
  }
  return r.status(200).send({ success: true, data: { results: results.map(present), summary: summarise(results) } }) as unknown as R;
}

/**
 * The batch answer of a write whose created objects carry a secret shown once (keys, webhooks): each item's result,
 * and under `field` the object made, secret included, as the single-object answer gives it.
 */
export function BatchWithCreated(field: string, created: TSchema) {
  return Type.Object({
    results: Type.Array(Type.Object({ ...ItemResultData.properties, [field]: Type.Optional(created) })),
    summary: BatchResult.properties.summary,
  });
}

/** Apply `create` to each valid item; a failed item carries its error; the made object is answered under `field`. */
export async function createEach<T, C extends { id: number }>(
  reply: FastifyReply,
  body: unknown,
  validate: (v: unknown) => { ok: true; value: T } | { ok: false; error: DomainError },
  field: string,
  create: (value: T) => Promise<C>,
): Promise<FastifyReply> {
  const { single, items } = splitBatch(body, validate);
  const made = new Map<number, C>();
  const results = await applyEach(items, async (value, index) => {
    const c = await create(value);
    made.set(index, c);
    return { status: 'created', id: c.id };
  });
  if (single) {
    const first = results[0]!;
    if (first.error) throw first.error;
    return reply.status(201).send({ success: true, data: made.get(0) });
  }
  return reply.status(200).send({
    success: true,
    data: { results: results.map((r) => ({ ...presentItemResult(r), ...(made.has(r.index) ? { [field]: made.get(r.index) } : {}) })), summary: summarise(results) },
  });
}
