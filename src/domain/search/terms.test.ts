import { describe, expect, it } from 'vitest';
import { MAX_TERMS, fts5Query, searchTerms, tsQuery } from './terms.js';

describe('search terms', () => {
  it('splits on anything but letters and digits, lower-cases, and keeps each word once', () => {
    expect(searchTerms('Measles, MMR & measles!')).toEqual(['measles', 'mmr']);
    expect(searchTerms('https://dailyledger.example/health/measles-cases')).toEqual(['https', 'dailyledger', 'example', 'health', 'measles', 'cases']);
    expect(searchTerms('Zoë Müller')).toEqual(['zoë', 'müller']);
    expect(searchTerms('  ')).toEqual([]);
    expect(searchTerms('" OR 1=1 --')).toEqual(['or', '1']);
  });

  it('keeps at most a dozen words', () => {
    expect(searchTerms(Array.from({ length: 30 }, (_, i) => `w${i}`).join(' '))).toHaveLength(MAX_TERMS);
  });

  it('writes each index’s query with every word a required prefix', () => {
    expect(fts5Query(['measles', 'mmr'])).toBe('"measles"* "mmr"*');
    expect(tsQuery(['measles', 'mmr'])).toBe('measles:* & mmr:*');
  });
});
