// Proving control of a domain (SPEC §1): a DNS TXT record `credence-verification=<token>`, or the token in
// `https://<domain>/.well-known/credence-verification.txt`. The resolver and the file's address are injectable so
// tests answer DNS from a stub and serve the file from a local HTTP server; the checks themselves are real.
import dns from 'node:dns';
import { fetchSmall, type Resolve } from '../../net/safe-fetch.js';

export interface WellKnownAnswer {
  status: number | null;
  body: string;
  /** Why no answer came (timeout, refused address, TLS error). */
  error?: string;
}

export interface DomainVerifier {
  resolveTxt(domain: string): Promise<string[]>;
  fetchWellKnown(domain: string): Promise<WellKnownAnswer>;
}

export const WELL_KNOWN_PATH = '/.well-known/credence-verification.txt';
export const TXT_PREFIX = 'credence-verification=';

export function systemVerifier(opts: {
  allowPrivate: boolean;
  resolver?: Pick<dns.promises.Resolver, 'resolveTxt'>;
  wellKnownUrl?: (domain: string) => string;
  /** The resolver behind the connect-time address check (tests play DNS answers). */
  resolve?: Resolve;
}): DomainVerifier {
  const resolver = opts.resolver ?? new dns.promises.Resolver({ timeout: 5000, tries: 2 });
  const urlOf = opts.wellKnownUrl ?? ((d: string) => `https://${d}${WELL_KNOWN_PATH}`);
  return {
    async resolveTxt(domain) {
      try {
        const records = await resolver.resolveTxt(domain);
        // A long TXT record arrives split into 255-byte strings; they are one value.
        return records.map((chunks) => chunks.join(''));
      } catch {
        return [];
      }
    },
    async fetchWellKnown(domain) {
      const r = await fetchSmall(urlOf(domain), {
        allowPrivate: opts.allowPrivate,
        timeoutMs: 5000,
        maxBytes: 1024,
        ...(opts.resolve ? { resolve: opts.resolve } : {}),
      });
      return r.error ? { status: r.status, body: r.body, error: r.error } : { status: r.status, body: r.body };
    },
  };
}
