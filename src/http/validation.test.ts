// findUnstorable answers flat objects (every query string) without walking them (validation.ts): it must name the
// same problem, in the same place, as the full walk does, for flat and nested input alike.
import { describe, expect, it } from 'vitest';
import { createPrng } from '../demo/prng.js';
import { findUnstorable } from './validation.js';

/** The full walk as it was before the flat case was taken apart: the reference. */
function walk(root: unknown): { path: string; why: 'nul' | 'depth' } | null {
  const stack: [unknown, string, number][] = [[root, '', 0]];
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { path: path || '(body)', why: 'nul' };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= 32) return { path: path || '(body)', why: 'depth' };
    for (const [k, v] of Object.entries(value)) {
      const child = path ? `${path}.${k}` : k;
      if (k.includes('\u0000')) return { path: child, why: 'nul' };
      stack.push([v, child, depth + 1]);
    }
  }
  return null;
}

describe('findUnstorable', () => {
  it('names the first NUL in a flat object as the walk does: keys first, in order, then values last to first', () => {
    expect(findUnstorable({ url: 'https://a.example/', style: 'full' })).toBeNull();
    expect(findUnstorable({ a: 'x\u0000', b: 'y\u0000' })).toEqual({ path: 'b', why: 'nul' });
    expect(findUnstorable({ a: 'x\u0000', ['k\u0000']: 'y' })).toEqual({ path: 'k\u0000', why: 'nul' });
    expect(findUnstorable({ '': 'x\u0000' })).toEqual({ path: '(body)', why: 'nul' });
    expect(findUnstorable({ url: 'a\u0000b', n: 1, t: true, z: null })).toEqual({ path: 'url', why: 'nul' });
    expect(findUnstorable('x\u0000')).toEqual({ path: '(body)', why: 'nul' });
    expect(findUnstorable({})).toBeNull();
  });

  it('gives the same answer as the full walk on random flat and nested input', () => {
    const rng = createPrng(16);
    const pieces = ['a', 'url', '', '\u0000', 'b\u0000c', 'x.y', '0'];
    const text = () => pieces[rng.int(pieces.length)]! + (rng.int(3) === 0 ? pieces[rng.int(pieces.length)]! : '');
    const value = (depth: number): unknown => {
      const r = rng.int(depth > 3 ? 4 : 7);
      if (r === 0) return 1;
      if (r === 1) return null;
      if (r <= 3) return text();
      if (r === 4) return Array.from({ length: rng.int(4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: rng.int(5) }, () => [text(), value(depth + 1)]));
    };
    const deep = (n: number): unknown => (n === 0 ? 'end' : { d: deep(n - 1) });
    const cases: unknown[] = [deep(31), deep(32), deep(40), { q: 'a', deep: deep(33) }];
    for (let i = 0; i < 5000; i++) {
      // Flat objects of strings (the fast path) half of the time.
      cases.push(i % 2 ? Object.fromEntries(Array.from({ length: rng.int(6) }, () => [text(), text()])) : value(0));
    }
    for (const c of cases) expect(findUnstorable(c), JSON.stringify(c)).toEqual(walk(c));
  });
});
