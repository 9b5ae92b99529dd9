// What every API surface shares, registered in this order on each: its error envelope and 404, then per request
// (1) who is calling, (2) the rate limit for that caller. Routes add their guard and schema after that.
import net from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../domain/deps.js';
import { refuseIfSuspended } from '../domain/moderation/moderation.service.js';
import { resolvePrincipal } from './auth.js';
import { type Envelope, errorHandler, notFoundHandler } from './error-handler.js';
import { rateLimited } from './errors.js';
import { bindingBucket, type RateLimitPolicy, type RateLimitTake, rateLimitHeaders } from './rate-limit.js';

export interface SurfaceOptions {
  envelope: Envelope;
  /**
   * The bucket for this request: the policy and the caller's key, or null for unlimited routes; with `account`, the
   * caller's account's bucket too, which the request spends from as well (all or none).
   */
  rateLimit: (req: FastifyRequest) => { policy: RateLimitPolicy; key: string; account?: RateLimitTake | undefined } | null;
  /** Set a 404 handler for the surface's prefix (false for routes mounted at the root, which has its own). */
  notFound?: boolean;
  /** Identify the caller further before the limit is taken (the web pages read their session cookie); a promise
   * when it has to wait. */
  identify?: (req: FastifyRequest) => Promise<void> | undefined;
  /** The account a request acts for, when the surface knows it other than by credential (the web's cookie). */
  actor?: (req: FastifyRequest) => number | undefined;
  /** Replace the envelope's error handler (the web pages answer errors as pages). */
  errorHandler?: Parameters<FastifyInstance['setErrorHandler']>[0];
}

export function allowlist(entries: string[]): (ip: string) => boolean {
  if (entries.length === 0) return () => false;
  const list = new net.BlockList();
  for (const entry of entries) {
    const [addr, prefix] = entry.split('/');
    if (!addr) continue;
    const family = net.isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (prefix) list.addSubnet(addr, Number(prefix), family);
    else list.addAddress(addr, family);
  }
  // The answer per address is remembered (bounded): BlockList.check builds an address object on every call.
  const known = new Map<string, boolean>();
  return (ip) => {
    let answer = known.get(ip);
    if (answer === undefined) {
      const v4 = ip.replace(/^::ffff:/, '');
      answer = net.isIP(v4) === 4 ? list.check(v4, 'ipv4') : net.isIP(ip) === 6 && list.check(ip, 'ipv6');
      if (known.size >= 10_000) known.clear();
      known.set(ip, answer);
    }
    return answer;
  };
}

export function setupSurface(app: FastifyInstance, deps: Deps, opts: SurfaceOptions): void {
  app.setErrorHandler(opts.errorHandler ?? errorHandler(opts.envelope));
  if (opts.notFound !== false) app.setNotFoundHandler(notFoundHandler(opts.envelope));
  const exempt = allowlist(deps.config.rateLimitAllowlist);

  // An attacker could probe keys or hunt for records without limit if failures were not rate limited too.
  const limit = (req: FastifyRequest, reply: FastifyReply): Promise<void> | undefined => {
    const bucket = opts.rateLimit(req);
    if (!bucket || exempt(req.ip)) return undefined;
    if (bucket.account) {
      // A key's request spends from the key's bucket and from its account's, so an account's keys share one
      // limit however many it makes; the headers name the bucket that binds.
      const takes = [{ key: bucket.key, policy: bucket.policy }, bucket.account];
      return deps.rateLimiter.limitAll(takes).then((results) => {
        const i = bindingBucket(results);
        const headers = rateLimitHeaders(takes[i]!.policy, results[i]!);
        void reply.headers(headers);
        if (!results[i]!.allowed) throw rateLimited(results[i]!.retryAfterSeconds, headers);
      });
    }
    return deps.rateLimiter.limit(bucket.key, bucket.policy).then((result) => {
      const headers = rateLimitHeaders(bucket.policy, result);
      void reply.headers(headers);
      if (!result.allowed) throw rateLimited(result.retryAfterSeconds, headers);
    });
  };
  const identified = async (req: FastifyRequest, lookup: Promise<void>) => {
    await lookup;
    await opts.identify?.(req);
  };
  // Callback-style, with no promise when nothing waits: a caller without a credential, on a route without a limit
  // or from an exempt address (an async hook costs a promise and a microtask turn per request). The
  // steps and their order are the same on both paths: the credential, identify, then the limit.
  // A suspended account writes nothing but leaving, signing out and appealing (reports-and-decisions.md). After the
  // credential and the limit, before the body: a refused write reads nothing of it.
  app.addHook('preParsing', (req, _reply, payload, done) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return done(null, payload);
    const account = opts.actor?.(req) ?? principalAccount(req);
    if (account === undefined || mayWriteWhileSuspended(req)) return done(null, payload);
    refuseIfSuspended(deps, account).then(
      () => done(null, payload),
      (err: Error) => done(err),
    );
  });

  app.addHook('onRequest', (req, reply, done) => {
    const lookup = resolvePrincipal(deps, req);
    let pending: Promise<void> | undefined;
    if (lookup) pending = identified(req, lookup).then(() => limit(req, reply));
    else {
      const identifying = opts.identify?.(req);
      pending = identifying ? identifying.then(() => limit(req, reply)) : limit(req, reply);
    }
    if (pending) pending.then(() => done(), (err: Error) => done(err));
    else done();
  });
}

/** The writes a suspended account may still make: sign out, leave (erasure), appeal. */
const WHILE_SUSPENDED = [/\/auth\/logout(-everywhere)?$/, /^\/logout$/, /^\/me\/security\/(logout-everywhere|sessions\/|delete$)/, /\/decisions\/:id\/appeal$/, /\/account\/sessions\/:id$/];
function mayWriteWhileSuspended(req: FastifyRequest): boolean {
  const url = req.routeOptions.url ?? '';
  if (req.method === 'DELETE' && /^\/api\/v1\/account$/.test(url)) return true;
  return WHILE_SUSPENDED.some((r) => r.test(url));
}

/**
 * The account's own bucket on a surface (`prefix`), for a request made with one of its keys or sessions: a key's
 * policy times ACCOUNT_RATE_LIMIT_MULTIPLE, beside the key's bucket. Undefined for anonymous callers.
 */
export function accountBucket(accountId: number | undefined, prefix: string, policy: RateLimitPolicy): RateLimitTake | undefined {
  return accountId === undefined ? undefined : { key: `${prefix}:account-all:${accountId}`, policy };
}

/** A surface's account policy: its key policy times ACCOUNT_RATE_LIMIT_MULTIPLE. */
export const accountPolicy = (deps: Deps, name: string, key: RateLimitPolicy): RateLimitPolicy => ({
  name,
  capacity: key.capacity * deps.config.accountRateLimitMultiple,
  rate: key.rate * deps.config.accountRateLimitMultiple,
});

/** The account behind the request's credential, if any. */
export const principalAccount = (req: FastifyRequest): number | undefined => (req.principal.kind === 'anonymous' ? undefined : req.principal.accountId);

/** The bucket key for a request: the key or the session's account when there is one, else the address. */
export function callerKey(req: FastifyRequest): { kind: 'key' | 'ip'; id: string } {
  const p = req.principal;
  if (p.kind === 'key') return { kind: 'key', id: `key:${p.keyId}` };
  if (p.kind === 'session') return { kind: 'key', id: `account:${p.accountId}` };
  return { kind: 'ip', id: `ip:${req.ip}` };
}
