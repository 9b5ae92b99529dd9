// Salted commitments to the personal fields of a change-log entry, as the IETF Key Transparency design
// commits to personal data: the entry's bytes hold `{"commitment": base64(HMAC-SHA256(opening, canonical JSON of the
// value))}`, and the opening (32 random bytes) and the value are kept beside the entry, never inside it. Deleting the
// opening forgets the value for good while every leaf hash, and so every proof, stays as it was; a random key per
// commitment means nobody can test a guess of the value against it. docs/transparency.md, "Entries".
import { createHmac, randomBytes } from 'node:crypto';
import { canonicalJson } from '../../db/canonical-json.js';

/** An opening as served beside its entry: the key and the value it opens. */
export interface Opening {
  opening: string;
  /** A person slot's fields (an object), or one field of free text (a string). */
  value: unknown;
}

/** The commitment of `value` under `opening` (base64 of the 32-byte key), base64. */
export const commitmentOf = (opening: string, value: unknown): string =>
  createHmac('sha256', Buffer.from(opening, 'base64')).update(canonicalJson(value)).digest('base64');

/** A fresh opening for `value` and its commitment. */
export function commit(value: unknown): { commitment: string; opening: string } {
  const opening = randomBytes(32).toString('base64');
  return { commitment: commitmentOf(opening, value), opening };
}
