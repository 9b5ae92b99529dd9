// Input validation for every route: TypeBox schemas compiled by Ajv. Bodies are strict (no type coercion,
// unknown fields refused, so a typo is a 400 naming the field); query strings and path params are coerced from
// text and ignore unknown parameters. Batch bodies (SPEC §9) are checked item by item by the service instead.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { EMAIL_PATTERN, USERNAME_PATTERN } from '../domain/accounts/rules.js';
import { CONTENT_HASH_PATTERN } from '../domain/pages/page-text.js';
import { PANEL_ID_PATTERN } from '../domain/panels/panel.schema.js';
import { NON_BLANK_PATTERN } from '../domain/text.js';
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
  // `format: uri` documents a URL field; the domain checks it as SPEC §3 reads a URL (the WHATWG parser, http(s)
  // only) and names the precise problem (`invalid_url`). ajv-formats' RFC 3986 check would refuse addresses the
  // service accepts, such as an IDN host. The length limit (`maxLength`) is the schema's: onlyLongUrls below.
  ajv.addFormat('uri', true);
  return ajv;
}

const strictAjv = makeAjv({ coerce: false });
const lenientAjv = makeAjv({ coerce: true });

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  // Batch items are checked one by one (itemValidator), so one bad item fails alone (SPEC §9).
  if ((schema as Record<string, unknown>)[BATCH_MARK]) return batchShapeValidator;
  return withoutNul(httpPart === 'body' ? strictAjv.compile(schema) : lenientAjv.compile(schema));
};

/**
 * Deeper input than any route accepts is refused before anything walks it: a JSON body by the parser's count
 * (http/bodies.ts), everything else by findUnstorable below.
 */
export const MAX_DEPTH = 32;

type Unstorable = { path: string; why: 'nul' | 'depth' };

/**
 * The first place input cannot be stored or walked: a string (or key) holding a NUL character, which PostgreSQL
 * cannot store in text, or nesting deeper than any route takes. Iterative, so hostile nesting cannot overflow the
 * stack.
 */
export function findUnstorable(root: unknown): Unstorable | null {
  if (root !== null && typeof root === 'object') {
    const flat = findUnstorableFlat(root as Record<string, unknown>);
    if (flat !== undefined) return flat;
  }
  const stack: [unknown, string, number][] = [[root, '', 0]];
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { path: path || '(body)', why: 'nul' };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) return { path: path || '(body)', why: 'depth' };
    for (const [k, v] of Object.entries(value)) {
      const child = path ? `${path}.${k}` : k;
      if (k.includes('\u0000')) return { path: child, why: 'nul' };
      stack.push([v, child, depth + 1]);
    }
  }
  return null;
}

/**
 * findUnstorable's answer for an object holding no object (a query string or path parameters: every request), in one
 * pass with no path built and nothing allocated; undefined when a value is an object, for the full walk. The walk
 * checks every key first, in order, then pops the values last to first: the same problem is named here.
 */
function findUnstorableFlat(obj: Record<string, unknown>): Unstorable | null | undefined {
  let lastNul: string | undefined;
  let nested = false;
  // for-in with an own-property check: Object.keys costs more than the whole check on Fastify's query objects.
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    if (k.includes('\u0000')) return { path: k, why: 'nul' };
    const v = obj[k];
    if (typeof v === 'string') {
      if (v.includes('\u0000')) lastNul = k;
    } else if (v !== null && typeof v === 'object') nested = true;
  }
  if (nested) return undefined;
  return lastNul === undefined ? null : { path: lastNul || '(body)', why: 'nul' };
}

function unstorableError({ path, why }: Unstorable): AppError {
  if (why === 'depth') {
    // Name the field that holds the nesting, not the 32nd level inside it.
    const field = path.split('.')[0] ?? '(body)';
    return new AppError(400, 'invalid_request', `${field}: is nested too deeply`, [{ field, message: `is nested more than ${MAX_DEPTH} levels deep` }]);
  }
  // A URL holding a NUL is simply not a URL (SPEC §3 answers those with invalid_url).
  const code = /(^|\.)url$/.test(path) ? 'invalid_url' : 'invalid_request';
  return new AppError(400, code, `${path}: must not contain NUL characters`, [{ field: path, message: 'must not contain NUL characters' }]);
}

