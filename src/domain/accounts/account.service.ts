// Sign-up, log-in, sessions and the account's own profile (SPEC §5, §16).
import { conflict, DomainError, invalid, notFound, unauthorized } from '../errors.js';
import { isUniqueViolation } from '../../db/errors.js';
import { addDays, isoNow } from '../clock.js';
import { deviceOf } from './device.js';
import type { Db, Deps } from '../deps.js';
import { newSessionToken, sha256 } from '../tokens.js';
import * as store from './account.store.js';
import { isRetiredUsername } from '../privacy/erasure.store.js';
import { ATTEMPTS_IN_FLIGHT_PER_ADDRESS, checkThrottle, recordFailure, recordSuccess, throttleKeys } from './login-throttle.js';
import { revokeAllApiKeys } from '../api-keys/api-key.store.js';
import { normaliseEmail, normaliseTopic, SESSION_DAYS } from './rules.js';
import { listMemberships } from '../publishers/publisher.store.js';
import { publicContributor, recomputeReputation } from '../reputation/reputation.store.js';
import { appendChange } from '../changes/change-log.js';
import { CONFIRM_HOURS, type Locale, RESET_HOURS } from '../mail/mail.kinds.js';
import { enqueueMail, issueToken } from '../mail/mail.service.js';
import * as mailStore from '../mail/mail.store.js';
import { rateLimited } from '../errors.js';

export interface SignupInput {
  email: string;
  password: string;
  name: string;
  username: string;
  /** The language of the account's mail (from the sign-up's Accept-Language). */
  locale?: Locale;
}

export interface Session {
  token: string;
  expires_at: string;
}

/**
 * Make an account (operators, the demo data, and sign-up below). A taken username is a 409 (usernames are public;
 * a username held by a sign-up for a registered address is taken too); a taken email is a 409 here too, which only
 * callers that may know it see. `passwordHash`: a hash made already (the demo accounts share one public password,
 * hashed once). Accounts operators and the demo make are confirmed; sign-up's are not (`confirmed: false`), and
 * `then` runs in the same transaction (sign-up queues the confirmation mail there).
 */
