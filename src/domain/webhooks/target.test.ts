// What the ceiling on deliveries per destination counts by, and the minute a send counts in.
import { describe, expect, it } from 'vitest';
import { minuteOf } from './schedule.js';
import { checkWebhookUrl, destinationOf } from './target.js';

describe('destinationOf', () => {
  it.each([
    ['https://hooks.example.com/in', 'example.com'],
    ['https://a.hooks.example.com:8443/in', 'example.com'],
    ['https://b.hooks.example.com./in', 'example.com'],
    ['https://news.ledger.co.uk/hook', 'ledger.co.uk'],
    // Private suffixes are registrants of their own: two github.io sites are two destinations.
    ['https://alice.github.io/hook', 'alice.github.io'],
    ['https://bob.github.io/hook', 'bob.github.io'],
    ['https://93.184.216.34:8443/in', '93.184.216.34'],
    ['https://[2606:2800:220:1::1]/in', '2606:2800:220:1::1'],
    ['http://127.0.0.1:3000/in', '127.0.0.1'],
  ])('%s counts as %s', (url, destination) => {
    expect(destinationOf(url)).toBe(destination);
  });
});

describe('minuteOf', () => {
  it('is the clock minute, and when the next one starts', () => {
    expect(minuteOf(new Date('2026-11-29T05:01:59.999Z'))).toEqual({ start: '2026-11-29T05:01:00.000Z', end: '2026-11-29T05:02:00.000Z' });
    expect(minuteOf(new Date('2026-11-29T05:02:00.000Z'))).toEqual({ start: '2026-11-29T05:02:00.000Z', end: '2026-11-29T05:03:00.000Z' });
  });
});

describe('checkWebhookUrl', () => {
  it.each([
    ['https://hooks.example.com/pipe|bar?q={a}|b^c#x', 'https://hooks.example.com/pipe%7Cbar?q=%7Ba%7D%7Cb%5Ec'],
    ['https://hooks.example.com/[a]/100%', 'https://hooks.example.com/%5Ba%5D/100%25'],
    ['https://hooks.example.com/a b/é', 'https://hooks.example.com/a%20b/%C3%A9'],
    ['https://hooks.example.com/already%7Cencoded', 'https://hooks.example.com/already%7Cencoded'],
  ])('stores %s as the URI %s', (raw, uri) => {
    expect(checkWebhookUrl(raw, false)).toBe(uri);
  });

  it('refuses a URL that passes 2,048 characters once encoded', () => {
    expect(() => checkWebhookUrl(`https://hooks.example.com/${'|'.repeat(1000)}`, false)).toThrow(/2048 characters once percent-encoded/);
  });
});
