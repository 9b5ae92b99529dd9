// Where a stored payload names a person, and how that naming is taken back. The same rule serves writing (which
// accounts a payload names, kept as rows beside it: mentions.store.ts) and erasing (what in those payloads stands
// for the person). Only these slots name people; nothing else in a payload (a title, a URL, a summary) is ever
// compared with a person's strings, so another person's or publication's text is never rewritten.
import { FORMER_CONTRIBUTOR } from '../accounts/rules.js';

/**
 * Keys whose string value is a username: an event's `contributor` (the /v1 shape) and a request's `taken_by`, a
 * mail fact's `username` (who took a request) and `inviter`. An object with a `username` is a person: its `name`
 * is theirs too.
 */
const USERNAME_KEYS = new Set(['contributor', 'taken_by', 'inviter', 'username']);

/** Every username a payload names, in its person slots. */
export function namedUsernames(value: unknown): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, key: string) => {
    if (typeof v === 'string') {
      if (USERNAME_KEYS.has(key) && v !== FORMER_CONTRIBUTOR.username) out.add(v);
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, '');
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, k);
    }
  };
  walk(value, '');
  return [...out];
}

export interface Person {
  username: string;
  name: string;
}

/**
 * The payload with `person` replaced by the former contributor in its person slots: a username slot equal to their
 * username, and the `name` beside it. Everything else is returned as it was, byte for byte once serialised.
 */
export function redactPerson(value: unknown, person: Person): unknown {
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === 'string') return USERNAME_KEYS.has(key) && v === person.username ? FORMER_CONTRIBUTOR.username : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, ''));
    if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      const isPerson = entries.some(([k, x]) => k === 'username' && x === person.username);
      return Object.fromEntries(entries.map(([k, x]) => [k, isPerson && k === 'name' && typeof x === 'string' ? FORMER_CONTRIBUTOR.name : walk(x, k)]));
    }
    return v;
  };
  return walk(value, '');
}
