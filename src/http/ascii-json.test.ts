import { describe, expect, it } from 'vitest';
import { asciiJson, scriptSafeJson } from './ascii-json.js';

/** Nothing past U+007F. */
const ASCII = /^[^\u0080-\uffff]*$/;

describe('ASCII JSON', () => {
  it('is JSON.stringify itself when the value is all ASCII', () => {
    const value = { success: true, data: { title: 'Measles cases rise', n: 3, list: ['a', null] } };
    expect(asciiJson(value)).toBe(JSON.stringify(value));
  });

  it('escapes every character past U+007F and reads back as the same value', () => {
    const value = { name: 'Tomás Ferreira', quote: 'the board’s report', mark: '✓', emoji: 'ok 😀', sep: 'a\u2028b\u2029c', nul: 'x\u0000y', lone: '\ud800' };
    const text = asciiJson(value);
    expect(text).toMatch(ASCII);
    expect(text).toContain('Tom\\u00e1s');
    expect(text).toContain('\\ud83d\\ude00'); // a pair of escaped surrogates (RFC 8259 §7)
    expect(JSON.parse(text)).toEqual(value);
  });

  it('is safe inside a script element: ASCII, and no `<` to end it', () => {
    const value = { html: '</script><script>alert(1)</script> <!-- — ', sep: '\u2028' };
    const text = scriptSafeJson(value);
    expect(text).toMatch(ASCII);
    expect(text).not.toContain('<');
    expect(JSON.parse(text)).toEqual(value);
  });
});
