// Checking the salted commitments of a log entry against the openings served beside it:
// every object of the entry's JSON that is exactly {"commitment": "<base64>"} stands for a person's fields; the
// opening at its JSON Pointer (RFC 6901) is {opening: base64 of 32 random bytes, value}, and the commitment must be
// base64(HMAC-SHA256(key = opening, message = canonical JSON of value)). An opening that is absent was erased: the
// entry still verifies (its bytes are what the tree holds), and the verifier says so.
import { createHmac } from 'node:crypto';

export interface Opening {
  opening: string;
  value: unknown;
}

export interface CommitmentCheck {
  pointer: string;
  state: 'opened' | 'erased' | 'mismatch';
}

/** Canonical JSON: keys sorted by UTF-16 code unit, no whitespace. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

const escapePointer = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON Pointers and values of every commitment object in an entry. */
export function commitmentsIn(entry: unknown, at = ''): { pointer: string; commitment: string }[] {
  if (entry === null || typeof entry !== 'object') return [];
  const o = entry as Record<string, unknown>;
  const keys = Object.keys(o);
  if (!Array.isArray(o) && keys.length === 1 && keys[0] === 'commitment' && typeof o.commitment === 'string') return [{ pointer: at, commitment: o.commitment }];
  return keys.flatMap((k) => commitmentsIn(o[k], `${at}/${escapePointer(k)}`));
}

export function commitmentOf(opening: Opening): string {
  const key = Buffer.from(opening.opening, 'base64');
  return createHmac('sha256', key).update(Buffer.from(canonicalJson(opening.value), 'utf8')).digest('base64');
}

/** Checks every commitment of an entry's bytes against the openings served beside it. */
export function checkOpenings(entryBytes: Uint8Array, openings: Record<string, Opening> | undefined): CommitmentCheck[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(entryBytes).toString('utf8'));
  } catch {
    return [];
  }
  return commitmentsIn(parsed).map(({ pointer, commitment }) => {
    const o = openings?.[pointer];
    if (!o) return { pointer, state: 'erased' as const };
    const ok = typeof o.opening === 'string' && Buffer.from(o.opening, 'base64').length === 32 && commitmentOf(o) === commitment;
    return { pointer, state: ok ? ('opened' as const) : ('mismatch' as const) };
  });
}
