// Finished JSON answers as ASCII-only, one-byte strings.
//
// One character past U+00FF anywhere in a body (a name's accent is fine, a typographic apostrophe is not) makes V8
// keep the whole string two bytes a character, and Node then measures, joins and encodes that string on every send:
// a warm lookup whose answer held one `’` cost 157,700 instructions instead of 117,500 (docs/performance.md). Written
// with every non-ASCII character as a `\u` escape (RFC 8259 §7; any JSON parser reads the same value), the body is a
// one-byte string that Node joins to the head and writes in one pass.

import { isAscii, type Wire } from './wire.js';

const NON_ASCII = /[\u0080-\uffff]/g;
const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `JSON.stringify(value)` in ASCII: every character past U+007F escaped, as a one-byte string. ASCII is its own
 * bytes, so the text is sent as it is (http/wire.ts).
 */
export function asciiJson(value: unknown): Wire {
  const text = JSON.stringify(value);
  // All ASCII already (the common case).
  if (isAscii(text)) return text as Wire;
  // replace() keeps a two-byte subject's representation, though every character left is ASCII; a latin1 round trip
  // makes it one-byte. Once per cached answer, not per request.
  return Buffer.from(text.replace(NON_ASCII, escape), 'latin1').toString('latin1') as Wire;
}

/** JSON that is safe inside an HTML script element and a JavaScript string too: ASCII, and `<` escaped. */
export const scriptSafeJson = (value: unknown): Wire => asciiJson(value).replace(/</g, '\\u003c') as Wire;
