// Sign-up, log-in, sessions and the account's own profile (SPEC §5, §16).
import { conflict, DomainError, invalid, notFound, unauthorized } from '../errors.js';
import { isUniqueViolation } from '../../db/errors.js';
import { addDays, isoNow } from '../clock.js';
import type { Deps } from '../deps.js';
import { newSessionToken, sha256 } from '../tokens.js';
import * as store from './account.store.js';
import { isRetiredUsername } from '../privacy/erasure.store.js';
import { checkThrottle, recordFailure, recordSuccess, throttleKeys } from './login-throttle.js';
import { revokeAllApiKeys } from '../api-keys/api-key.store.js';
import { dummyHash, hashPassword, needsRehash, verifyPassword } from './password.js';
import { normaliseEmail, normaliseTopic, SESSION_DAYS } from './rules.js';
import { listMemberships } from '../publishers/publisher.store.js';
import { publicContributor, recomputeReputation } from '../reputation/reputation.store.js';
import { appendChange } from '../changes/change-log.js';

export interface SignupInput {
  email: string;
  password: string;
  name: string;
  username: string;
}

export interface Session {
  token: string;
  expires_at: string;
}

/**
 * Make an account (operators, the demo data, and sign-up below). A taken username is a 409 (usernames are public);
 * a taken email is a 409 here too, which only callers that may know it see. `passwordHash`: a hash made already
 * (the demo accounts share one public password, hashed once).
 */
export async function createAccount(deps: Deps, input: SignupInput, opts: { admin?: boolean; passwordHash?: string } = {}) {
  const email = normaliseEmail(input.email);
  const username = input.username.toLowerCase();
  const password_hash = opts.passwordHash ?? (await hashPassword(input.password, deps.config.scryptLogN));
  // An erased person's username is never given to anyone else (issue 32).
  if ((await store.findAccountByUsername(deps.db, username)) || (await isRetiredUsername(deps.db, username))) throw conflict(`The username ${username} is taken`);
  let accountId: number;
  const now = isoNow(deps.clock);
  try {
    accountId = await deps.db.transaction().execute(async (trx) => {
      const id = await store.insertAccount(trx, { email, username, name: input.name.trim(), password_hash, is_admin: opts.admin ? 1 : 0, now });
      await appendChange(trx, { kind: 'contributor.created', ids: { accountId: id }, data: { contributor: await publicContributor(trx, id) }, now });
      return id;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const taken = await store.findAccountByUsername(deps.db, username);
    throw taken ? conflict(`The username ${username} is taken`) : new EmailTaken();
  }
  // A new account joins the contributor directory.
  await deps.changes.committed();
  return { user_id: accountId, username };
}

class EmailTaken extends DomainError {
  constructor() {
    super('conflict', 'An account with this email already exists');
  }
}

/**
 * Sign-up (SPEC §16, issue 15): the same answer whether or not the email is registered already, since emails are
 * private. Nothing is made for a taken email, and no session is started either way: the new account logs in next,
 * and a log-in is throttled. A taken *username* is still a 409: usernames are public.
 */
export async function signup(deps: Deps, input: SignupInput): Promise<{ username: string }> {
  const username = input.username.toLowerCase();
  try {
    await createAccount(deps, input);
  } catch (err) {
    if (!(err instanceof EmailTaken)) throw err;
  }
  return { username };
}

async function startSession(deps: Deps, accountId: number): Promise<Session> {
  const token = newSessionToken();
  const now = deps.clock.now();
  const expires_at = addDays(now, SESSION_DAYS).toISOString();
  await store.insertSession(deps.db, {
    account_id: accountId,
    token_hash: sha256(token),
    created_at: now.toISOString(),
    expires_at,
  });
  return { token, expires_at };
}

export async function login(deps: Deps, input: { email: string; password: string }, ip: string) {
  const email = normaliseEmail(input.email);
  const keys = throttleKeys(email, ip);
  await checkThrottle(deps, keys);
  const account = await store.findAccountByEmail(deps.db, email);
  // Compare against a dummy hash for an unknown email so the answer takes the same time either way.
  const ok = await verifyPassword(input.password, account?.password_hash ?? dummyHash(deps.config.scryptLogN));
  if (!account || !ok) {
    await recordFailure(deps, keys);
    throw unauthorized('The email or password is wrong');
  }
  await recordSuccess(deps, keys);
  // A hash made at an older cost is replaced now, while the password is at hand.
  if (needsRehash(account.password_hash, deps.config.scryptLogN)) {
    await store.setPasswordHash(deps.db, account.id, await hashPassword(input.password, deps.config.scryptLogN), isoNow(deps.clock));
  }
  const session = await startSession(deps, account.id);
  return { user_id: account.id, username: account.username, ...session };
}

/**
 * A new password, given the current one. Every other session of the account ends (whoever else held one is out);
 * the session making the change stays. With `revoke_api_keys`, every API key of the account is revoked in the same
 * transaction (someone taking back a stolen account wants the thief's keys gone too; off by default, since a CMS's
 * key should not stop because its owner changed a password: issue 30).
 */
export async function changePassword(
  deps: Deps,
  accountId: number,
  sessionId: number,
  input: { current_password: string; new_password: string; revoke_api_keys?: boolean | undefined },
) {
  const account = await store.findAccountById(deps.db, accountId);
  if (!account) throw notFound('Account');
  if (!(await verifyPassword(input.current_password, account.password_hash))) throw invalid('current_password', 'is not your current password');
  if (input.new_password === input.current_password) throw invalid('new_password', 'must differ from the current password');
  const hash = await hashPassword(input.new_password, deps.config.scryptLogN);
  const now = isoNow(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
    await store.setPasswordHash(trx, accountId, hash, now);
    const ended = await store.endSessions(trx, accountId, now, sessionId);
    const revoked = input.revoke_api_keys ? await revokeAllApiKeys(trx, accountId, now) : 0;
    return { other_sessions_ended: ended, api_keys_revoked: revoked };
  });
}

/**
 * "Log out everywhere": every live session of the account ends, the caller's own included; with `revokeApiKeys`,
 * every API key of the account too (as changePassword).
 */
export async function logoutEverywhere(deps: Deps, accountId: number, opts: { revokeApiKeys?: boolean | undefined } = {}) {
  const now = isoNow(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
    const ended = await store.endSessions(trx, accountId, now);
    const revoked = opts.revokeApiKeys ? await revokeAllApiKeys(trx, accountId, now) : 0;
    return { sessions_ended: ended, api_keys_revoked: revoked };
  });
}