/** Refuse unstorable input before the schema runs; Ajv's errors pass through. */
function withoutNul(validate: ((data: unknown) => unknown) & { errors?: unknown }): FastifyValidator {
  const wrapped: FastifyValidator = (data: unknown) => {
    const bad = findUnstorable(data);
    if (bad !== null) return { error: unstorableError(bad) };
    const result = validate(data);
    wrapped.errors = validate.errors as FastifyValidator['errors'];
    return result as ReturnType<FastifyValidator>;
  };
  return wrapped;
}

type FastifyValidator = ReturnType<FastifySchemaCompiler<TSchema>>;

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

/**
 * The words for each pattern a schema uses on a field people fill in. The schema stays the rule; this says it.
 * A pattern missing here is said as "is not in the accepted form" (never the expression itself).
 */
const PATTERN_WORDS: Record<string, string> = {
  [USERNAME_PATTERN]: 'must be 3–40 lowercase letters, digits or hyphens (not first or last), with at least one letter',
  [EMAIL_PATTERN]: 'must be an email address, such as name@example.com',
  [PANEL_ID_PATTERN]: 'must be 3–100 lowercase letters, digits or hyphens (not first or last), with at least one letter',
  [CONTENT_HASH_PATTERN]: 'must be a SHA-256 hash written as 64 lowercase hexadecimal digits',
  '^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+\\.?$': 'must be a domain name, such as example.com',
  '^(ctb_)?[1-9][0-9]{0,9}$': 'must be a contribution id, such as ctb_12',
  [NON_BLANK_PATTERN]: 'must not be blank',
};

const FORMAT_WORDS: Record<string, string> = {
  'date-time': 'must be a date and time, such as 2026-11-28T09:00:00Z',
  date: 'must be a date, such as 2026-11-28',
  email: 'must be an email address, such as name@example.com',
  uuid: 'must be a UUID',
  uri: 'must be a URL',
};

