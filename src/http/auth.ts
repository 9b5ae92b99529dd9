// Who is calling. Credentials are resolved once per request, before rate limiting (which buckets by key);
// each route then states what it needs with one of the guards below, before its input is validated.
import type { FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import { authenticateKey } from '../domain/api-keys/api-key.service.js';
import { findLiveSession } from '../domain/accounts/account.service.js';
import { findAccountById } from '../domain/accounts/account.store.js';
import type { Deps } from '../domain/deps.js';
import { requireMember } from '../domain/publishers/publisher.service.js';
import { listMemberships } from '../domain/publishers/publisher.store.js';
import { API_KEY_PREFIX, SESSION_PREFIX } from '../domain/tokens.js';
import { DomainError, forbidden, publisherKeyScope, sessionRequired, unauthorized } from './errors.js';

export type Principal =
  | { kind: 'anonymous' }
  | { kind: 'session'; accountId: number; sessionId: number }
  | { kind: 'key'; accountId: number; keyId: number; publisherId: number | null };

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    /** Set when a credential was presented but cannot be used; a guard turns it into the 401. */
    credentialError: DomainError | null;
  }
}

/** The credential in `X-API-Key` or `Authorization: Bearer`, if any; a malformed header is an error. */
// Both headers at once must name the same credential: were one of them ignored, a bad credential would pass
// unnoticed beside a good one, and which one acts would depend on a precedence nobody documents.
export function presentedCredential(req: FastifyRequest): string | DomainError | null {
  const header = req.headers['x-api-key'];
  const apiKey = typeof header === 'string' && header.trim().length > 0 ? header.trim() : null;
  const authz = req.headers.authorization;
  if (!authz) return apiKey;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
  if (!m?.[1]) return unauthorized('The Authorization header must be "Bearer <API key or session token>"');
  if (apiKey !== null && apiKey !== m[1]) {
    return unauthorized('X-API-Key and Authorization name different credentials; send one of them');
  }
  return m[1];
}

/**
 * Sets req.principal and req.credentialError. Without a credential, or with a malformed header, that is done when
 * this returns (undefined); a credential to look up gives a promise, settled when it is done.
 */
// Not an async function: most requests carry no credential, and the surface's hook then goes on without an await.
export function resolvePrincipal(deps: Deps, req: FastifyRequest): Promise<void> | undefined {
  req.principal = { kind: 'anonymous' };
  req.credentialError = null;
  const credential = presentedCredential(req);
  if (credential === null) return undefined;
  if (credential instanceof DomainError) {
    req.credentialError = credential;
    return undefined;
  }
  return lookUpCredential(deps, req, credential);
}

async function lookUpCredential(deps: Deps, req: FastifyRequest, credential: string): Promise<void> {
  try {
    if (credential.startsWith(API_KEY_PREFIX)) {
      const key = await authenticateKey(deps, credential);
      req.principal = { kind: 'key', ...key };
    } else if (credential.startsWith(SESSION_PREFIX)) {
      const session = await findLiveSession(deps, credential);
      if (!session) throw unauthorized('The session has ended or expired; log in again');
      req.principal = { kind: 'session', accountId: session.account_id, sessionId: session.id };
    } else {
      throw unauthorized('The credential is not an API key or a session token');
    }
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    req.credentialError = err;
  }
}

type Guard = (req: FastifyRequest, reply: FastifyReply) => Promise<void>;

const GUARDS = new WeakSet<Guard>();
/** A guard that needs a credential: on routes that take a body, buildApp runs it before the body is read. */
function guard(g: Guard): Guard {
  GUARDS.add(g);
  return g;
}
export const isGuard = (hook: unknown): hook is Guard => GUARDS.has(hook as Guard);

function rejectBadCredential(req: FastifyRequest): void {
  if (req.credentialError) throw req.credentialError;
}

