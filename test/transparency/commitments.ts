// An independent reader of committed entries, written from docs/transparency.md, not from the project's
// code: canonical JSON and HMAC-SHA256 with Node's own crypto. A commitment is base64(HMAC-SHA256(key = the opening's
// bytes, message = the UTF-8 canonical JSON of the value)).
import { createHmac } from 'node:crypto';

export interface OpeningJson {
  opening: string;
  /** A person slot's fields, or one field of free text (a string). */
  value: unknown;
}

const canonical = (v: unknown): string => {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
};

export const commitmentOf = (opening: string, value: unknown): string =>
  createHmac('sha256', Buffer.from(opening, 'base64')).update(canonical(value), 'utf8').digest('base64');

const at = (body: Record<string, unknown>, pointer: string): Record<string, unknown> => {
  let node: unknown = body;
  for (const part of pointer.split('/').slice(1)) node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node as Record<string, unknown>;
};

/**
 * The entry's body with each opened commitment replaced by its value, after checking that every opening matches
 * its commitment (a mismatch throws). Commitments without an opening (an erased person, withheld text) stay as they
 * are. An opened value may hold commitments of its own (a person slot's name), opened at deeper pointers: shallower
 * pointers are opened first.
 */
export function openBody(body: string, openings: Record<string, OpeningJson>): Record<string, unknown> {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  const depth = (p: string) => p.split('/').length;
  for (const [pointer, { opening, value: v }] of Object.entries(openings).sort(([a], [b]) => depth(a) - depth(b))) {
    const value = structuredClone(v);
    const committed = at(parsed, pointer);
    if (!committed || commitmentOf(opening, value) !== committed.commitment) throw new Error(`the opening of ${pointer} does not match its commitment`);
    const parts = pointer.split('/').slice(1);
    const parent = parts.length === 1 ? parsed : at(parsed, `/${parts.slice(0, -1).join('/')}`);
    parent[parts.at(-1)!] = value;
  }
  return parsed;
}
