// Per-item results of write calls (SPEC §9): `{index, status, id, url}` or `{index, status: "failed", error}`.
import Type from 'typebox';
import type { FastifyReply } from 'fastify';
import { type ItemResult, summarise } from '../../domain/batch.js';
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