const TYPE_WORDS: Record<string, string> = {
  string: 'must be text',
  integer: 'must be a whole number',
  number: 'must be a number',
  boolean: 'must be true or false',
  array: 'must be a list',
  object: 'must be an object',
  null: 'must be null',
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * One schema rule in words, the same on every surface (both API envelopes and the pages' forms): each keyword of
 * JSON Schema a route uses, said as a person would. The pages' hints come from here too (ruleHint).
 */
export function ruleWords(keyword: string, params: Record<string, unknown>): string | undefined {
  const limit = Number(params.limit);
  switch (keyword) {
    case 'minLength':
      return limit <= 1 ? 'must not be empty' : `must be at least ${plural(limit, 'character', 'characters')}`;
    case 'maxLength':
      return `must be at most ${plural(limit, 'character', 'characters')}`;
    case 'pattern':
      return PATTERN_WORDS[String(params.pattern)] ?? 'is not in the accepted form';
    case 'format':
      return FORMAT_WORDS[String(params.format)] ?? `must be a valid ${String(params.format)}`;
    case 'type':
      return TYPE_WORDS[String(params.type).split(',')[0] ?? ''] ?? `must be ${String(params.type)}`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'maximum':
      return `must be at most ${limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${limit}`;
    case 'minItems':
      return limit <= 1 ? 'must list at least one item' : `must list at least ${limit} items`;
    case 'maxItems':
      return `must list at most ${plural(limit, 'item', 'items')}`;
    case 'uniqueItems':
      return 'must not list an item twice';
    case 'minProperties':
      return limit <= 1 ? 'must not be empty' : `must give at least ${limit} fields`;
    case 'maxProperties':
      return limit <= 1 ? 'must give one field, not several' : `must give at most ${limit} fields`;
    default:
      return undefined;
  }
}

type FieldSchema = { type?: string; minLength?: number; maxLength?: number; pattern?: string; format?: string; minimum?: number; maximum?: number };

/** A form field's rules, from its schema: the HTML attributes that let the browser help, and the same rules in words. */
export function fieldRules(schema: FieldSchema, required: boolean): { required: boolean; minlength?: number; maxlength?: number; pattern?: string; hint: string } {
  const words: string[] = [];
  // A required field already says it must not be empty; "not blank" adds nothing a person needs told.
  const shape = schema.pattern === NON_BLANK_PATTERN ? undefined : schema.pattern;
  if (shape !== undefined) words.push(ruleWords('pattern', { pattern: shape })!);
  else if (schema.format !== undefined) words.push(ruleWords('format', { format: schema.format })!);
  if (schema.minLength !== undefined && schema.minLength > 1) words.push(ruleWords('minLength', { limit: schema.minLength })!);
  if (schema.maxLength !== undefined && shape === undefined) words.push(ruleWords('maxLength', { limit: schema.maxLength })!);
  const hint = words.map((w) => w.replace(/^must be /, '').replace(/^must /, '')).join('; ');
  return {
    required,
    ...(schema.minLength !== undefined ? { minlength: schema.minLength } : {}),
    ...(schema.maxLength !== undefined ? { maxlength: schema.maxLength } : {}),
    // Browsers compile `pattern` with the `v` flag, where a bare `-` in a class is a syntax error (and the check is
    // dropped): escape it there.
    ...(schema.pattern !== undefined ? { pattern: schema.pattern.replace(/-\]/g, '\\-]') } : {}),
    hint: hint.charAt(0).toUpperCase() + hint.slice(1),
  };
}

/** Ajv's errors as `[{field, message}]`, the field written as a dotted path (`evidence.sources.0`). */
export function toDetails(errors: ErrorObject[] | null | undefined, prefix = ''): ErrorDetail[] {
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  for (const e of errors ?? []) {
    let field = e.instancePath.split('/').filter(Boolean).join('.');
    let message = ruleWords(e.keyword, e.params as Record<string, unknown>) ?? 'is invalid';
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
  // An empty value is also blank: "must not be empty" says it, once.
  const empty = new Set(out.filter((d) => d.message === 'must not be empty').map((d) => d.field));
  return out.filter(
    (d) => (!summarised.has(d.field) || d.message.startsWith('must be one of')) && !(empty.has(d.field) && d.message === 'must not be blank'),
  );
}

function collectAllowed(e: ErrorObject): string | null {
  const schema = e.parentSchema as { enum?: unknown[]; const?: unknown; anyOf?: { const?: unknown }[] } | undefined;
  const values = schema?.enum ?? (schema?.anyOf?.every((s) => 'const' in s) ? schema.anyOf.map((s) => s.const) : undefined);
  return values ? values.map(String).join(', ') : null;
}

/**
 * True when every problem is a `url` field over its length limit: SPEC §3 answers those `invalid_url`, whether the
 * schema (`maxLength`) or the domain's parser finds them.
 */
export function onlyLongUrls(errors: ErrorObject[] | null | undefined): boolean {
  return (
    !!errors?.length &&
    errors.every((e) => /(^|\/)url$/.test(e.instancePath) && e.keyword === 'maxLength')
  );
}

/** A compiled checker for one batch item: returns the item typed, or the per-field problems. */
export function itemValidator<T>(schema: TSchema): (value: unknown) => { ok: true; value: T } | { ok: false; error: AppError } {
  const check: ValidateFunction = strictAjv.compile(schema);
  return (value) => {
    const bad = findUnstorable(value);
    if (bad !== null) return { ok: false, error: unstorableError(bad) };
    if (check(value)) return { ok: true, value: value as T };
    const details = toDetails(check.errors);
    const first = details[0];
    return {
      ok: false,
      error: new AppError(400, onlyLongUrls(check.errors) ? 'invalid_url' : 'invalid_request', first ? `${first.field}: ${first.message}` : 'The item is invalid', details),
    };
  };
}
