// Input validation for every route: TypeBox schemas compiled by Ajv. Bodies are strict (no type coercion,
// unknown fields refused, so a typo is a 400 naming the field); query strings and path params are coerced from
// text and ignore unknown parameters. Batch bodies (SPEC §9) are checked item by item by the service instead.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { AppError, type ErrorDetail } from './errors.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

export const MAX_BATCH = 500;
/** Marks a body schema that takes one item or an array of them; the route's service validates each item. */
export const BATCH_MARK = 'x-credence-batch';

function makeAjv(opts: { coerce: boolean }): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: opts.coerce ? 'array' : false,
    useDefaults: true,
    // Unknown query parameters are ignored (cache busters, tracking), unknown body fields refused by the schema.
    removeAdditional: false,
    strict: false,
    // parentSchema in errors lets a message list the allowed values of an enum.
    verbose: true,
  });
  addFormats(ajv);
  return ajv;
}

const strictAjv = makeAjv({ coerce: false });
const lenientAjv = makeAjv({ coerce: true });

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  if ((schema as Record<string, unknown>)[BATCH_MARK]) return batchShapeValidator;
  return httpPart === 'body' ? strictAjv.compile(schema) : lenientAjv.compile(schema);
};

function batchShapeValidator(body: unknown) {
  if (Array.isArray(body)) {
    if (body.length === 0) return { error: new AppError(400, 'invalid_request', 'The array is empty; send at least one item') };
    if (body.length > MAX_BATCH)
      return {
        error: new AppError(400, 'invalid_request', `At most ${MAX_BATCH} items per call; this call has ${body.length}`, [
          { field: '(body)', message: `must have at most ${MAX_BATCH} items` },
        ]),
      };
    return { value: body };
  }
  if (body !== null && typeof body === 'object') return { value: body };
  return { error: new AppError(400, 'invalid_request', 'The body must be a JSON object or an array of objects') };
}

/** Ajv's errors as `[{field, message}]`, the field written as a dotted path (`evidence.sources.0`). */
export function toDetails(errors: ErrorObject[] | null | undefined, prefix = ''): ErrorDetail[] {
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  for (const e of errors ?? []) {
    let field = e.instancePath.split('/').filter(Boolean).join('.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      field = [field, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.');
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      field = [field, (e.params as { additionalProperty: string }).additionalProperty].filter(Boolean).join('.');
      message = 'is not a known field';
    } else if (e.keyword === 'enum' || e.keyword === 'const' || e.keyword === 'anyOf') {
      const allowed = collectAllowed(e);
      if (allowed) message = `must be one of: ${allowed}`;
    }
    field = [prefix, field].filter(Boolean).join('.') || '(body)';
    const key = `${field}:${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ field, message });
    }
  }
  // anyOf over literals reports every branch; keep only the summary line per field.
  const summarised = new Set(out.filter((d) => d.message.startsWith('must be one of')).map((d) => d.field));
  return out.filter((d) => !summarised.has(d.field) || d.message.startsWith('must be one of'));
}

function collectAllowed(e: ErrorObject): string | null {
  const schema = e.parentSchema as { enum?: unknown[]; const?: unknown; anyOf?: { const?: unknown }[] } | undefined;
  const values = schema?.enum ?? (schema?.anyOf?.every((s) => 'const' in s) ? schema.anyOf.map((s) => s.const) : undefined);
  return values ? values.map(String).join(', ') : null;
}

/** A compiled checker for one batch item: returns the item typed, or the per-field problems. */
export function itemValidator<T>(schema: TSchema): (value: unknown) => { ok: true; value: T } | { ok: false; error: AppError } {
  const check: ValidateFunction = strictAjv.compile(schema);
  return (value) => {
    if (check(value)) return { ok: true, value: value as T };
    const details = toDetails(check.errors);
    const first = details[0];
    return {
      ok: false,
      error: new AppError(400, 'invalid_request', first ? `${first.field}: ${first.message}` : 'The item is invalid', details),
    };
  };
}
