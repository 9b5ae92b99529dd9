// Per-item results of write calls (SPEC §9): `{index, status, id, url}` or `{index, status: "failed", error}`.
import Type from 'typebox';
import type { ItemResult } from '../../domain/batch.js';
import { ItemError } from '../../http/schemas.js';

export const ItemResultData = Type.Object({
  index: Type.Integer(),
  status: Type.String({ description: '`created`, `updated`, `skipped` or `failed`' }),
  id: Type.Optional(Type.Integer()),
  url: Type.Optional(Type.String()),
  error: Type.Optional(ItemError),
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
  };
}

export const singleResultStatus = (r: ItemResult) => (r.status === 'created' ? 201 : 200);
