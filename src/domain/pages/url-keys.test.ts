import { describe, expect, it } from 'vitest';
import { hostUnderDomain, parseDomain, parsePageUrl } from './url-keys.js';

describe('parsePageUrl', () => {
  it.each([
    ['HTTPS://Example.COM/News/a/?x=1#top', 'example.com/News/a?x=1', 'example.com/News/a'],
    ['http://example.com', 'example.com', 'example.com'],
    ['https://example.com/', 'example.com', 'example.com'],
    ['https://www.example.com/a/', 'www.example.com/a', 'example.com/a'],
    ['https://example.com:443/a', 'example.com/a', 'example.com/a'],
    ['http://example.com:80/a', 'example.com/a', 'example.com/a'],
    ['https://example.com:8443/a', 'example.com:8443/a', 'example.com:8443/a'],
    ['https://bücher.example/a', 'xn--bcher-kva.example/a', 'xn--bcher-kva.example/a'],
    ['https://example.com/a?b=2&a=1', 'example.com/a?b=2&a=1', 'example.com/a'],
  ])('%s', (input, lookupKey, embedKey) => {
    const parsed = parsePageUrl(input);
    expect(parsed?.lookupKey).toBe(lookupKey);
    expect(parsed?.embedKey).toBe(embedKey);
  });

  it.each([
    'javascript:alert(1)',
    'http://[::1',
    'ftp://example.com/a',
    'data:text/html,hi',
    'example.com/a',
    '',
    `https://example.com/${'a'.repeat(3000)}`,
    42,
    null,
  ])('refuses %s', (input) => {
    expect(parsePageUrl(input)).toBeNull();
  });

  it.each([
    ['https://example.com/a#top', 'https://example.com/a'],
    ['https://example.com/a#', 'https://example.com/a'],
    ['https://example.com/a?q=1#x#y', 'https://example.com/a?q=1'],
    ['https://example.com/a%23b', 'https://example.com/a%23b'],
  ])('drops the fragment of %s, even an empty one', (input, url) => {
    expect(parsePageUrl(input)?.url).toBe(url);
  });

  it('accepts exactly 2,048 characters', () => {
    const base = 'https://example.com/';
    expect(parsePageUrl(base + 'a'.repeat(2048 - base.length))).not.toBeNull();
    expect(parsePageUrl(base + 'a'.repeat(2049 - base.length))).toBeNull();
  });
});

describe('parseDomain', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['news.example.org.', 'news.example.org'],
    ['bücher.example', 'xn--bcher-kva.example'],
  ])('%s → %s', (input, out) => expect(parseDomain(input)).toBe(out));

  it.each(['localhost', '127.0.0.1', '[::1]', 'example', 'https://example.com', 'example.com/a', 'a..b', 'a b.com'])(
    'refuses %s',
    (input) => expect(parseDomain(input)).toBeNull(),
  );
});

describe('hostUnderDomain', () => {
  it('covers the domain and its subdomains only', () => {
    expect(hostUnderDomain('example.com', 'example.com')).toBe(true);
    expect(hostUnderDomain('news.example.com', 'example.com')).toBe(true);
    expect(hostUnderDomain('badexample.com', 'example.com')).toBe(false);
    expect(hostUnderDomain('example.com.evil.net', 'example.com')).toBe(false);
  });
});
