// Request bodies: what each route may be sent, and parsing whose cost grows linearly with the body.
// A route declares its size class in its config (`body: 'small' | 'large'`; a batch route is large, any other
// standard); the class sets both Fastify's byte limit for the route and a cap on the members of its body (JSON keys
// and array items, form fields), checked by one pass over the text before anything builds objects from it. Without
// the cap, 300,000 keys in 3.5 MB cost Ajv 300,000 errors, and repeated form fields cost more than the square of
// their number.
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest, preParsingHookHandler, RouteOptions } from 'fastify';
import { AppError } from './errors.js';
import { type BodyClass, routeConfig } from './route-config.js';
import { BATCH_MARK, MAX_DEPTH } from './validation.js';

export { MAX_DEPTH };
export type { BodyClass };

export interface BodyLimits {
  /** Bytes, as sent (Fastify's `bodyLimit`: answered 413 from Content-Length before reading, or as it arrives). */
  bytes: number;
  /** JSON: keys and array items, at every depth, counted together. Forms: fields. */
  members: number;
}

export const BODY_LIMITS: Record<BodyClass, BodyLimits> = {
  // Sign-in and sign-up: read before anyone is known, so they take what a sign-in needs and no more.
  small: { bytes: 16 * 1024, members: 50 },
  // Every other route: its largest field (a correction's before and after, 20,000 characters each, escaped) fits.
  standard: { bytes: 256 * 1024, members: 2_000 },
  // Batch calls (SPEC §9): 500 pages with their text, 500 submissions with their evidence; 5 MB in all.
  large: { bytes: 5 * 1024 * 1024, members: 25_000 },
};