export async function createAccount(
  deps: Deps,
  input: SignupInput,
  opts: { admin?: boolean; passwordHash?: string; confirmed?: boolean; then?: (trx: Db, accountId: number) => Promise<void> } = {},
) {
  const email = normaliseEmail(input.email);
  const username = input.username.toLowerCase();
  const password_hash = opts.passwordHash ?? (await deps.passwords.hash(input.password, 'signup'));
  await assertUsernameFree(deps, username);
  let accountId: number;
  const now = isoNow(deps.clock);
  const confirmed = opts.confirmed ?? true;
  try {
    accountId = await deps.db.transaction().execute(async (trx) => {
      const id = await store.insertAccount(trx, {
        email,
        username,
        name: input.name.trim(),
        password_hash,
        is_admin: opts.admin ? 1 : 0,
        now,
        email_confirmed_at: confirmed ? now : null,
        locale: input.locale ?? 'en',
      });
      // An unconfirmed account is not public yet: it joins the directory (and the change log) when confirmed.
      if (confirmed) await appendChange(trx, { kind: 'contributor.created', ids: { accountId: id }, data: { contributor: await publicContributor(trx, id) }, now });
      await opts.then?.(trx, id);
      return id;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const taken = await store.findAccountByUsername(deps.db, username);
    throw taken ? conflict(`The username ${username} is taken`) : new EmailTaken();
  }
  // A new account joins the contributor directory.
  if (confirmed) await deps.changes.committed();
  return { user_id: accountId, username };
}

async function assertUsernameFree(deps: Deps, username: string): Promise<void> {
  // An erased person's username is never given to anyone else; nor one held by the sign-up probe's cover.
  if ((await store.findAccountByUsername(deps.db, username)) || (await mailStore.usernameHeld(deps.db, username)) || (await isRetiredUsername(deps.db, username))) {
    throw conflict(`The username ${username} is taken`);
  }
}

class EmailTaken extends DomainError {
  constructor() {
    super('conflict', 'An account with this email already exists');
  }
}

/**
 * Sign-up (SPEC §16): the same answer whether or not the email is registered already, since
 * emails are private. A new address gets an unconfirmed account and a confirmation link; a registered one gets
 * "you already have an account" mail, and the username asked for is held just as a new account would hold it, so
 * neither the answer, nor a second sign-up with that username, nor its public profile (none until confirmed) tells
 * the two apart. No session is started either way. A taken *username* is still a 409: usernames are public.
 */
export async function signup(deps: Deps, input: SignupInput): Promise<{ username: string }> {
  const username = input.username.toLowerCase();
  const existing = await store.findAccountByEmail(deps.db, normaliseEmail(input.email));
  if (!existing) {
    try {
      await createAccount(deps, input, {
        confirmed: false,
        then: async (trx, id) => {
          if (!(await addressMayGetMail(deps, input.email))) return;
          const token = await issueToken(trx, deps, id, 'confirm', CONFIRM_HOURS);
          await enqueueMail(trx, deps, { accountId: id, kind: 'confirm_address', fact: { token, hours: CONFIRM_HOURS } });
        },
      });
      return { username };
    } catch (err) {
      // Registered meanwhile by a sign-up racing this one: answered as below.
      if (!(err instanceof EmailTaken)) throw err;
    }
  }
  // As long as a new account's password hash takes, doing none, so the answer takes as long.
  await deps.passwords.imitate();
  await assertUsernameFree(deps, username);
  const owner = existing ?? (await store.findAccountByEmail(deps.db, normaliseEmail(input.email)));
  const mayMail = await addressMayGetMail(deps, input.email);
  await deps.db.transaction().execute(async (trx) => {
    await mailStore.holdUsername(trx, username, isoNow(deps.clock));
    if (owner && mayMail) await enqueueMail(trx, deps, { accountId: owner.id, kind: 'already_registered', fact: {} });
  });
  return { username };
}

/**
 * What an unconfirmed account cannot do (docs/decisions/sign-up-and-email-confirmation.md): be named (as an author, a panel expert or a member), take
 * requests, submit work, or make API keys. Everything else (signing in, its own pages, its profile) works.
 */
export async function assertConfirmed(db: Db, accountId: number): Promise<void> {
  const account = await db.selectFrom('accounts').select('email_confirmed_at').where('id', '=', accountId).executeTakeFirst();
  if (account && !account.email_confirmed_at) {
    throw new DomainError('forbidden', 'Confirm your email address first: follow the link in the mail sent at sign-up (or ask for a new one on /me)');
  }
}

/**
 * Operators (`credence account:confirm`), the demo data and test set-ups: confirm an account's address by hand,
 * as its link would. False when no account has the address.
 */
export async function confirmByOperator(db: Db, email: string, now: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const account = await store.findAccountByEmail(trx, normaliseEmail(email));
    if (!account) return false;
    if (account.email_confirmed_at) return true;
    await store.confirmEmail(trx, account.id, now);
    await mailStore.voidTokens(trx, account.id, 'confirm', now);
    await appendChange(trx, { kind: 'contributor.created', ids: { accountId: account.id }, data: { contributor: await publicContributor(trx, account.id) }, now });
    return true;
  });
}

/** A new confirmation link for the account's own address (the first one was lost or ran out). */
export async function resendConfirmation(deps: Deps, accountId: number): Promise<{ sent: boolean }> {
  const account = await store.findAccountById(deps.db, accountId);
  if (!account) throw notFound('Account');
  if (account.email_confirmed_at) return { sent: false };
  await accountMayAskForLinks(deps, accountId);
  if (!(await addressMayGetMail(deps, account.email))) return { sent: false };
  await deps.db.transaction().execute(async (trx) => {
    const token = await issueToken(trx, deps, accountId, 'confirm', CONFIRM_HOURS);
    await enqueueMail(trx, deps, { accountId, kind: 'confirm_address', fact: { token, hours: CONFIRM_HOURS } });
  });
  return { sent: true };
}

