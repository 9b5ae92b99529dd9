// Sign-up, log-in, sessions and the account's own profile (SPEC §5, §16).
import { conflict, invalid, notFound, rateLimited, unauthorized } from '../errors.js';
import { isUniqueViolation } from '../../db/errors.js';
import { addDays, isoNow } from '../clock.js';
import type { Deps } from '../deps.js';
import { newSessionToken, sha256 } from '../tokens.js';
import * as store from './account.store.js';
import { DUMMY_HASH, hashPassword, verifyPassword } from './password.js';
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

export async function signup(deps: Deps, input: SignupInput, opts: { admin?: boolean } = {}) {
  const email = normaliseEmail(input.email);
  const username = input.username.toLowerCase();
  const password_hash = await hashPassword(input.password);
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
    throw taken ? conflict(`The username ${username} is taken`) : conflict('An account with this email already exists');
  }
  // A new account joins the contributor directory.
  deps.recordCache.invalidateAll();
  const session = await startSession(deps, accountId);
  return { user_id: accountId, username, ...session };
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

// Per account and per address, so neither one password nor one attacker can be ground down (SPEC §5).
const LOGIN_PER_ACCOUNT = { name: 'login-account', capacity: 10, rate: 1 / 30 };
const LOGIN_PER_IP = { name: 'login-ip', capacity: 30, rate: 1 / 10 };

export async function login(deps: Deps, input: { email: string; password: string }, ip: string) {
  const email = normaliseEmail(input.email);
  for (const [key, policy] of [
    [`login:account:${sha256(email)}`, LOGIN_PER_ACCOUNT],
    [`login:ip:${ip}`, LOGIN_PER_IP],
  ] as const) {
    const r = await deps.rateLimiter.limit(key, policy);
    if (!r.allowed) throw rateLimited(r.retryAfterSeconds);
  }
  const account = await store.findAccountByEmail(deps.db, email);
  // Compare against a dummy hash for an unknown email so the answer takes the same time either way.
  const ok = await verifyPassword(input.password, account?.password_hash ?? DUMMY_HASH);
  if (!account || !ok) throw unauthorized('The email or password is wrong');
  const session = await startSession(deps, account.id);
  return { user_id: account.id, username: account.username, ...session };
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
  deps.recordCache.invalidateAll();
  return getOwnAccount(deps, accountId);
}

/** Operators: make an admin account, or promote the existing one with that email. */
export async function createAdmin(deps: Deps, input: SignupInput): Promise<{ user_id: number; created: boolean }> {
  const existing = await store.findAccountByEmail(deps.db, normaliseEmail(input.email));
  if (existing) {
    await store.setAdmin(deps.db, existing.id);
    return { user_id: existing.id, created: false };
  }
  const r = await signup(deps, input, { admin: true });
  return { user_id: r.user_id, created: true };
}
