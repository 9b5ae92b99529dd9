// An entry as public reads serve it once text in it was withheld by a decision. Text held as a commitment needs
// nothing here: its opening is simply not served. Text held in clear (entries written before commitments) is
// replaced, at its JSON Pointer, by `{"withheld": <decision id>}`; the served bytes then no longer hash to the
// entry's leaf, so every read that serves them says so and serves the leaf hash beside them (the stored tree's, as
// the hash tiles hold it). docs/decisions/free-text-in-the-log.md.
import { canonicalJson } from '../../db/canonical-json.js';

/** What was withheld in an entry: the JSON Pointer of each field, and the decision that withheld it. */
export type Withheld = Map<string, number>;

/** `body` with the value at each withheld pointer replaced by `{"withheld": decision}`, still canonical JSON. */
export function withheldBody(body: string, withheld: Withheld): string {
  if (withheld.size === 0) return body;
  const doc = JSON.parse(body) as Record<string, unknown>;
  let changed = false;
  for (const [pointer, decision] of withheld) {
    const keys = pointer
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop();
    let node: unknown = doc;
    for (const k of keys) node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[k] : undefined;
    if (last === undefined || node === null || typeof node !== 'object' || typeof (node as Record<string, unknown>)[last] !== 'string') continue;
    (node as Record<string, unknown>)[last] = { withheld: decision };
    changed = true;
  }
  return changed ? canonicalJson(doc) : body;
}