/**
 * A confirmation link, used: the account's address is confirmed (it then joins the public directory), or, for an
 * address change, the new address replaces the old one and the old one is told. Works once; a used, expired or
 * unknown link is a 404, and so is a new address another account confirmed meanwhile.
 */
export async function confirmEmail(deps: Deps, token: string): Promise<{ username: string; changed: boolean }> {
  const now = isoNow(deps.clock);
  let newlyPublic = false;
  const result = await deps.db.transaction().execute(async (trx) => {
    const link = await mailStore.spendToken(trx, 'confirm', sha256(token), now);
    if (!link) throw notFound('Confirmation link');
    const account = await store.findAccountById(trx, link.account_id);
    if (!account) throw notFound('Confirmation link');
    let changed = false;
    if (link.email && link.email !== account.email) {
      if (await store.findAccountByEmail(trx, link.email)) throw notFound('Confirmation link');
      // The old address hears of it (queued before the change, so it goes to the old address).
      await enqueueMail(trx, deps, { accountId: account.id, kind: 'address_changed', fact: {} });
      await store.setEmail(trx, account.id, link.email, now);
      changed = true;
    }
    if (!account.email_confirmed_at) {
      await store.confirmEmail(trx, account.id, now);
      await appendChange(trx, { kind: 'contributor.created', ids: { accountId: account.id }, data: { contributor: await publicContributor(trx, account.id) }, now });
      newlyPublic = true;
    }
    await mailStore.voidTokens(trx, account.id, 'confirm', now);
    return { username: account.username, changed };
  });
  if (newlyPublic) await deps.changes.committed();
  return result;
}

/**
 * Change the account's address: the current password proves it is the owner; the new address gets a confirmation
 * link and changes nothing until it is used. The answer is the same whether or not another account has the new
 * address (then no mail is sent).
 */
export async function requestEmailChange(deps: Deps, accountId: number, input: { new_email: string; current_password: string }): Promise<void> {
  const account = await store.findAccountById(deps.db, accountId);
  if (!account) throw notFound('Account');
  if (!(await deps.passwords.verify(input.current_password, account.password_hash, `account:${accountId}`))) throw invalid('current_password', 'is not your current password');
  const email = normaliseEmail(input.new_email);
  if (email === account.email) throw invalid('new_email', 'is your current address');
  await accountMayAskForLinks(deps, accountId);
  if (await store.findAccountByEmail(deps.db, email)) return;
  if (!(await addressMayGetMail(deps, email))) return;
  await deps.db.transaction().execute(async (trx) => {
    const token = await issueToken(trx, deps, accountId, 'confirm', CONFIRM_HOURS, email);
    await enqueueMail(trx, deps, { accountId, kind: 'confirm_address', fact: { token, hours: CONFIRM_HOURS }, to: email });
  });
}

/**
 * Mail one address can be sent because of what others do (sign-ups naming it, new links, address changes to it),
 * in an hour: past it the answer is the same and no mail goes, so nobody can flood an inbox through the service.
 */
export const MAIL_PER_ADDRESS = { name: 'mail-address', capacity: 3, rate: 3 / 3600 };
/** New confirmation links and address changes one account may ask for in an hour (then 429). */
export const LINKS_PER_ACCOUNT = { name: 'mail-links-account', capacity: 5, rate: 5 / 3600 };

async function addressMayGetMail(deps: Deps, email: string): Promise<boolean> {
  return (await deps.rateLimiter.limit(`mail:address:${sha256(normaliseEmail(email))}`, MAIL_PER_ADDRESS)).allowed;
}

async function accountMayAskForLinks(deps: Deps, accountId: number): Promise<void> {
  const r = await deps.rateLimiter.limit(`mail:links:${accountId}`, LINKS_PER_ACCOUNT);
  if (!r.allowed) throw rateLimited(Math.max(1, Math.ceil(r.retryAfterSeconds)));
}

