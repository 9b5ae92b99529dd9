import { describe, expect, it } from 'vitest';
import { shareCost, shareOut, type ShareCandidate } from './bucket-share.js';

const c = (publisherId: number, hash: string, over: Partial<ShareCandidate> = {}): ShareCandidate => ({
  publisherId,
  hash,
  flagged: false,
  newest: '2026-01-01',
  entryBytes: 300,
  urlBytes: 30,
  cited: 0,
  ...over,
});

describe('a publisher’s share of a bucket', () => {
  it('lists each publisher up to its share and withholds the rest, by publisher', () => {
    const one = shareCost(c(1, 'a'));
    const stuffed = Array.from({ length: 10 }, (_, i) => c(1, `a${i}`));
    const { listed, withheld } = shareOut([...stuffed, c(2, 'b')], one * 3);
    expect(listed.filter((x) => x.publisherId === 1)).toHaveLength(3);
    expect(listed.filter((x) => x.publisherId === 2)).toHaveLength(1);
    expect(withheld.get(1)).toHaveLength(7);
    expect(withheld.has(2)).toBe(false);
  });

  it('lists flagged records first, then the most recently changed, then by hash', () => {
    const list = [c(1, 'a1', { newest: '2026-03-01' }), c(1, 'a2', { flagged: true, newest: '2025-01-01' }), c(1, 'a3', { newest: '2026-03-01' }), c(1, 'a4', { newest: '2026-05-01' })];
    const { listed } = shareOut(list, shareCost(list[0]!) * 3);
    expect(listed.map((x) => x.hash)).toEqual(['a2', 'a4', 'a1']);
  });

  it('stops at the first record that does not fit: a smaller one after it does not jump the queue', () => {
    const { listed, withheld } = shareOut([c(1, 'a', { newest: '3', entryBytes: 100 }), c(1, 'b', { newest: '2', entryBytes: 5000 }), c(1, 'c', { newest: '1', entryBytes: 100 })], 1000);
    expect(listed.map((x) => x.hash)).toEqual(['a']);
    expect(withheld.get(1)!.map((x) => x.hash)).toEqual(['b', 'c']);
  });

  it('counts what the proofs answer carries for each cited entry', () => {
    expect(shareCost({ entryBytes: 300, urlBytes: 30, cited: 2 }) - shareCost({ entryBytes: 300, urlBytes: 30, cited: 0 })).toBe(2 * (2048 + 40));
  });
});
