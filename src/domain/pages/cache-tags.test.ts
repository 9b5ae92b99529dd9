import { describe, expect, it } from 'vitest';
import { tag } from './cache-tags.js';

describe('domain tags', () => {
  it.each([
    ['a.b.example', ['domain:a.b.example', 'domain:b.example']],
    ['example.com', ['domain:example.com']],
    ['localhost', []],
    ['[::1]', []],
    ['1.2.3.4', ['domain:1.2.3.4', 'domain:2.3.4', 'domain:3.4']],
    ['example.com.', ['domain:example.com.', 'domain:com.']],
  ])('%s depends on every suffix a publisher could verify', (host, tags) => {
    expect(tag.domains(host)).toEqual(tags);
  });
});