/** Password resets asked for per address and per caller's IP address, each in an hour. */
export const RESET_PER_ADDRESS = { name: 'password-reset-address', capacity: 3, rate: 3 / 3600 };
export const RESET_PER_IP = { name: 'password-reset-ip', capacity: 10, rate: 10 / 3600 };

/**
 * "Forgot your password?": a reset link (one hour, once) to the address if an account has it, and the same answer
 * either way. Too many requests from one IP address are a 429; too many for one address are answered as usual and
 * send nothing (a 429 there would tell that the address was asked about before, and the inbox is not flooded).
 */
export async function requestPasswordReset(deps: Deps, input: { email: string }, ip: string): Promise<void> {
  const email = normaliseEmail(input.email);
  const byIp = await deps.rateLimiter.limit(`password-reset:ip:${ip}`, RESET_PER_IP);
  if (!byIp.allowed) throw rateLimited(Math.max(1, Math.ceil(byIp.retryAfterSeconds)));
  const byAddress = await deps.rateLimiter.limit(`password-reset:address:${sha256(email)}`, RESET_PER_ADDRESS);
  if (!byAddress.allowed) return;
  const account = await store.findAccountByEmail(deps.db, email);
  if (!account) return;
  await deps.db.transaction().execute(async (trx) => {
    const token = await issueToken(trx, deps, account.id, 'reset', RESET_HOURS);
    await enqueueMail(trx, deps, { accountId: account.id, kind: 'password_reset', fact: { token } });
  });
}

/** Whether a reset link can still be used (the page asks before showing its form). */
/**
 * What a live confirmation link would confirm: the address and the account's username, for the page its holder
 * opens. The holder read the mail sent to that address, so naming it tells them nothing they do not know.
 */
export async function confirmationTarget(deps: Deps, token: string): Promise<{ email: string; username: string } | null> {
  const link = await mailStore.liveToken(deps.db, 'confirm', sha256(token), isoNow(deps.clock));
  if (!link) return null;
  const account = await store.findAccountById(deps.db, link.account_id);
  return account ? { email: link.email ?? account.email, username: account.username } : null;
}

export async function resetLinkIsLive(deps: Deps, token: string): Promise<boolean> {
  return Boolean(await mailStore.liveToken(deps.db, 'reset', sha256(token), isoNow(deps.clock)));
}

/**
 * A reset link, used: the new password is set, every session of the account ends, and every other reset link
 * too; unless `revoke_api_keys` is false, every API key of the account is revoked as well (a reset is how a stolen
 * account is taken back, and keys made by whoever held it would outlive the new password). The link worked because
 * its holder reads the account's mail, so an unconfirmed address is confirmed by it.
 */
export async function completePasswordReset(
  deps: Deps,
  input: { token: string; password: string; revoke_api_keys?: boolean },
): Promise<{ sessions_ended: number; api_keys_revoked: number }> {
  const hash = await deps.passwords.hash(input.password, 'reset');
  const now = isoNow(deps.clock);
  let newlyPublic = false;
  const out = await deps.db.transaction().execute(async (trx) => {
    const link = await mailStore.spendToken(trx, 'reset', sha256(input.token), now);
    if (!link) throw notFound('Reset link');
    await store.setPasswordHash(trx, link.account_id, hash, now);
    const ended = await store.endSessions(trx, link.account_id, now);
    await mailStore.voidTokens(trx, link.account_id, 'reset', now);
    const revoked = input.revoke_api_keys === false ? 0 : await revokeAllApiKeys(trx, link.account_id, now);
    const account = await store.findAccountById(trx, link.account_id);
    if (account && !account.email_confirmed_at) {
      await store.confirmEmail(trx, account.id, now);
      await appendChange(trx, { kind: 'contributor.created', ids: { accountId: account.id }, data: { contributor: await publicContributor(trx, account.id) }, now });
      newlyPublic = true;
    }
    return { sessions_ended: ended, api_keys_revoked: revoked };
  });
  if (newlyPublic) await deps.changes.committed();
  return out;
}