/** Public routes: no credential needed, but a presented one that cannot be used is still a 401. */
// Callback-style, unlike the guards below: it runs before every public read, and an async hook costs a promise and a
// microtask turn per request.
export const optional: preValidationHookHandler = (req, _reply, done) => done(req.credentialError ?? undefined);

/** Any signed-in caller: a session or a key. */
export const signedIn: Guard = guard(async (req) => {
  rejectBadCredential(req);
  if (req.principal.kind === 'anonymous') throw unauthorized();
});

/** Account management: a session token, never a key (SPEC §5, seed rule 6). */
export const sessionOnly: Guard = guard(async (req) => {
  rejectBadCredential(req);
  if (req.principal.kind === 'anonymous') throw unauthorized('A session token is required');
  if (req.principal.kind === 'key') throw sessionRequired();
});

/**
 * Operator routes (SPEC §5): an admin's session. No credential is a 401, a key 403 `session_required` (as on every
 * session route), another account's session 403 `forbidden`. Admin rights are read on every call, so taking them
 * away takes effect at once.
 */
export function adminOnly(deps: Deps): Guard {
  return guard(async (req, reply) => {
    await sessionOnly(req, reply);
    const account = await findAccountById(deps.db, sessionOf(req).accountId);
    if (account?.is_admin !== 1) throw forbidden('Only an admin can do this');
  });
}


/** Publisher actions: a publisher key, or a session of a member (the publisher chosen by `publisher`). */
export const publisherCaller: Guard = guard(async (req) => {
  rejectBadCredential(req);
  if (req.principal.kind === 'anonymous') throw unauthorized();
  if (req.principal.kind === 'key' && req.principal.publisherId === null) {
    throw forbidden('This is a contributor key; publisher actions need a key made for a publisher');
  }
});

export function accountOf(req: FastifyRequest): number {
  if (req.principal.kind === 'anonymous') throw unauthorized();
  return req.principal.accountId;
}

export function sessionOf(req: FastifyRequest): { accountId: number; sessionId: number } {
  if (req.principal.kind !== 'session') throw sessionRequired();
  return req.principal;
}

/**
 * The publisher a publisher action acts for: a publisher key's own, or for a session, the `publisher` the caller
 * names (or their only publication). Members only.
 */
export async function actingPublisher(deps: Deps, req: FastifyRequest, slug?: string): Promise<number> {
  const p = req.principal;
  if (p.kind === 'anonymous') throw unauthorized();
  if (p.kind === 'key') {
    if (p.publisherId === null) throw forbidden('This is a contributor key; publisher actions need a key made for a publisher');
    return p.publisherId;
  }
  if (slug) return (await requireMember(deps, p.accountId, slug)).publisher.id;
  const memberships = await listMemberships(deps.db, p.accountId);
  if (memberships.length === 1) return memberships[0]!.id;
  if (memberships.length === 0) throw forbidden('This account is not a member of any publication');
  throw new DomainError('missing_parameter', 'This account belongs to several publications; name one with ?publisher=<slug>', [
    { field: 'publisher', message: 'is required when the account belongs to several publications' },
  ]);
}

/** A person's own work (take, submit, withdraw; the claims and interests about it): a session or a contributor key; a
 * publisher key acts for its publisher only (SPEC §5, seed 001 §5.2): 403 `publisher_key_scope`. */
export const contributorCaller: Guard = guard(async (req) => {
  rejectBadCredential(req);
  if (req.principal.kind === 'anonymous') throw unauthorized();
  if (req.principal.kind === 'key' && req.principal.publisherId !== null) throw publisherKeyScope();
});

/** Publications a publisher read or decision may cover: a key's own; a session's named one, or all of its own. */
export async function actingPublishers(deps: Deps, req: FastifyRequest, slug?: string): Promise<number[]> {
  const p = req.principal;
  if (p.kind === 'session' && !slug) {
    const memberships = await listMemberships(deps.db, p.accountId);
    if (memberships.length === 0) throw forbidden('This account is not a member of any publication');
    return memberships.map((m) => m.id);
  }
  return [await actingPublisher(deps, req, slug)];
}