/** The live session a token names (not ended, not expired), or null. The one rule for API and cookie sessions. */
export async function findLiveSession(deps: Deps, token: string): Promise<{ id: number; account_id: number } | null> {
  const session = await store.findSessionByHash(deps.db, sha256(token));
  if (!session || session.ended_at || session.expires_at <= deps.clock.now().toISOString()) return null;
  return { id: session.id, account_id: session.account_id };
}

export async function logout(deps: Deps, accountId: number, sessionId: number): Promise<void> {
  await store.endSession(deps.db, sessionId, accountId, isoNow(deps.clock));
}

export async function getOwnAccount(deps: Deps, accountId: number) {
  const account = await store.findAccountById(deps.db, accountId);
  if (!account) throw notFound('Account');
  const memberships = await listMemberships(deps.db, accountId);
  return { account, memberships };
}

export interface ProfilePatch {
  name?: string;
  summary?: string;
  topics?: string[];
}

export async function updateOwnProfile(deps: Deps, accountId: number, patch: ProfilePatch) {
  if (patch.name !== undefined && patch.name.trim() === '') throw invalid('name', 'must not be blank');
  const now = isoNow(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
    const before = new Map([[accountId, await publicContributor(trx, accountId)]]);
    await store.updateProfile(trx, accountId, {
      ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
      ...(patch.summary !== undefined ? { summary: patch.summary.trim() } : {}),
      ...(patch.topics !== undefined ? { topics: JSON.stringify([...new Set(patch.topics.map(normaliseTopic))]) } : {}),
      updated_at: now,
    });
    // Declared topics are part of the account's expertise listing; the change log hears of any public field.
    await recomputeReputation(trx, [accountId], now, before);
  });
  // Names appear in every record the account is part of.
  await deps.changes.committed();
  return getOwnAccount(deps, accountId);
}

/** Operators: make an admin account, or promote the existing one with that email. */
export async function createAdmin(deps: Deps, input: SignupInput): Promise<{ user_id: number; created: boolean }> {
  const existing = await store.findAccountByEmail(deps.db, normaliseEmail(input.email));
  if (existing) {
    await store.setAdmin(deps.db, existing.id);
    return { user_id: existing.id, created: false };
  }
  const r = await createAccount(deps, input, { admin: true });
  return { user_id: r.user_id, created: true };
}
