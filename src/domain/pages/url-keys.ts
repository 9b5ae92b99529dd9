// URL identity (SPEC §3): the one place that decides when two URLs name the same page.
import net from 'node:net';
import { getDomain } from 'tldts';

export const MAX_URL_LENGTH = 2048;

export interface PageUrl {
  /** The URL as the WHATWG parser serialises it, fragment removed, written as an RFC 3986 URI (uriOf). */
  url: string;
  host: string;
  /** host + path without trailing slash + query as given. */
  lookupKey: string;
  /** lookupKey without a leading `www.` and without the query. */
  embedKey: string;
}

/** A character RFC 3986 does not allow as it is in a path or query (`#` cannot occur there), or a `%` that starts no escape. */
const NOT_URI = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]|%(?![0-9A-Fa-f]{2})/;

/** Parse a page URL, or return null when it is not an http(s) URL of at most 2,048 characters. */
export function parsePageUrl(input: unknown): PageUrl | null {
  if (typeof input !== 'string' || input.length === 0 || input.length > MAX_URL_LENGTH) return null;
  let u: URL;
  try {
    u = new URL(input);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (!u.hostname) return null;
  // Setting the fragment re-serialises the URL: only when there is one, even empty (`/a#`; a `#` always starts
  // one), which saves a third of a parse's time.
  if (input.includes('#')) u.hash = '';
  // What the WHATWG parser leaves raw that RFC 3986 does not allow (`|{}^[]`, a backquote, a stray `%`) is
  // percent-encoded, in the URL and so in both keys: `/a|b` and `/a%7Cb` are one page, and every stored URL is a
  // `format: uri` value. Most URLs have none: one test of the path and query, no re-serialisation.
  if (NOT_URI.test(u.pathname) || NOT_URI.test(u.search)) {
    u.pathname = uriComponent(u.pathname);
    if (u.search) u.search = uriComponent(u.search.slice(1));
    if (u.href.length > MAX_URL_LENGTH) return null;
  }
  // The WHATWG parser already lower-cases the host, converts IDN to punycode and drops a default port.
  const host = u.port ? `${u.hostname}:${u.port}` : u.hostname;
  const path = u.pathname.replace(/\/+$/, '');
  const lookupKey = `${host}${path}${u.search}`;
  const embedKey = `${host.replace(/^www\./, '')}${path}`;
  return { url: u.href, host: u.hostname, lookupKey, embedKey };
}


/** Normalise a domain a publisher claims; null when it is not a public-looking DNS name. */
export function parseDomain(input: unknown): string | null {
  if (typeof input !== 'string' || input.length === 0 || input.length > 253) return null;
  const trimmed = input.trim().replace(/\.$/, '');
  if (/[/:?#@\s]/.test(trimmed)) return null;
  let host: string;
  try {
    host = new URL(`http://${trimmed}`).hostname;
  } catch {
    return null;
  }
  if (net.isIP(host.replace(/^\[|\]$/g, '')) !== 0) return null;
  if (!host.includes('.') || host === 'localhost' || host.endsWith('.localhost')) return null;
  if (!/^[a-z0-9.-]+$/.test(host) || host.split('.').some((label) => label === '' || label.length > 63)) return null;
  return host;
}

/**
 * The registrable domain of a DNS name by the Public Suffix List, private suffixes included (`alice.github.io` and
 * `bob.github.io` are two), or the name itself when it is a suffix: domains under one are held by one registrant.
 */
export function registrableDomain(domain: string): string {
  return getDomain(domain, { allowPrivateDomains: true }) ?? domain;
}

/** A verified domain covers itself and its subdomains (SPEC §1). */
export function hostUnderDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** Why a source URL was refused, for the field's message. */
export type SourceProblem = 'not_http' | 'credentials' | 'too_long';

/** Bytes RFC 3986 allows as they are in a path, query or fragment (unreserved, sub-delims, `:@/?`); `%` is checked apart. */
const URI_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?]/;

/** Percent-encode (UTF-8) every character RFC 3986 does not allow in a path, query or fragment, and a `%` that starts no escape. */
function uriComponent(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (URI_SAFE.test(c) || (c === '%' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3)))) out += c;
    else {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      if (ch.length === 2) i++;
      for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

/**
 * A source URL: what SPEC §3 reads as a URL (the WHATWG parser, http or https, with a host), without a
 * user name or password (a source is shown to everyone), written as the WHATWG parser serialises it and then
 * percent-encoded wherever RFC 3986 wants it (a space, `{}|^` and the like, a second `#`), so that every answer
 * carrying it holds a valid `uri`. At most 2,048 characters, once encoded. The one rule for every path that takes
 * sources, and for presenting one stored before it.
 */
export function parseSourceUrl(input: unknown): { url: string } | { problem: SourceProblem } {
  if (typeof input !== 'string' || input.length === 0) return { problem: 'not_http' };
  if (input.length > MAX_URL_LENGTH) return { problem: 'too_long' };
  let u: URL;
  try {
    u = new URL(input);
  } catch {
    return { problem: 'not_http' };
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) return { problem: 'not_http' };
  if (u.username || u.password) return { problem: 'credentials' };
  const url = uriOf(u);
  return url.length > MAX_URL_LENGTH ? { problem: 'too_long' } : { url };
}

/**
 * A parsed URL written as an RFC 3986 URI: the WHATWG serialisation (which already encodes spaces, quotes and
 * non-ASCII) with what it leaves raw in a path, query or fragment (`|`, `{}`, `^`, `[]`, a backquote, a stray `%`)
 * percent-encoded too, so a stored URL passes every `format: uri` check that answers it. The one rule for stored
 * source and webhook URLs.
 */
export function uriOf(u: URL): string {
  // The leading `?` and `#` are the delimiters; what follows each is encoded as its component.
  return (
    `${u.protocol}//${u.host}${uriComponent(u.pathname)}` +
    (u.search ? `?${uriComponent(u.search.slice(1))}` : '') +
    (u.hash ? `#${uriComponent(u.hash.slice(1))}` : '')
  );
}
