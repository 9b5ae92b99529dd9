// The person-slot rule, property-based: redaction changes nothing in a payload that does not name the person in a
// slot, whatever words it holds (the person's own strings included, anywhere else); where it does name them, only
// those slots change.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { namedUsernames, redactPerson } from './mentions.js';

const person = { username: 'westbrook', name: 'Westbrook' };
const words = fc.constantFrom('westbrook', 'Westbrook', 'https', 'a', 'Measles', 'The battery plant in Westbrook', 'https://westbrook.example/x', '');
const text = fc.oneof(words, fc.string());
const keys = fc.constantFrom('title', 'url', 'summary', 'topic', 'note', 'name', 'reason', 'sources');
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.constant(null), fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(keys, tie('value'), { maxKeys: 5 })),
})).value;

describe('person slots', () => {
  it('leaves a payload with no slot naming the person byte for byte', () => {
    fc.assert(
      fc.property(json, (v) => {
        expect(JSON.stringify(redactPerson(v, person))).toBe(JSON.stringify(v));
        expect(namedUsernames(v)).toEqual([]);
      }),
      { seed: 20261128, numRuns: 500 },
    );
  });

  it('replaces the person in their slots and nothing beside them', () => {
    fc.assert(
      fc.property(json, json, (page, other) => {
        const payload = { contributor: { username: 'westbrook', name: 'Westbrook' }, request: { taken_by: 'westbrook' }, page, other };
        const out = redactPerson(payload, person) as typeof payload;
        expect(out).toEqual({ contributor: { username: 'former-contributor', name: 'A former contributor' }, request: { taken_by: 'former-contributor' }, page, other });
        expect(namedUsernames(payload)).toEqual(['westbrook']);
      }),
      { seed: 20261128, numRuns: 300 },
    );
  });

  it('does not touch another person who shares a word', () => {
    const other = { contributor: { username: 'bea-westbrook', name: 'Westbrook' }, taken_by: 'westbrooks' };
    expect(redactPerson(other, person)).toEqual(other);
    expect(namedUsernames({ contributor: 'ada', inviter: 'bob', fact: [{ username: 'cy' }], title: 'dee' })).toEqual(['ada', 'bob', 'cy']);
  });
});
