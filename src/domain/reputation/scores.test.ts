import { describe, expect, it } from 'vitest';
import { contributionScore, independentSources, level, topicAuthority, trustScore } from './scores.js';

describe('reputation', () => {
  it('trust is the Wilson lower bound, two decimals', () => {
    expect(trustScore(0, 0)).toBe(0);
    expect(trustScore(1, 0)).toBe(0.21);
    expect(trustScore(10, 0)).toBe(0.72);
    expect(trustScore(95, 5)).toBe(0.89);
    expect(trustScore(0, 5)).toBe(0);
  });
  it('weights roles', () => {
    expect(contributionScore(['author', 'fact_check', 'review', 'correction', 'edit', 'source'])).toBe(36);
  });
  it('authority grows with work and is capped by trust', () => {
    expect(topicAuthority(0.9, 0)).toBe(0);
    expect(topicAuthority(0.9, 20)).toBe(0.57);
    expect(topicAuthority(0.9, 1000)).toBe(0.9);
  });
  it('levels', () => {
    expect(level({ accepted: 2, trust: 1, panellist: false })).toBe('newcomer');
    expect(level({ accepted: 3, trust: 0.3, panellist: false })).toBe('contributor');
    expect(level({ accepted: 10, trust: 0.8, panellist: false })).toBe('trusted');
    expect(level({ accepted: 25, trust: 0.9, panellist: false })).toBe('expert');
    expect(level({ accepted: 0, trust: 0, panellist: true })).toBe('expert');
  });
});

describe('independent sources', () => {
  it('joins publications sharing an account or a registrable domain, transitively, named by the least id, whatever the row order', () => {
    const rows = [
      { publisher_id: 7, via: 'account:1' },
      { publisher_id: 3, via: 'account:2' },
      { publisher_id: 9, via: 'account:1' },
      { publisher_id: 9, via: 'account:2' },
      { publisher_id: 5, via: 'account:4' },
      { publisher_id: 12, via: 'domain:example.co.uk' },
      { publisher_id: 3, via: 'domain:example.co.uk' },
      { publisher_id: 13, via: 'domain:other.example' },
    ];
    for (const order of [rows, [...rows].reverse()]) {
      const source = independentSources(order);
      expect([7, 3, 9, 12].map(source)).toEqual([3, 3, 3, 3]);
      expect(source(5)).toBe(5);
      expect(source(13)).toBe(13);
      expect(source(11)).toBe(11);
    }
  });
});