const sizeOf = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MB` : `${bytes / 1024} KB`);

export function bodyLimitsOf(req: FastifyRequest): BodyLimits {
  return BODY_LIMITS[routeConfig(req).body ?? 'standard'];
}

/** The 413's words for this route: its own limit, not the largest any route takes. */
export function tooLarge(req: FastifyRequest): AppError {
  return new AppError(413, 'payload_too_large', `The body is larger than this route takes (${sizeOf(bodyLimitsOf(req).bytes)})`);
}

/**
 * Sets each route's byte limit from its body class (an onRoute hook: read once, when the route is added), and on
 * routes that take a body, reads through one that says it is too large before answering 413. A route that takes a
 * batch (SPEC §9: up to 500 items) is `large` unless it says otherwise.
 */
export function applyBodyClass(route: RouteOptions): void {
  const config = (route.config ?? {}) as { body?: BodyClass };
  const batch = Boolean((route.schema?.body as Record<string, unknown> | undefined)?.[BATCH_MARK]);
  const body = config.body ?? (batch ? 'large' : 'standard');
  route.config = { ...config, body };
  route.bodyLimit ??= BODY_LIMITS[body].bytes;
  if (([] as string[]).concat(route.method).some((m) => m !== 'GET' && m !== 'HEAD' && m !== 'OPTIONS')) {
    route.preParsing = [readThroughOversize, ...([] as preParsingHookHandler[]).concat(route.preParsing ?? [])];
  }
}

/** Past this, a body is not read through: the 413 goes out at once and the connection is closed. */
const READ_THROUGH_MAX = 2 * BODY_LIMITS.large.bytes;

/**
 * A body whose Content-Length is over the route's limit is read and thrown away, then answered 413. Answered at
 * once instead, the connection would be closed with the client still sending, and a socket closed with unread
 * bytes in it is reset: a client that writes its whole body before reading would see a reset, not the 413.
 */
const readThroughOversize: preParsingHookHandler = (req, _reply, payload, done) => {
  const length = Number(req.headers['content-length']);
  if (!(length > req.routeOptions.bodyLimit) || length > READ_THROUGH_MAX) {
    done(null, payload);
    return;
  }
  payload.on('error', (err) => done(err));
  payload.on('end', () => done(tooLarge(req)));
  payload.resume();
};

const tooMany = (limit: number, what: string) =>
  new AppError(413, 'payload_too_large', `The body has more ${what} than this route takes (at most ${limit})`, [
    { field: '(body)', message: `must have at most ${limit} ${what}` },
  ]);

const tooDeep = (field: string) =>
  new AppError(400, 'invalid_request', `${field}: is nested too deeply`, [{ field, message: `is nested more than ${MAX_DEPTH} levels deep` }]);

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * One pass over JSON text, strings skipped, counting members (a key and its value, or an array item) and nesting.
 * Returns the first limit crossed, or null; a nesting too deep is named by the top-level field that holds it (its
 * key, or its index in a batch). It does not check the syntax: JSON.parse does, after it.
 */
export function scanJson(text: string, maxMembers: number): AppError | null {
  let depth = 0;
  let members = 0;
  // The top-level field being read: the last key of the body object (as its quoted text), or the batch index.
  let keyStart = -1;
  let keyEnd = -1;
  let index = 0;
  let rootIsArray = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const start = i;
      i = stringEnd(text, i);
      if (depth === 1 && !rootIsArray) {
        let j = i + 1;
        while (j < n && isSpace(text.charCodeAt(j))) j++;
        if (text.charCodeAt(j) === 58 /* : */) {
          keyStart = start;
          keyEnd = i;
        }
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (depth === 0) rootIsArray = c === 91;
      if (++depth > MAX_DEPTH) return tooDeep(fieldAt(text, rootIsArray, index, keyStart, keyEnd));
      // An empty container has no member; a non-empty one has one more than it has commas.
      let j = i + 1;
      while (j < n && isSpace(text.charCodeAt(j))) j++;
      const next = text.charCodeAt(j);
      if (next !== 125 && next !== 93 && ++members > maxMembers) return tooMany(maxMembers, 'keys and items');
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    } else if (c === 44 /* , */ && depth > 0) {
      if (depth === 1) index++;
      if (++members > maxMembers) return tooMany(maxMembers, 'keys and items');
    }
  }
  return null;
}

/**
 * The index of the quote that closes the string opening at `open` (or the text's length): the next quote not
 * escaped, found with indexOf (a page's text is most of a large body; a loop over its characters cost more than
 * JSON.parse itself).
 */
function stringEnd(text: string, open: number): number {
  let q = open;
  for (;;) {
    q = text.indexOf('"', q + 1);
    if (q === -1) return text.length;
    // Escaped when an odd number of backslashes stands right before it.
    let b = q - 1;
    while (b > open && text.charCodeAt(b) === 92) b--;
    if ((q - 1 - b) % 2 === 0) return q;
  }
}

function fieldAt(text: string, rootIsArray: boolean, index: number, keyStart: number, keyEnd: number): string {
  if (rootIsArray) return String(index);
  if (keyStart < 0) return '(body)';
  try {
    return String(JSON.parse(text.slice(keyStart, keyEnd + 1)));
  } catch {
    return '(body)';
  }
}

/**
 * Form fields (application/x-www-form-urlencoded) in one linear pass: at most `maxFields`, counted before any is
 * decoded; a repeated field becomes an array (pushed to, never copied).
 */
export function parseForm(text: string, maxFields: number): Record<string, string | string[]> | AppError {
  let fields = text.length === 0 ? 0 : 1;
  for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i + 1)) {
    if (++fields > maxFields) return tooMany(maxFields, 'fields');
  }
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [k, v] of new URLSearchParams(text)) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else if (Array.isArray(prev)) prev.push(v);
    else out[k] = [prev, v];
  }
  return out;
}

/**
 * A body's text, decoded chunk by chunk as it arrives, under the route's byte limit. Fastify's own reader keeps the
 * chunks and decodes them in one call at the end: for a 5 MB batch that call, with the copy before it, held the event
 * loop 100 ms, every other request (and /livez) waiting; decoded as they come, each chunk costs a fraction of a
 * millisecond. A character split across chunks is kept whole by the decoder.
 */
export function readBodyText(req: FastifyRequest, payload: Readable): Promise<string> {
  const limit = req.routeOptions.bodyLimit ?? BODY_LIMITS.standard.bytes;
  const declared = Number(req.headers['content-length']);
  return new Promise((resolve, reject) => {
    if (declared > limit) {
      reject(tooLarge(req));
      return;
    }
    const decoder = new StringDecoder('utf8');
    const parts: string[] = [];
    let received = 0;
    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      // A preParsing stream that inflates reports what it was sent, which must fit too.
      const encoded = (payload as Readable & { receivedEncodedLength?: number }).receivedEncodedLength ?? 0;
      if (received > limit || encoded > limit) {
        stop();
        reject(tooLarge(req));
        return;
      }
      parts.push(decoder.write(bytes));
    };
    const onEnd = () => {
      stop();
      const encoded = (payload as Readable & { receivedEncodedLength?: number }).receivedEncodedLength;
      if (!Number.isNaN(declared) && (encoded || received) !== declared) {
        reject(new AppError(400, 'invalid_request', 'The body did not arrive in full: its length is not its Content-Length'));
        return;
      }
      parts.push(decoder.end());
      resolve(parts.join(''));
    };
    // The client went away mid-body: a 400 (the error handler says so), never the database's 503.
    const onError = (err: Error & { statusCode?: number }) => {
      stop();
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
      reject(err);
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  });
}

/**
 * JSON bodies: read as they arrive (readBodyText), the member and depth scan, then Fastify's own parser (which
 * refuses `__proto__` and `constructor` keys), so nothing large or deep is ever built into objects.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', (req, payload, done) => {
    readBodyText(req, payload).then(
      (body) => {
        const problem = scanJson(body, bodyLimitsOf(req).members);
        if (problem) {
          done(problem, undefined);
          return;
        }
        // Scanning and parsing a large body are each a pass over all of it: a turn of the event loop between them.
        if (body.length > BODY_LIMITS.standard.bytes) setImmediate(() => void parse(req, body, done));
        else void parse(req, body, done);
      },
      (err: Error) => done(err, undefined),
    );
  });
}

/** Forms: the field cap, then the linear parse. */
export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (req, body, done) => {
    const parsed = parseForm(body as string, bodyLimitsOf(req).members);
    if (parsed instanceof AppError) done(parsed, undefined);
    else done(null, parsed);
  });
}