async function startSession(deps: Deps, accountId: number, userAgent: string | undefined): Promise<Session> {
  const token = newSessionToken();
  const now = deps.clock.now();
  const expires_at = addDays(now, SESSION_DAYS).toISOString();
  await store.insertSession(deps.db, {
    account_id: accountId,
    token_hash: sha256(token),
    created_at: now.toISOString(),
    expires_at,
    device: deviceOf(userAgent),
  });
  return { token, expires_at };
}

/** The account's live sessions, newest first, the caller's own marked: what /me/security and the API list. */
export async function listSessions(deps: Deps, accountId: number, currentSessionId: number) {
  const rows = await store.liveSessions(deps.db, accountId, isoNow(deps.clock));
  return rows.map((r) => ({ id: r.id, device: r.device ?? 'An unknown browser', created_at: r.created_at, expires_at: r.expires_at, current: r.id === currentSessionId }));
}

/** Sign one of the account's sessions out (another account's, or an ended one, is a 404 as if it did not exist). */
export async function endOwnSession(deps: Deps, accountId: number, sessionId: number): Promise<void> {
  if (!(await store.endSession(deps.db, sessionId, accountId, isoNow(deps.clock)))) throw notFound('Session');
}

/** Sign every other session of the account out; how many ended. */
export const endOtherSessions = (deps: Deps, accountId: number, currentSessionId: number) =>
  store.endSessions(deps.db, accountId, isoNow(deps.clock), currentSessionId);

/**
 * `signal`: aborted when the caller's client has gone; a log-in still waiting for its turn then leaves the queue
 * without hashing (Passwords).
 */
export async function login(deps: Deps, input: { email: string; password: string }, ip: string, userAgent?: string, signal?: AbortSignal) {
  const email = normaliseEmail(input.email);
  const keys = throttleKeys(email, ip);
  // Held from here to the answer, for known and unknown emails alike, so the bound says nothing of which exist.
  const hold = deps.passwords.hold(`ip:${ip}`, ATTEMPTS_IN_FLIGHT_PER_ADDRESS);
  if (!hold) throw rateLimited(1);
  try {
    const { addressFailures } = await checkThrottle(deps, keys);
    const account = await store.findAccountByEmail(deps.db, email);
    // An unknown email takes its turn and waits as long as a verification, with no hashing (password.ts).
    const turn = { rank: addressFailures, account: email, signal };
    let ok = false;
    if (account) ok = await deps.passwords.verify(input.password, account.password_hash, hold, turn);
    else await deps.passwords.imitate(hold, turn);
    if (!account || !ok) {
      await recordFailure(deps, keys);
      throw unauthorized('The email or password is wrong');
    }
    await recordSuccess(deps, keys);
    // A hash made at an older cost is replaced now, while the password is at hand.
    if (deps.passwords.needsRehash(account.password_hash)) {
      await store.setPasswordHash(deps.db, account.id, await deps.passwords.hash(input.password, hold), isoNow(deps.clock));
    }
    const session = await startSession(deps, account.id, userAgent);
    return { user_id: account.id, username: account.username, ...session };
  } finally {
    hold.release();
  }
}

/**
 * A new password, given the current one. Every other session of the account ends (whoever else held one is out);
 * the session making the change stays. With `revoke_api_keys`, every API key of the account is revoked in the same
 * transaction (someone taking back a stolen account wants the thief's keys gone too; off by default, since a CMS's
 * key should not stop because its owner changed a password).
 */
export async function changePassword(
  deps: Deps,
  accountId: number,
  sessionId: number,
  input: { current_password: string; new_password: string; revoke_api_keys?: boolean | undefined },
) {
  const account = await store.findAccountById(deps.db, accountId);
  if (!account) throw notFound('Account');
  if (!(await deps.passwords.verify(input.current_password, account.password_hash, `account:${accountId}`))) throw invalid('current_password', 'is not your current password');
  if (input.new_password === input.current_password) throw invalid('new_password', 'must differ from the current password');
  const hash = await deps.passwords.hash(input.new_password, `account:${accountId}`);
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
