// Where a webhook may point (SPEC §10): an https URL whose host is not written as localhost or any address outside
// global unicast (src/net/address-policy.ts: private, loopback, link-local, CGNAT, IPv4-mapped, NAT64, 6to4…), nor a
// name that resolves to one when registered. A name is checked again at every connection (src/net), so a DNS answer
// cannot be switched to a private address later. WEBHOOK_ALLOW_PRIVATE lifts both checks, and then
// plain http is allowed too, for a receiver on a developer's machine.
import dns from 'node:dns';
import net from 'node:net';
import { DomainError } from '../errors.js';
import { registrableDomain, uriOf } from '../pages/url-keys.js';
import { isForbiddenHostLiteral, isPrivateAddress } from '../../net/address-policy.js';
import type { Resolve } from '../../net/safe-fetch.js';

export const MAX_WEBHOOK_URL = 2048;

const refuse = (message: string) => new DomainError('invalid_url', `url ${message}`, [{ field: 'url', message }]);

/** The URL as it will be called, or a 400 naming the problem. */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): string {
  if (raw.length > MAX_WEBHOOK_URL) throw refuse(`must be at most ${MAX_WEBHOOK_URL} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw refuse('must be an absolute https URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) throw refuse('must use https');
  if (url.username || url.password) throw refuse('must not carry a user name or password');
  if (!allowPrivate) {
    // `localhost.` is localhost: the trailing dot only says the name is absolute.
    const host = url.hostname.replace(/\.$/, '');
    if (host === '' || isForbiddenHostLiteral(host)) throw refuse('must point to a public address, not localhost or a private network');
    // A bracketed IPv6 literal is checked by address-policy; a numeric IPv4 spelling (0x7f.1) the URL parser has
    // already turned into dotted form, so it cannot slip past as a "name".
    if (net.isIP(host.replace(/^\[|\]$/g, '')) === 0 && !host.includes('.')) throw refuse('must name a public host (a dotted DNS name or address)');
  }
  url.hash = '';
  // Stored and answered as an RFC 3986 URI (the documents' `format: uri`): `/a|b` is kept as `/a%7Cb`.
  const href = uriOf(url);
  if (href.length > MAX_WEBHOOK_URL) throw refuse(`must be at most ${MAX_WEBHOOK_URL} characters once percent-encoded`);
  return href;
}

/** How long registration waits for a name to resolve; past it the name is taken and checked at every attempt. */
const REGISTRATION_LOOKUP_MS = 2000;

/**
 * The registration check's resolver unless a test plays DNS: c-ares queries (A and AAAA, one try of 1 s each), not
 * `dns.lookup`, whose getaddrinfo holds a thread of libuv's small pool (shared with file access and password
 * hashing) for as long as a slow name takes, however soon we stop waiting: a batch of 500 slow names must not
 * stall log-ins. The connect-time check at each attempt stays on `dns.lookup`, as the connection itself does.
 */
const queryDns: Resolve = (hostname, _options, callback) => {
  const resolver = new dns.promises.Resolver({ timeout: 1000, tries: 1 });
  void Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]).then(([v4, v6]) => {
    const list: dns.LookupAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (list.length === 0) callback(Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    else callback(null, list);
  });
};

/**
 * Where the URL's name resolves now, every address must be public (a 400 naming `url` otherwise). A name that does
 * not resolve, or not in time, is accepted: its owner may not have published it yet, and every attempt checks the
 * address it connects to anyway (src/net). Skipped under WEBHOOK_ALLOW_PRIVATE and for address literals, which
 * checkWebhookUrl judged.
 */
export async function checkWebhookHost(url: string, allowPrivate: boolean, resolve: Resolve = queryDns): Promise<void> {
  if (allowPrivate) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) !== 0) return;
  const addresses = await new Promise<dns.LookupAddress[]>((done) => {
    const timer = setTimeout(() => done([]), REGISTRATION_LOOKUP_MS);
    resolve(host, { all: true }, (err, list) => {
      clearTimeout(timer);
      done(err ? [] : list);
    });
  });
  // The one finding of src/net: whatever non-public address it is, the answer does not say.
  if (addresses.some((a) => isPrivateAddress(a.address))) throw refuse('must point to a public address: the host has no public address');
}

/**
 * What the ceiling on deliveries per host counts by: the URL's registrable domain (`a.hooks.example` and
 * `b.hooks.example` are one destination, so names made up under one domain do not multiply it), or its address.
 */
export function destinationOf(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/\.$/, '').replace(/^\[|\]$/g, '');
  } catch {
    return url;
  }
  return net.isIP(host) !== 0 ? host : registrableDomain(host);
}
