import { describe, expect, it } from 'vitest';
import { renderDiff, tokenize, wordDiff } from './diff.js';

/** Both sides rebuilt from the parts: nothing is lost or invented. */
const sides = (before: string, after: string) => {
  const parts = wordDiff(before, after);
  return {
    before: parts.filter((p) => p.op !== 'ins').map((p) => p.text).join(''),
    after: parts.filter((p) => p.op !== 'del').map((p) => p.text).join(''),
  };
};

describe('wordDiff', () => {
  it('marks the changed word only', () => {
    expect(wordDiff('Founded in 1887 in Paris.', 'Founded in 1889 in Paris.')).toEqual([
      { op: 'same', text: 'Founded in ' },
      { op: 'del', text: '1887' },
      { op: 'ins', text: '1889' },
      { op: 'same', text: ' in Paris.' },
    ]);
  });

  it('joins neighbouring changed words into phrases', () => {
    expect(wordDiff('the quick brown fox', 'a slow brown fox')).toEqual([
      { op: 'del', text: 'the quick' },
      { op: 'ins', text: 'a slow' },
      { op: 'same', text: ' brown fox' },
    ]);
  });

  it('shows pure additions and removals', () => {
    expect(wordDiff('', 'new text')).toEqual([{ op: 'ins', text: 'new text' }]);
    expect(wordDiff('old text', '')).toEqual([{ op: 'del', text: 'old text' }]);
    expect(wordDiff('same', 'same')).toEqual([{ op: 'same', text: 'same' }]);
    expect(wordDiff('', '')).toEqual([]);
    expect(wordDiff('a c', 'a b c')).toEqual([
      { op: 'same', text: 'a ' },
      { op: 'ins', text: 'b ' },
      { op: 'same', text: 'c' },
    ]);
  });

  it('joins changes separated by punctuation only, and keeps words that match', () => {
    expect(wordDiff('approved in 2019, after two trials.', 'approved in 2021, after three large trials.')).toEqual([
      { op: 'same', text: 'approved in ' },
      { op: 'del', text: '2019' },
      { op: 'ins', text: '2021' },
      { op: 'same', text: ', after ' },
      { op: 'del', text: 'two' },
      { op: 'ins', text: 'three large' },
      { op: 'same', text: ' trials.' },
    ]);
  });

  it('starts an addition at its word, not at the space before it', () => {
    expect(wordDiff('districts, officials said', 'districts, health officials said')).toEqual([
      { op: 'same', text: 'districts, ' },
      { op: 'ins', text: 'health ' },
      { op: 'same', text: 'officials said' },
    ]);
    expect(wordDiff(' b', ' a b')).toEqual([
      { op: 'same', text: ' ' },
      { op: 'ins', text: 'a ' },
      { op: 'same', text: 'b' },
    ]);
  });

  it('treats punctuation as its own token', () => {
    expect(tokenize('Hello, world!')).toEqual(['Hello', ',', ' ', 'world', '!']);
    expect(wordDiff('Hello, world', 'Hello; world')).toEqual([
      { op: 'same', text: 'Hello' },
      { op: 'del', text: ',' },
      { op: 'ins', text: ';' },
      { op: 'same', text: ' world' },
    ]);
  });

  it('keeps both texts whole, including line breaks and non-Latin words', () => {
    const cases: [string, string][] = [
      ['Zeile eins\nZeile zwei', 'Zeile eins\n\nZeile drei'],
      ['東京 は 大きい', '東京 は とても 大きい'],
      ['a b c d e f', 'f e d c b a'],
      ['  leading and trailing  ', 'leading and trailing'],
    ];
    for (const [before, after] of cases) expect(sides(before, after)).toEqual({ before, after });
  });

  it('stays fast and whole on large, wholly different texts', () => {
    const before = Array.from({ length: 4000 }, (_, i) => `w${i}`).join(' ');
    const after = Array.from({ length: 4000 }, (_, i) => `v${i}`).join(' ');
    const started = Date.now();
    expect(sides(before, after)).toEqual({ before, after });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('renderDiff', () => {
  it('keeps the spaces around a lone change outside its tag', () => {
    expect(renderDiff('districts, officials said', 'districts, health officials said').value).toBe('districts, <ins>health</ins> officials said');
    expect(renderDiff('a b c', 'a c').value).toBe('a <del>b</del> c');
    expect(renderDiff('in 1887 in', 'in 1889 in').value).toBe('in <del>1887</del><ins>1889</ins> in');
    expect(renderDiff('a', 'a\n').value).toBe('a<ins>\n</ins>');
  });

  it('escapes everything it shows', () => {
    const out = renderDiff('<b>old</b> text', 'text <img src=x onerror=alert(1)> & "x"').value;
    // The only markup left is the diff's own.
    expect(out.replace(/<\/?(del|ins)>/g, '')).not.toMatch(/[<>"]/);
    expect(out).toBe('<del>&lt;b&gt;old&lt;/b&gt; text</del><ins>text &lt;img src=x onerror=alert(1)&gt; &amp; &quot;x&quot;</ins>');
  });
});
