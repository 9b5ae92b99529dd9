// Where a webhook may point (SPEC §10): an https URL whose host is not written as localhost or any address outside
// global unicast (src/net/address-policy.ts: private, loopback, link-local, CGNAT, IPv4-mapped, NAT64, 6to4…). A name is checked again at every connection (src/net), so
// a DNS answer cannot be switched to a private address later. WEBHOOK_ALLOW_PRIVATE lifts both checks, and then
// plain http is allowed too, for a receiver on a developer's machine.
import net from 'node:net';
import { DomainError } from '../errors.js';
import { isForbiddenHostLiteral } from '../../net/address-policy.js';

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
  return url.href;
}
