// URL identity (SPEC §3): the one place that decides when two URLs name the same page.
import net from 'node:net';

export const MAX_URL_LENGTH = 2048;

export interface PageUrl {
  /** The URL as the WHATWG parser serialises it, fragment removed. */
  url: string;
  host: string;
  /** host + path without trailing slash + query as given. */
  lookupKey: string;
  /** lookupKey without a leading `www.` and without the query. */
  embedKey: string;
}

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
  // one), which saves a third of a parse's time (issue 16).
  if (input.includes('#')) u.hash = '';
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

/** A verified domain covers itself and its subdomains (SPEC §1). */
export function hostUnderDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}
