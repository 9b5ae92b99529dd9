// TypeBox helpers the domain's own schemas use (panel statements); http/schemas.ts re-exports them for routes.
import Type from 'typebox';

/** A plain `{type: string, enum}` (TypeBox's union of literals reads worse in the OpenAPI documents). */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
