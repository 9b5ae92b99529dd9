// One outbound request on behalf of a user: no redirects, a hard timeout, at most `maxBytes` of the answer kept,
// and the address checked after DNS resolution, at connect time, so a DNS answer cannot be switched to a private
// address between a check and the connection (DNS rebinding).
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isForbiddenHostLiteral, isPrivateAddress } from './address-policy.js';

/**
 * One message for a name that resolves to a non-public address and a name that does not resolve at all: two
 * messages would let anyone map the private network's names through a domain check or a webhook's attempt log.
 */
export const NO_PUBLIC_ADDRESS = 'the host has no public address';
const UNRESOLVED = new Set(['EPRIVATE', 'ENOTFOUND', 'ENODATA', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME', 'ESERVFAIL']);

export interface SmallResponse {
  status: number | null;
  body: string;
  durationMs: number;
  error?: string;
}

export interface FetchOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The resolver behind the connect-time check (default: the system's). */
  resolve?: Resolve;
  /** Reuse connections through these agents (webhook delivery); without them every request has its own. */
  agents?: KeepAliveAgents;
}

/**
 * Connection reuse for a sender that calls the same hosts again and again (the webhook relay). The address check
 * stays where it was: an agent passes the request's `lookup` to every new connection it opens, so each connection
 * is made to an address the guard just approved, and a kept connection stays bound to that address (a TCP
 * connection cannot move to another peer). A name that now resolves privately therefore gets no new connection;
 * an open connection to the address checked before may carry a few more requests until it idles out.
 */
export interface KeepAliveAgents {
  http: http.Agent;
  https: https.Agent;
  destroy(): void;
}

export function keepAliveAgents(opts: { maxSocketsPerHost?: number; idleMs?: number } = {}): KeepAliveAgents {
  // Idle connections close after `idleMs` (below common servers' 5 s keep-alive), so a request rarely meets one
  // the receiver is closing at that moment.
  const common = { keepAlive: true, maxSockets: opts.maxSocketsPerHost ?? 8, maxFreeSockets: opts.maxSocketsPerHost ?? 8, timeout: opts.idleMs ?? 4000 };
  const agents = { http: new http.Agent(common), https: new https.Agent(common) };
  return { ...agents, destroy: () => (agents.http.destroy(), agents.https.destroy()) };
}

/** A resolver with dns.lookup's shape for `all: true`; tests inject one to play a DNS answer that changes. */
export type Resolve = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

export const guardedLookup: LookupFunction = (hostname, options, callback) =>
  guardedLookupWith(dns.lookup as Resolve)(hostname, options, callback);

/** The connect-time check over any resolver: every address of the answer must be public. */
export const guardedLookupWith = (resolve: Resolve): LookupFunction => (hostname, options, callback) => {
  resolve(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 4);
    const list = addresses;
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || list.length === 0) {
      return callback(Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: 'EPRIVATE' }), '', 4);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    const first = list[0]!;
    callback(null, first.address, first.family);
  });
};

export function fetchSmall(url: string, opts: FetchOptions): Promise<SmallResponse> {
  const started = performance.now();
  const done = (r: Omit<SmallResponse, 'durationMs'>): SmallResponse => ({
    ...r,
    durationMs: Math.round(performance.now() - started),
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done({ status: null, body: '', error: 'invalid URL' }));
  }
  if (!opts.allowPrivate && isForbiddenHostLiteral(target.hostname)) {
    return Promise.resolve(done({ status: null, body: '', error: NO_PUBLIC_ADDRESS }));
  }
  const client = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : null;
  if (!client) return Promise.resolve(done({ status: null, body: '', error: 'only http and https are supported' }));

  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: Omit<SmallResponse, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const req = client.request(
      target,
      {
        method: opts.method ?? 'GET',
        headers: { 'user-agent': 'Credence/1 (+verification)', ...opts.headers },
        ...(opts.allowPrivate ? {} : { lookup: opts.resolve ? guardedLookupWith(opts.resolve) : guardedLookup }),
        agent: opts.agents ? (target.protocol === 'https:' ? opts.agents.https : opts.agents.http) : false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < opts.maxBytes) chunks.push(chunk.subarray(0, opts.maxBytes - size));
          size += chunk.length;
          // Enough read: stop the transfer rather than download an arbitrarily large answer.
          if (size >= opts.maxBytes) res.destroy();
        });
        const end = () => finish({ status: res.statusCode ?? null, body: Buffer.concat(chunks).toString('utf8') });
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: null, body: '', error: `no answer within ${opts.timeoutMs} ms` });
    }, opts.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({ status: null, body: '', error: UNRESOLVED.has(err.code ?? '') ? NO_PUBLIC_ADDRESS : err.message }),
    );
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}
