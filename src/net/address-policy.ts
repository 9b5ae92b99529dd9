// Which addresses the service may connect to on someone else's say-so (domain checks, webhooks): global unicast
// ones only, so a URL cannot aim our requests at the loopback, the private network or a cloud metadata service.
// Ranges come from ipaddr.js, which follows the IANA special-purpose registries, rather than a hand-kept list: an
// address is allowed only when the library calls it plain `unicast` (and, for IPv6, it lies in 2000::/3, the only
// block IANA hands out as global unicast). Everything else is refused, spelling by spelling.
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** 2000::/3: global unicast. `::127.0.0.1` (IPv4-compatible, deprecated) and the like fall outside it. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parse('2000::');
/** RFC 6052 well-known NAT64 prefix: globally reachable when the IPv4 address it carries is. */
const NAT64_WKP = ipaddr.IPv6.parse('64:ff9b::');

function publicV4(addr: ipaddr.IPv4): boolean {
  return addr.range() === 'unicast';
}

function publicV6(addr: ipaddr.IPv6): boolean {
  // A DNS64 resolver answers 64:ff9b::a.b.c.d for IPv4-only hosts: judge the IPv4 address inside. Its local-use
  // sibling 64:ff9b:1::/48 (RFC 8215) is not global and stays refused below.
  if (addr.match(NAT64_WKP, 96)) {
    const b = addr.toByteArray();
    return publicV4(new ipaddr.IPv4(b.slice(12)));
  }
  // IPv4-mapped (::ffff:0:0/96), IPv4-translated, 6to4 (2002::/16, deprecated by RFC 7526), Teredo (2001::/32),
  // documentation, benchmarking, ORCHID, unique local, site-local (fec0::/10), link-local, multicast, discard…
  // all have a range name other than `unicast`.
  return addr.range() === 'unicast' && addr.match(GLOBAL_UNICAST_V6, 3);
}

/** True when an address (as DNS returned it, or written in a URL) is somewhere we must not connect to. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  try {
    if (family === 4) return !publicV4(ipaddr.IPv4.parse(address));
    // Node accepts zone ids (fe80::1%eth0); ipaddr.js parses them too, and link-local is refused anyway.
    if (family === 6) return !publicV6(ipaddr.IPv6.parse(address));
  } catch {
    return true;
  }
  return true;
}

/** A host written into a URL that is refused before any lookup: localhost names and non-public literals. */
export function isForbiddenHostLiteral(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return net.isIP(host) !== 0 && isPrivateAddress(host);
}
