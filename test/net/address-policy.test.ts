// The outbound address policy (SPEC §10), table-driven: every form below is checked three ways,
// as an address a DNS answer gives (isPrivateAddress), as a literal in a webhook URL at registration
// (checkWebhookUrl), and at connect time (guardedLookup over a played DNS answer).
import type { LookupAddress } from 'node:dns';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from '../../src/domain/webhooks/target.js';
import { isPrivateAddress } from '../../src/net/address-policy.js';
import { guardedLookupWith, type Resolve } from '../../src/net/safe-fetch.js';

// [address, why it is refused]
const REFUSED: [string, string][] = [
  ['0.0.0.0', 'this network'],
  ['0.1.2.3', 'this network'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['100.64.0.1', 'CGNAT'],
  ['100.127.255.254', 'CGNAT'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.168.1.1', 'private'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.51.100.7', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'documentation TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::7f00:1', 'IPv4-compatible loopback, hex'],
  ['::8.8.8.8', 'IPv4-compatible (deprecated), even of a public address'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:0:7f00:1', 'IPv4-translated (RFC 6145)'],
  ['::ffff:8.8.8.8', 'IPv4-mapped, even of a public address'],
  ['0:0:0:0:0:ffff:a00:1', 'IPv4-mapped, long form'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata address'],
  ['64:ff9b::7f00:1', 'NAT64 of the loopback'],
  ['64:ff9b::10.0.0.1', 'NAT64 of a private address'],
  ['64:ff9b:1::a9fe:a9fe', 'NAT64 local-use prefix (RFC 8215)'],
  ['64:ff9b:1::808:808', 'NAT64 local-use prefix, even of a public address'],
  ['100::1', 'discard-only'],
  ['2001::1', 'Teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo, a real-looking one'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'ORCHID (deprecated)'],
  ['2001:20::1', 'ORCHIDv2'],
  ['2001:db8::1', 'documentation'],
  ['2001:db8:ffff::1', 'documentation'],
  ['2002:7f00:1::', '6to4 of the loopback'],
  ['2002:a9fe:a9fe::1', '6to4 of the metadata address'],
  ['2002:808:808::1', '6to4, refused wholesale (deprecated)'],
  ['3fff::1', 'documentation (RFC 9637)'],
  ['5f00::1', 'segment routing'],
  ['fc00::1', 'unique local'],
  ['fd12:3456:789a::1', 'unique local'],
  ['fe80::1', 'link-local'],
  ['febf:ffff::1', 'link-local, top of the range'],
  ['fec0::1', 'site-local (deprecated)'],
  ['feff::1', 'site-local, top of the range'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast (site)'],
  ['4000::1', 'not in global unicast 2000::/3'],
  ['e000::1', 'not in global unicast 2000::/3'],
];

const ALLOWED: string[] = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.216.34',
  '100.63.255.255', // just below CGNAT
  '100.128.0.1', // just above CGNAT
  '172.15.255.255', // just below 172.16/12
  '172.32.0.1', // just above it
  '192.169.0.1',
  '223.255.255.254',
  '2606:4700::1111',
  '2a00:1450:4001:80b::200e',
  '2001:4860:4860::8888',
  '64:ff9b::808:808', // DNS64's answer for 8.8.8.8: the IPv4 inside is public
  '64:ff9b::5db8:d822', // 93.184.216.34
];

function lookup(address: string): Promise<string> {
  const family = net.isIP(address) as 4 | 6;
  const answer: LookupAddress[] = [{ address, family }];
  const resolve: Resolve = (_h, _o, cb) => setImmediate(() => cb(null, answer));
  return new Promise((done) => guardedLookupWith(resolve)('host.example', {}, (err) => done(err ? ((err as NodeJS.ErrnoException).code ?? 'error') : 'ok')));
}

const literal = (a: string) => (net.isIP(a) === 6 ? `[${a}]` : a);
function register(address: string): string {
  try {
    checkWebhookUrl(`https://${literal(address)}/hook`, false);
    return 'ok';
  } catch (err) {
    return (err as { code?: string }).code ?? 'error';
  }
}

describe('the outbound address policy', () => {
  it('has a table of at least 50 forms', () => {
    expect(REFUSED.length + ALLOWED.length).toBeGreaterThanOrEqual(50);
  });

  it.each(REFUSED)('refuses %s (%s) as an address, at registration and at connect time', async (address) => {
    expect(isPrivateAddress(address)).toBe(true);
    expect(register(address)).toBe('invalid_url');
    expect(await lookup(address)).toBe('EPRIVATE');
  });

  it.each(ALLOWED)('allows %s', async (address) => {
    expect(isPrivateAddress(address)).toBe(false);
    expect(register(address)).toBe('ok');
    expect(await lookup(address)).toBe('ok');
  });

  it.each([
    ['https://[::127.0.0.1]/x'],
    ['https://[::ffff:0:7f00:1]/x'],
    ['https://[64:ff9b::a9fe:a9fe]/x'],
    ['https://[64:ff9b:1::a9fe:a9fe]/x'],
    ['https://[2002:7f00:1::]/x'],
    ['https://[fec0::1]/x'],
    ['https://[2001:0:4136:e378::1]/x'],
    ['https://0x7f.1/x'],
    ['https://2130706433/x'],
    ['https://0177.0.0.1/x'],
    ['https://127.1/x'],
    ['https://[0:0:0:0:0:0:0:1]/x'],
    ['https://[fe80::1%25eth0]/x'],
    ['https://localhost./x'],
    ['https://a.b.localhost/x'],
  ])('refuses the URL %s at registration', (url) => {
    expect(() => checkWebhookUrl(url, false)).toThrow();
  });

  it('refuses what is not an address at all', () => {
    for (const a of ['', 'example.com', '1.2.3', '::g', '1.2.3.4.5']) expect(isPrivateAddress(a), a).toBe(true);
  });
});
