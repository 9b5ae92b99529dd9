// Checking the salted commitments of a log entry against the openings served beside it:
// every object of the entry's JSON that is exactly {"commitment": "<base64>"} stands for a person's fields; the
// opening at its JSON Pointer (RFC 6901) is {opening: base64 of 32 random bytes, value}, and the commitment must be
// base64(HMAC-SHA256(key = opening, message = canonical JSON of value)). An opening that is absent was erased, or
// withheld by a decision (the log then names the decision beside the entry): the entry still verifies (its bytes are
// what the tree holds), and the verifier says which.
import { createHmac } from 'node:crypto';

export interface Opening {
  opening: string;
  value: unknown;
}

export interface CommitmentCheck {
  pointer: string;
  /** `withheld`: a decision withheld the text (the log serves `withheld` beside the entry, naming it); `erased`: gone. */
  state: 'opened' | 'erased' | 'withheld' | 'mismatch';
  /** For `withheld`: the decision the log names beside the entry. */
  decision?: number;
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

/**
 * Checks every commitment of an entry's bytes against the openings served beside it. An opened value may hold
 * commitments of its own (a person slot's name and summary), opened at the pointers below it: those are checked too.
 * A commitment without an opening is withheld when the log names a decision for its pointer, else erased.
 */
export function checkOpenings(entryBytes: Uint8Array, openings: Record<string, Opening> | undefined, withheld: Record<string, number> = {}): CommitmentCheck[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(entryBytes).toString('utf8'));
  } catch {
    return [];
  }
  const out: CommitmentCheck[] = [];
  const check = (found: { pointer: string; commitment: string }[]) => {
    for (const { pointer, commitment } of found) {
      const o = openings?.[pointer];
      if (!o) {
        const decision = withheld[pointer];
        out.push(decision === undefined ? { pointer, state: 'erased' } : { pointer, state: 'withheld', decision });
        continue;
      }
      const ok = typeof o.opening === 'string' && Buffer.from(o.opening, 'base64').length === 32 && commitmentOf(o) === commitment;
      out.push({ pointer, state: ok ? 'opened' : 'mismatch' });
      if (ok) check(commitmentsIn(o.value, pointer));
    }
  };
  check(commitmentsIn(parsed));
  return out;
}

/** The JSON Pointers of clear text a decision took out of a served entry: values exactly `{"withheld": <decision id>}`. */
export function withheldMarkersIn(entry: unknown, at = ''): { pointer: string; decision: number }[] {
  if (entry === null || typeof entry !== 'object') return [];
  const o = entry as Record<string, unknown>;
  const keys = Object.keys(o);
  if (!Array.isArray(o) && keys.length === 1 && keys[0] === 'withheld' && typeof o.withheld === 'number') return [{ pointer: at, decision: o.withheld }];
  return keys.flatMap((k) => withheldMarkersIn(o[k], `${at}/${escapePointer(k)}`));
}
