import { describe, expect, it } from 'vitest';
import { headerSetOf } from './security-headers.js';

/** The rule as first written, one pattern per kind of path: the prefix checks must give the same answers. */
const byPatterns = (url: string) =>
  /^\/(?:api\/v1\/embed\/|(?:v1\/)?embed\.js(?:\?|$)|embed\.css(?:\?|$))/.test(url) ? 'embed' : /^\/(?:api\/)?v1(?:[/?]|$)/.test(url) ? 'api' : 'page';

describe('the security header set of a path', () => {
  it('is the embeds’, the API’s or the pages’ exactly as the patterns say', () => {
    const paths = [
      '/api/v1/embed/by-url?url=https%3A%2F%2Fexample.com%2Fa',
      '/api/v1/embed/article/12',
      '/api/v1/embed/',
      '/api/v1/embed',
      '/api/v1/embeds',
      '/api/v1/pages/lookup?url=x',
      '/api/v1/',
      '/api/v1',
      '/api/v1?x=1',
      '/api/v10/pages',
      '/api/v2/pages',
      '/api/',
      '/v1/embed.js',
      '/v1/embed.js?v=2',
      '/v1/embed.jsx',
      '/v1/pages/record?url=x',
      '/v1',
      '/v1?x',
      '/v10',
      '/embed.js',
      '/embed.js?v=1',
      '/embed.json',
      '/embed.css',
      '/embed.css?v=abc',
      '/embed.cssx',
      '/v1/embed.css',
      '/embed/demo',
      '/records/12',
      '/healthz',
      '/',
      '',
    ];
    for (const p of paths) expect(headerSetOf(p), p).toBe(byPatterns(p));
    expect(headerSetOf('/api/v1/embed/by-url?url=x')).toBe('embed');
    expect(headerSetOf('/embed.css?v=abc')).toBe('embed');
    expect(headerSetOf('/api/v1/pages/lookup')).toBe('api');
    expect(headerSetOf('/records/1')).toBe('page');
  });
});
