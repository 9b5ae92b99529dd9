// Every route of the app in one table: what credential it needs and how to make one valid call to it. The security
// suite (auth.security.test.ts) runs its auth-failure cases on every authenticated row, the fuzz suite
// (fuzz.error.test.ts) throws bad input at every row, and a coverage test fails when the app grows a route this
// table does not name, so a new route cannot skip either suite.
import { randomBytes } from 'node:crypto';
import { WebhookRelay } from '../../src/jobs/relay.js';
import type { Resolve } from '../../src/net/safe-fetch.js';
import { type Config, testConfig } from '../../src/config.js';
import { expect } from 'vitest';
import { createAdmin } from '../../src/domain/accounts/account.service.js';
import { issueToken } from '../../src/domain/mail/mail.service.js';
import * as moderation from '../../src/domain/moderation/moderation.service.js';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { BUCKET_HEX } from '../../src/domain/pages/key-hash.js';
import { Client, randomIp } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import type { TestApp } from '../harness.js';
import { witnessedLog } from './witnessed-log.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * - `none`: public; a presented credential is still checked (a bad one is a 401).
 * - `session`: a session token only; an API key is 403 `session_required`.
 * - `admin`: an admin's session only; a key is 403 `session_required`, anyone else's session 403 `forbidden`.
 * - `publisher`: a publisher key, or the session of a member of the publication; a contributor key is 403.
 * - `contributor`: a contributor key or any session; a publisher key acts for its publisher only, so it is 403.
 * - `signedIn`: any session or key.
 */
export type AuthKind = 'none' | 'session' | 'admin' | 'publisher' | 'contributor' | 'signedIn';

/** The people and things a valid call needs, made once per test file by `makeWorld`. */
export interface World {
  t: TestApp;
  /** Owner of `pub`; session and publisher routes are called as this account unless a row says otherwise. */
  owner: TestUser;
  /** A publication with a verified domain and a publisher key of `owner`. */
  pub: TestPublisher;
  /** A page registered to `pub`. */
  page: { id: number; url: string };
  /** An account in no publication, with a contributor key (made with `publisher: null`). */
  contributor: TestUser;
  contributorKey: string;
  /** An account `owner` may add to `pub` as a member. */
  teammate: TestUser;
  /** An account that creates publications, so `owner` stays in exactly one (the /v1 routes cannot name one). */
  founder: TestUser;
  /** An operator's session (`createAdmin`, then a real login). */
  admin: { id: number; token: string };
  /** An accepted contribution: the author `owner` on `page`. */
  contributionId: number;
  /** An open request on `pub`'s pages. */
  requestId: number;
  /** An issued panel statement. */
  panelId: string;
  /** A webhook of `owner` with one delivery attempted (withWork). */
  attempted?: number;
}

export interface RouteSpec {
  method: Method;
  /** As the OpenAPI documents write it: `/api/v1/account/api-keys/{id}`. */
  path: string;
  auth: AuthKind;
  /** Routes without an OpenAPI entry (health, docs, the documents themselves). */
  hidden?: boolean;
  /** Path parameters for a valid call; may make what they name (a key to revoke). */
  params?: (w: World) => Promise<Record<string, string>> | Record<string, string>;
  query?: (w: World) => Record<string, string>;
  /** A valid body: every field the route takes, so the fuzz suite varies each one. May make what it names. */
  body?: (w: World) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** The session a valid session call uses, when it is not the kind's default (see `sessionFor`). */
  as?: (w: World) => string;
  /** The statuses a valid call answers with. */
  ok: number[];
  /** A protocol that takes a text body, not JSON (C2SP tlog-witness): the JSON body probes do not apply. */
  textBody?: boolean;
  /** A valid text body, for a `textBody` row. */
  text?: (w: World) => Promise<string> | string;
  /** The valid call ends the credential it is made with (logout): callers use a fresh session for it. */
  endsSession?: boolean;
  /** The body is one item or an array of at most 500, answered item by item (SPEC §9). */
  batch?: boolean;
  /**
   * Embeds: made for readers' browsers, which send no credential, so a presented one is neither needed nor checked,
   * and the body is the seed's `{html}` (no `success`).
   */
  embed?: boolean;
}

export const unique = () => randomBytes(4).toString('hex');

/** A fresh account invited to a publication by one of its owners, and accepting: a member. */
async function joinedMember(w: World, slug: string, owner: Client): Promise<TestUser> {
  const u = await signup(w.t);
  expect((await owner.post(`/api/v1/account/publishers/${slug}/members`, { username: u.username, role: 'editor' })).status).toBe(202);
  const id = (await u.client.get('/api/v1/account/publisher-invitations')).body.data[0].id as number;
  expect((await u.client.post(`/api/v1/account/publisher-invitations/${id}/accept`)).status).toBe(200);
  return u;
}

/** An invitation waiting for `who`: to a new publication of the founder each time. */
async function invitationFor(w: World, who: TestUser): Promise<number> {
  const slug = `invite-${unique()}`;
  expect((await w.founder.client.post('/api/v1/account/publishers', { name: 'Inviting', slug })).status).toBe(201);
  expect((await w.founder.client.post(`/api/v1/account/publishers/${slug}/members`, { username: who.username, role: 'editor' })).status).toBe(202);
  const mine = await who.client.get('/api/v1/account/publisher-invitations');
  return (mine.body.data as { id: number; publisher: { slug: string } }[]).find((i) => i.publisher.slug === slug)!.id;
}

const transferTo = new WeakMap<World, string>();

/** A live link of a fresh account (its reset ends only that account's sessions), as a mail would carry. */
async function linkFor(w: World, purpose: 'confirm' | 'reset' | 'unsubscribe'): Promise<string> {
  const u = await signup(w.t);
  const deps = w.t.runtime.deps;
  return issueToken(deps.db, deps, u.id, purpose, 1, purpose === 'unsubscribe' ? 'webhook_disabled' : null);
}

export const ROUTES: RouteSpec[] = [
  // Sessions and who is calling.
  { method: 'POST', path: '/api/v1/auth/signup', auth: 'none', ok: [202], body: () => signupBody() },
  {
    method: 'POST',
    path: '/api/v1/auth/login',
    auth: 'none',
    ok: [200],
    body: (w) => ({ email: w.owner.email, password: w.owner.password }),
  },
  // Mail: links answered by their token, no sign-in. Each valid call gets a live link of its own.
  { method: 'POST', path: '/api/v1/auth/confirm-email', auth: 'none', ok: [200], body: async (w) => ({ token: await linkFor(w, 'confirm') }) },
  { method: 'POST', path: '/api/v1/auth/password-reset', auth: 'none', ok: [202], body: () => ({ email: `reset-${unique()}@mail.test` }) },
  {
    method: 'POST',
    path: '/api/v1/auth/password-reset/complete',
    auth: 'none',
    ok: [200],
    body: async (w) => ({ token: await linkFor(w, 'reset'), password: 'a long enough password' }),
  },
  { method: 'POST', path: '/api/v1/auth/unsubscribe', auth: 'none', ok: [200], body: async (w) => ({ token: await linkFor(w, 'unsubscribe') }) },
  {
    method: 'POST',
    path: '/api/v1/account/email',
    auth: 'session',
    ok: [202],
    body: (w) => ({ new_email: `moving-${unique()}@mail.test`, current_password: w.owner.password }),
  },
  { method: 'POST', path: '/api/v1/account/email/confirmation', auth: 'session', ok: [202] },
  { method: 'GET', path: '/api/v1/account/notices', auth: 'session', ok: [200] },
  { method: 'PATCH', path: '/api/v1/account/notices', auth: 'session', ok: [200], body: () => ({ named_on_page: true, webhook_disabled: true }) },
  { method: 'POST', path: '/api/v1/auth/logout', auth: 'session', ok: [200], endsSession: true },
  { method: 'POST', path: '/api/v1/auth/logout-everywhere', auth: 'session', ok: [200], endsSession: true },
  { method: 'GET', path: '/api/v1/account/sessions', auth: 'session', ok: [200] },
  {
    method: 'DELETE',
    path: '/api/v1/account/sessions/{id}',
    auth: 'session',
    ok: [200],
    // Another session of the owner's, signed in for the call: ending it touches no credential a test holds.
    params: async (w) => ({ id: String(await newOwnerSessionId(w)) }),
  },
  {
    method: 'POST',
    path: '/api/v1/account/password',
    auth: 'session',
    ok: [200],
    // The founder's one session makes the change (and stays); the password is reset first, so every call is valid.
    as: (w) => w.founder.token,
    body: async (w) => {
      const { hashPassword } = await import('../../src/domain/accounts/password.js');
      const hash = await hashPassword(w.founder.password, w.t.config.scryptLogN);
      await w.t.runtime.deps.db.updateTable('accounts').set({ password_hash: hash }).where('id', '=', w.founder.id).execute();
      return { current_password: w.founder.password, new_password: `new ${unique()} password` };
    },
  },
  { method: 'GET', path: '/api/v1/whoami', auth: 'signedIn', ok: [200] },

  // The account (session only).
  { method: 'GET', path: '/api/v1/account', auth: 'session', ok: [200] },
  // Leaving: a fresh account each time (the factories' password), since a valid call erases it.
  { method: 'DELETE', path: '/api/v1/account', auth: 'session', ok: [200], endsSession: true, body: () => ({ password: 'correct horse battery' }) },
  { method: 'GET', path: '/api/v1/account/export', auth: 'session', ok: [200] },
  {
    method: 'PATCH',
    path: '/api/v1/account/profile',
    auth: 'session',
    ok: [200],
    body: () => ({ name: 'Pat Owner', summary: 'Edits things', topics: ['health', 'science'] }),
  },
  {
    method: 'POST',
    path: '/api/v1/account/publishers',
    auth: 'session',
    ok: [201],
    as: (w) => w.founder.token,
    body: () => ({ name: 'The Daily', slug: `daily-${unique()}` }),
  },
  {
    method: 'GET',
    path: '/api/v1/account/publishers/{slug}/members',
    auth: 'session',
    ok: [200],
    params: (w) => ({ slug: w.pub.slug }),
  },
  {
    method: 'POST',
    path: '/api/v1/account/publishers/{slug}/members',
    auth: 'session',
    ok: [200, 202],
    params: (w) => ({ slug: w.pub.slug }),
    body: (w) => ({ username: w.teammate.username, role: 'editor' }),
  },
  // Membership: removal, transfer, invitations, a publication's keys.
  {
    method: 'DELETE',
    path: '/api/v1/account/publishers/{slug}/members/{username}',
    auth: 'session',
    ok: [200],
    params: async (w) => ({ slug: w.pub.slug, username: (await joinedMember(w, w.pub.slug, w.owner.client)).username }),
  },
  {
    method: 'POST',
    path: '/api/v1/account/publishers/{slug}/transfer',
    auth: 'session',
    ok: [200],
    // The founder's own new publication changes hands, so the world's owner stays the owner of its publication.
    as: (w) => w.founder.token,
    params: async (w) => {
      const slug = `hand-${unique()}`;
      expect((await w.founder.client.post('/api/v1/account/publishers', { name: 'Handed over', slug })).status).toBe(201);
      transferTo.set(w, (await joinedMember(w, slug, w.founder.client)).username);
      return { slug };
    },
    body: (w) => ({ username: transferTo.get(w)! }),
  },
  {
    method: 'GET',
    path: '/api/v1/account/publishers/{slug}/invitations',
    auth: 'session',
    ok: [200],
    params: (w) => ({ slug: w.pub.slug }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/account/publishers/{slug}/invitations/{username}',
    auth: 'session',
    ok: [200],
    params: async (w) => {
      const u = await signup(w.t);
      expect((await w.owner.client.post(`/api/v1/account/publishers/${w.pub.slug}/members`, { username: u.username, role: 'editor' })).status).toBe(202);
      return { slug: w.pub.slug, username: u.username };
    },
  },
  { method: 'GET', path: '/api/v1/account/publisher-invitations', auth: 'session', ok: [200] },
  {
    method: 'POST',
    path: '/api/v1/account/publisher-invitations/{id}/accept',
    auth: 'session',
    ok: [200],
    as: (w) => w.teammate.token,
    params: async (w) => ({ id: String(await invitationFor(w, w.teammate)) }),
  },
  {
    method: 'POST',
    path: '/api/v1/account/publisher-invitations/{id}/decline',
    auth: 'session',
    ok: [200],
    as: (w) => w.teammate.token,
    params: async (w) => ({ id: String(await invitationFor(w, w.teammate)) }),
  },
  {
    method: 'GET',
    path: '/api/v1/account/publishers/{slug}/publisher-keys',
    auth: 'session',
    ok: [200],
    params: (w) => ({ slug: w.pub.slug }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/account/publishers/{slug}/publisher-keys/{id}',
    auth: 'session',
    ok: [200],
    params: async (w) => {
      const key = await w.owner.client.post('/api/v1/account/api-keys', { name: 'to revoke', publisher: w.pub.slug });
      expect(key.status, key.text).toBe(201);
      return { slug: w.pub.slug, id: String(key.body.data.id) };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/account/publishers/{slug}/domains',
    auth: 'session',
    ok: [200],
    params: (w) => ({ slug: w.pub.slug }),
  },
  {
    method: 'POST',
    path: '/api/v1/account/publishers/{slug}/domains',
    auth: 'session',
    ok: [200, 201],
    params: (w) => ({ slug: w.pub.slug }),
    body: () => ({ domain: `claim-${unique()}.example` }),
  },
  {
    method: 'POST',
    path: '/api/v1/account/publishers/{slug}/domains/{domain}/verify',
    auth: 'session',
    // The world's domain is verified already, so this answers without touching DNS or the network.
    ok: [200],
    params: (w) => ({ slug: w.pub.slug, domain: w.pub.domain }),
  },
  { method: 'GET', path: '/api/v1/account/api-keys', auth: 'session', ok: [200] },
  {
    method: 'POST',
    path: '/api/v1/account/api-keys',
    auth: 'session',
    ok: [201],
    batch: true,
    body: (w) => ({ name: 'cms', expires_in_days: 30, publisher: w.pub.slug }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/account/api-keys/{id}',
    auth: 'session',
    ok: [200],
    params: async (w) => ({ id: String(await newKeyId(w)) }),
  },

  // Account webhooks (SPEC §10, §16): session only.
  { method: 'GET', path: '/api/v1/account/webhooks', auth: 'session', ok: [200], query: () => ({ page: '1', per_page: '20' }) },
  {
    method: 'POST',
    path: '/api/v1/account/webhooks',
    auth: 'session',
    ok: [201],
    batch: true,
    // A URL of its own each call: an owner has one webhook per URL and format.
    body: (w) => ({ url: `https://hooks.example.com/in/${unique()}`, events: ['page.registered'], format: 'api_v1', publisher: w.pub.slug }),
  },
  { method: 'GET', path: '/api/v1/account/webhooks/{id}', auth: 'session', ok: [200], params: async (w) => ({ id: String(await newWebhookId(w)) }) },
  {
    method: 'PATCH',
    path: '/api/v1/account/webhooks/{id}',
    auth: 'session',
    ok: [200],
    params: async (w) => ({ id: String(await newWebhookId(w)) }),
    body: () => ({ url: `https://hooks.example.com/moved/${unique()}`, events: ['page.registered'], enabled: true, rotate_secret: true }),
  },
  { method: 'DELETE', path: '/api/v1/account/webhooks/{id}', auth: 'session', ok: [200], params: async (w) => ({ id: String(await newWebhookId(w)) }) },
  {
    method: 'GET',
    path: '/api/v1/account/webhooks/{id}/deliveries',
    auth: 'session',
    ok: [200],
    // The webhook withWork had attempt a delivery, so the list has an item; else a new one.
    params: async (w) => ({ id: String(w.attempted ?? (await newWebhookId(w))) }),
    query: () => ({ page: '1', per_page: '20' }),
  },
  {
    method: 'POST',
    path: '/api/v1/account/webhooks/{id}/deliveries/{delivery_id}/redeliver',
    auth: 'session',
    ok: [200, 202],
    params: (w) => newDelivery(w),
  },
  {
    method: 'POST',
    path: '/api/v1/account/webhooks/{id}/replay',
    auth: 'session',
    ok: [202],
    params: async (w) => ({ id: String(await newWebhookId(w)) }),
    // Now, by the test clock: the World's clock moves on, and seq 1 may be older than the retention.
    body: (w) => ({ since: w.t.clock.now().toISOString() }),
  },
  {
    method: 'GET',
    path: '/api/v1/account/webhooks/{id}/replays/{replay_id}',
    auth: 'session',
    ok: [200],
    params: async (w) => {
      const id = await newWebhookId(w);
      const r = await w.owner.client.post(`/api/v1/account/webhooks/${id}/replay`, { since: w.t.clock.now().toISOString() });
      expect(r.status, r.text).toBe(202);
      return { id: String(id), replay_id: String(r.body.data.id) };
    },
  },

  // Pages: publisher actions, and the public trust record.
  {
    method: 'POST',
    path: '/api/v1/pages',
    auth: 'publisher',
    ok: [200, 201],
    batch: true,
    // A session caller in several publications names one; a key ignores it.
    query: (w) => ({ publisher: w.pub.slug }),
    body: (w) => ({ url: `https://${w.pub.domain}/news/${unique()}`, title: 'A story', topic: 'health', authors: [w.owner.username] }),
  },
  { method: 'GET', path: '/api/v1/pages', auth: 'publisher', ok: [200], query: (w) => ({ publisher: w.pub.slug, page: '1', per_page: '20' }) },
  { method: 'GET', path: '/api/v1/pages/lookup', auth: 'none', ok: [200], query: (w) => ({ url: w.page.url }) },
  { method: 'GET', path: '/api/v1/articles/{id}', auth: 'none', ok: [200], params: (w) => ({ id: String(w.page.id) }) },
  {
    method: 'POST',
    path: '/api/v1/pages/{id}/notices',
    auth: 'publisher',
    ok: [201],
    query: (w) => ({ publisher: w.pub.slug }),
    params: (w) => ({ id: String(w.page.id) }),
    // A clarification leaves the page's standing as it is, so the call can be made again and again.
    body: (w) => ({ type: 'clarification', date: '2026-01-02', reason: 'The second chart’s axis is in thousands.', url: `https://${w.pub.domain}/notices/${unique()}` }),
  },

  // Requests: publishers open and cancel them; contributors take and release them; anyone reads the marketplace.
  {
    method: 'POST',
    path: '/api/v1/requests',
    auth: 'publisher',
    ok: [201],
    batch: true,
    query: (w) => ({ publisher: w.pub.slug }),
    body: (w) => ({ url: `https://${w.pub.domain}/asks/${unique()}`, request_type: 'fact_checker', title: 'Check the figures', brief: 'Table 2', topic: 'health' }),
  },
  {
    method: 'POST',
    path: '/api/v1/requests/{id}/cancel',
    auth: 'publisher',
    ok: [200],
    query: (w) => ({ publisher: w.pub.slug }),
    params: async (w) => ({ id: String(await openRequest(w)) }),
  },
  { method: 'GET', path: '/api/v1/review-requests', auth: 'none', ok: [200], query: () => ({ topic: 'health', type: 'reviewer', page: '1' }) },
  { method: 'GET', path: '/api/v1/review-requests/{id}', auth: 'none', ok: [200], params: (w) => ({ id: String(w.requestId) }) },
  {
    method: 'POST',
    path: '/api/v1/review-requests/{id}/take',
    auth: 'contributor',
    ok: [200],
    params: async (w) => ({ id: String(await openRequest(w)) }),
  },
  {
    method: 'POST',
    path: '/api/v1/review-requests/{id}/release',
    auth: 'contributor',
    ok: [200],
    params: async (w) => ({ id: String(await takenRequest(w)) }),
  },

  // Submitted work: contributors submit, list and withdraw their own; publishers read their inbox and decide.
  {
    method: 'POST',
    path: '/api/v1/submissions',
    auth: 'contributor',
    ok: [201],
    batch: true,
    body: (w) => submissionBody(w),
  },
  { method: 'GET', path: '/api/v1/submissions', auth: 'contributor', ok: [200], query: () => ({ status: 'pending', page: '1', per_page: '20' }) },
  {
    method: 'GET',
    path: '/api/v1/submissions/{id}',
    auth: 'contributor',
    ok: [200],
    params: async (w) => ({ id: String(await pendingSubmission(w)) }),
  },
  {
    method: 'POST',
    path: '/api/v1/submissions/{id}/withdraw',
    auth: 'contributor',
    ok: [200],
    params: async (w) => ({ id: String(await pendingSubmission(w)) }),
  },
  { method: 'GET', path: '/api/v1/account/claims', auth: 'contributor', ok: [200], query: () => ({ state: 'pending' }) },
  {
    method: 'POST',
    path: '/api/v1/account/claims/{id}/confirm',
    auth: 'contributor',
    ok: [200],
    params: async (w) => ({ id: String(await pendingClaim(w)) }),
  },
  {
    method: 'POST',
    path: '/api/v1/account/claims/{id}/decline',
    auth: 'contributor',
    ok: [200],
    params: async (w) => ({ id: String(await pendingClaim(w)) }),
  },
  { method: 'GET', path: '/api/v1/account/claim-preferences', auth: 'contributor', ok: [200] },
  // Author links: the publication asks (a fresh person each time, so no cap is met), the person answers.
  {
    method: 'POST',
    path: '/api/v1/publishers/{slug}/author-links',
    auth: 'publisher',
    ok: [201],
    params: (w) => ({ slug: w.pub.slug }),
    body: async (w) => ({ username: (await signup(w.t)).username, site: `https://${w.pub.domain}/`, user_id: unique(), display_name: 'A WordPress writer' }),
  },
  { method: 'GET', path: '/api/v1/publishers/{slug}/author-links', auth: 'publisher', ok: [200], params: (w) => ({ slug: w.pub.slug }), query: () => ({ state: 'pending' }) },
  {
    method: 'GET',
    path: '/api/v1/publishers/{slug}/author-links/{id}',
    auth: 'publisher',
    ok: [200],
    params: async (w) => ({ slug: w.pub.slug, id: String(await authorLink(w, 'pending')) }),
  },
  // withWork leaves a waiting ask naming the owner, so the lists have something to list.
  { method: 'GET', path: '/api/v1/account/author-links', auth: 'session', ok: [200], query: () => ({ state: 'pending' }) },
  ...(['confirm', 'decline', 'unlink'] as const).map(
    (answer): RouteSpec => ({
      method: 'POST',
      path: `/api/v1/account/author-links/{id}/${answer}`,
      auth: 'session',
      ok: [200],
      params: async (w) => ({ id: String(await authorLink(w, answer === 'unlink' ? 'confirmed' : 'pending')) }),
    }),
  ),
  { method: 'GET', path: '/api/v1/account/interests', auth: 'contributor', ok: [200] },
  {
    method: 'POST',
    path: '/api/v1/account/interests',
    auth: 'contributor',
    ok: [201],
    body: () => ({ subject: 'organisation', name: `Acme ${unique()}`, kind: 'funding', note: 'A research grant, 2025' }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/account/interests/{id}',
    auth: 'contributor',
    ok: [200],
    params: async (w) => ({ id: String(await declaredInterest(w)) }),
  },
  {
    method: 'PUT',
    path: '/api/v1/account/claim-preferences/{slug}',
    auth: 'contributor',
    ok: [200],
    params: async (w) => ({ slug: (await publisher(w.t)).slug }),
    body: () => ({ preference: 'refuse' }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/account/claim-preferences/{slug}',
    auth: 'contributor',
    ok: [200],
    params: (w) => ({ slug: w.pub.slug }),
  },
  {
    method: 'POST',
    path: '/api/v1/account/contributions/{id}/withdraw',
    auth: 'contributor',
    ok: [200],
    params: async (w) => ({ id: String(await publicWork(w)) }),
  },
  {
    method: 'GET',
    path: '/api/v1/account/contributions/{id}/credential',
    auth: 'contributor',
    ok: [200],
    params: async (w) => ({ id: String(await publicWork(w)) }),
    query: () => ({ holder: 'email_hash', format: 'ldp' }),
  },
  {
    method: 'GET',
    path: '/api/v1/publisher-auth/claims',
    auth: 'publisher',
    ok: [200],
    query: (w) => ({ publisher: w.pub.slug, page_id: String(w.page.id) }),
  },
  {
    method: 'GET',
    path: '/api/v1/publisher-auth/requests',
    auth: 'publisher',
    ok: [200],
    query: (w) => ({ publisher: w.pub.slug, status: 'pending', page: '1' }),
  },
  {
    method: 'POST',
    path: '/api/v1/submissions/decide',
    auth: 'publisher',
    ok: [200],
    batch: true,
    query: (w) => ({ publisher: w.pub.slug }),
    body: async (w) => ({ submission_id: await pendingSubmission(w), decision: 'reject', note: 'Needs a primary source' }),
  },

  // Contributors, publications, records and proofs: public.
  { method: 'GET', path: '/api/v1/contributors', auth: 'none', ok: [200], query: () => ({ topic: 'health', q: 'name', page: '1' }) },
  { method: 'GET', path: '/api/v1/contributors/{username}', auth: 'none', ok: [200], params: (w) => ({ username: w.owner.username }) },
  { method: 'GET', path: '/api/v1/contributors/{username}/scores', auth: 'none', ok: [200], params: (w) => ({ username: w.owner.username }) },
  { method: 'GET', path: '/api/v1/publishers', auth: 'none', ok: [200], query: () => ({ page: '1', per_page: '20' }) },
  { method: 'GET', path: '/api/v1/publishers/{slug}', auth: 'none', ok: [200], params: (w) => ({ slug: w.pub.slug }) },
  { method: 'GET', path: '/api/v1/publishers/{slug}/records', auth: 'none', ok: [200], params: (w) => ({ slug: w.pub.slug }) },
  { method: 'GET', path: '/api/v1/publishers/{slug}/credits', auth: 'none', ok: [200], params: (w) => ({ slug: w.pub.slug }) },
  // record_url and proof_url, documented once under /v1 (the same operations, JSON only) for generated clients.
  { method: 'GET', path: '/v1/records/{id}', auth: 'none', ok: [200], params: (w) => ({ id: String(w.page.id) }) },
  { method: 'GET', path: '/v1/proofs/{id}', auth: 'none', ok: [200], params: (w) => ({ id: `ctb_${w.contributionId}` }) },
  { method: 'GET', path: '/records/{id}', auth: 'none', hidden: true, ok: [200], params: (w) => ({ id: String(w.page.id) }) },
  { method: 'GET', path: '/proofs/{id}', auth: 'none', hidden: true, ok: [200], params: (w) => ({ id: String(w.contributionId) }) },

  // Panels: operators issue, anyone reads.
  { method: 'POST', path: '/api/v1/admin/panels', auth: 'admin', ok: [201], body: () => statementBody() },
  {
    method: 'POST',
    path: '/api/v1/admin/panels/{id}/versions',
    auth: 'admin',
    ok: [201],
    params: (w) => ({ id: w.panelId }),
    // Without `version`: the current one plus 1, so every valid call issues the next.
    body: () => versionBody(),
  },
  { method: 'GET', path: '/v1/panels', auth: 'none', ok: [200], query: () => ({ topic: 'health', page: '1' }) },
  { method: 'GET', path: '/v1/panels/{id}', auth: 'none', ok: [200], params: (w) => ({ id: w.panelId }), query: () => ({ version: '1' }) },

  // The public surface.
  { method: 'GET', path: '/v1/pages/record', auth: 'none', ok: [200], query: (w) => ({ url: w.page.url }) },
  // The change feed, on both surfaces.
  { method: 'GET', path: '/v1/changes', auth: 'none', ok: [200], query: () => ({ after: '0', limit: '50' }) },
  { method: 'GET', path: '/api/v1/changes', auth: 'none', ok: [200], query: () => ({ after: '0', limit: '50' }) },
  // Search over the public record, on both surfaces.
  { method: 'GET', path: '/v1/search', auth: 'none', ok: [200], query: () => ({ q: 'front', type: 'page' }) },
  { method: 'GET', path: '/api/v1/search', auth: 'none', ok: [200], query: () => ({ q: 'story', per_page: '5' }) },
  // The browser extension's private lookup: public, the same answer for everyone.
  { method: 'GET', path: '/v1/extension/hosts', auth: 'none', ok: [200] },
  // The bucket of the world's page, which has accepted work: a bucket with a record in it, and proofs of its entries.
  { method: 'GET', path: '/v1/extension/buckets/{prefix}', auth: 'none', ok: [200], params: async (w) => ({ prefix: await bucketOf(w) }) },
  { method: 'GET', path: '/v1/extension/buckets/{prefix}/proofs', auth: 'none', ok: [200], params: async (w) => ({ prefix: await bucketOf(w) }) },
  {
    method: 'POST',
    path: '/v1/requests',
    auth: 'publisher',
    ok: [201],
    body: (w) => ({ url: `https://${w.pub.domain}/v1-asks/${unique()}`, type: 'review', topic: 'health' }),
  },
  { method: 'GET', path: '/v1/requests', auth: 'publisher', ok: [200], query: () => ({ page: '1' }) },
  { method: 'GET', path: '/v1/contributors/{id}', auth: 'none', ok: [200], params: (w) => ({ id: w.owner.username }) },
  { method: 'GET', path: '/v1/contributors/{id}/scores', auth: 'none', ok: [200], params: (w) => ({ id: w.owner.username }) },

  // Reports (anyone; a credential makes it the account's) and the transparency counts (docs/trust-and-safety.md).
  {
    method: 'POST',
    path: '/v1/reports',
    auth: 'none',
    ok: [201],
    body: (w) => ({
      item: `contribution:${w.contributionId}:summary`,
      category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
      explanation: 'It accuses a named person without a source.',
      notifier_name: 'Nora Notifier',
      notifier_email: `notifier-${unique()}@mail.test`,
      good_faith: true,
    }),
  },
  { method: 'GET', path: '/v1/transparency', auth: 'none', ok: [200], query: () => ({ period: '2026-H2' }) },
  // An appeal by the person a decision affected: a new decision on the contributor's profile each time.
  {
    method: 'POST',
    path: '/api/v1/decisions/{id}/appeal',
    auth: 'contributor',
    ok: [201],
    params: async (w) => ({ id: String(await decisionOnContributor(w)) }),
    body: () => ({ explanation: 'The summary states facts about my own work.' }),
  },

  // The transparency log: public; the world's sequencer pass has signed a checkpoint.
  { method: 'GET', path: '/v1/log/checkpoint', auth: 'none', ok: [200] },
  { method: 'GET', path: '/v1/log/key', auth: 'none', ok: [200] },
  { method: 'GET', path: '/v1/log/proof/inclusion', auth: 'none', ok: [200], query: () => ({ index: '0' }) },
  { method: 'GET', path: '/v1/log/proof/consistency', auth: 'none', ok: [200], query: () => ({ first: '1' }) },
  { method: 'GET', path: '/v1/log/entries', auth: 'none', ok: [200], query: () => ({ start: '0', limit: '10' }) },
  // The tlog-policy and the tlog-tiles files (a wildcard route: `{path}` is the tile's path).
  { method: 'GET', path: '/v1/log/policy', auth: 'none', ok: [200] },
  { method: 'GET', path: '/v1/credentials/status/{purpose}/{list}', auth: 'none', ok: [200], params: () => ({ purpose: 'revocation', list: '0' }) },
  { method: 'GET', path: '/v1/log/proof/bundle', auth: 'none', ok: [200], query: () => ({ index: '0' }) },
  // Credence as a witness (test/transparency/credence-witness.test.ts walks the protocol). An app started with
  // WORLD_APP_OPTIONS witnesses witnessedLog, and `text` extends it by one leaf: 200. A valid call without the text
  // body is a 400.
  {
    method: 'POST',
    path: '/v1/witness/add-checkpoint',
    auth: 'none',
    ok: [200, 400],
    textBody: true,
    text: (w) => witnessedLog.nextBody(w.t.baseUrl),
  },
  { method: 'GET', path: '/v1/witness', auth: 'none', ok: [200] },
  { method: 'GET', path: '/v1/log/tile/{path}', auth: 'none', ok: [200], params: () => ({ path: '0/000.p/1' }) },

  // Embeds: open to every origin, cached, not rate limited.
  {
    method: 'GET',
    path: '/api/v1/embed/article/{id}',
    auth: 'none',
    embed: true,
    ok: [200],
    params: (w) => ({ id: String(w.page.id) }),
    query: () => ({ style: 'full', lang: 'en', format: 'json' }),
  },
  {
    method: 'GET',
    path: '/api/v1/embed/by-url',
    auth: 'none',
    embed: true,
    ok: [200],
    query: (w) => ({ url: w.page.url, style: 'compact', lang: 'de', format: 'json' }),
  },
  { method: 'GET', path: '/v1/embed.js', auth: 'none', embed: true, ok: [200] },
  { method: 'GET', path: '/embed.js', auth: 'none', embed: true, hidden: true, ok: [200] },
  { method: 'GET', path: '/embed.css', auth: 'none', embed: true, hidden: true, ok: [200], query: () => ({ v: 'abc' }) },

  // Outside the OpenAPI documents.
  { method: 'GET', path: '/healthz', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/livez', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/readyz', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/assets/app.css', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/assets/dashboard.js', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/assets/log-verify.js', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/assets/me.js', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/assets/tabs.js', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/assets/docs.js', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/assets/credential-verify.js', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/docs', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/docs/', auth: 'none', hidden: true, ok: [301] },
  { method: 'GET', path: '/favicon.ico', auth: 'none', hidden: true, ok: [204] },
  { method: 'GET', path: '/.well-known/did.json', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/v1/openapi.json', auth: 'none', hidden: true, ok: [200] },
  { method: 'GET', path: '/api/v1/openapi.json', auth: 'none', hidden: true, ok: [200] },
];

/** The rows that need a credential: each gets the full security suite. */
export const AUTH_ROUTES = ROUTES.filter((r) => r.auth !== 'none');
/** The rows anyone may call, listed on purpose. */
export const PUBLIC_ROUTES = ROUTES.filter((r) => r.auth === 'none');

export const routeName = (r: Pick<RouteSpec, 'method' | 'path'>) => `${r.method} ${r.path}`;

export function signupBody(): Record<string, unknown> {
  const username = `user-${unique()}`;
  return { email: `${username}@mail.test`, password: 'correct horse battery', name: `Name ${username}`, username };
}

/** The path with its `{params}` filled in and its query appended. */
export function fillPath(path: string, params: Record<string, string> = {}, query?: Record<string, string>): string {
  const filled = path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for {${name}} in ${path}`);
    // `{path}` is a wildcard route's rest of the path, slashes and all.
    return name === 'path' ? value : encodeURIComponent(value);
  });
  const qs = query && Object.keys(query).length > 0 ? `?${new URLSearchParams(query).toString()}` : '';
  return filled + qs;
}

/** One valid call to a route: its filled path and body. */
export async function validCall(route: RouteSpec, w: World): Promise<{ path: string; body: Record<string, unknown> | undefined }> {
  const params = route.params ? await route.params(w) : {};
  return { path: fillPath(route.path, params, route.query?.(w)), body: route.body ? await route.body(w) : undefined };
}

/** The session a valid call of this route is made with. */
export function sessionFor(route: RouteSpec, w: World): string {
  if (route.as) return route.as(w);
  if (route.auth === 'admin') return w.admin.token;
  if (route.auth === 'contributor') return w.contributor.token;
  return w.owner.token;
}

/** Whether the route acts on an API key at all. */
export const takesKey = (route: RouteSpec) => route.auth === 'publisher' || route.auth === 'contributor' || route.auth === 'signedIn';

/** The API key a valid call of this route is made with, or null when the route takes no key. */
export function keyFor(route: RouteSpec, w: World): string | null {
  if (route.auth === 'publisher' || route.auth === 'signedIn') return w.pub.key;
  if (route.auth === 'contributor') return w.contributorKey;
  return null;
}

export function submissionBody(w: World): Record<string, unknown> {
  return {
    url: w.page.url,
    role: 'correction',
    summary: 'Corrects the year of the study',
    evidence: { before: 'published in 2019', after: 'published in 2021', reason: 'The journal page gives 2021', sources: ['https://journal.example/doi/10.1000/182'] },
  };
}

export function statementBody(): Record<string, unknown> {
  return { id: `panel-${unique()}`, ...versionBody() };
}

/** Statement content; the answer differs on every call, since a version may not repeat the one before. */
export function versionBody(): Record<string, unknown> {
  return {
    topic: 'health',
    question: 'Does daily vitamin D prevent respiratory infections in healthy adults?',
    answer: `Possibly a small reduction in people with low levels; little or no effect otherwise (${unique()}).`,
    certainty: 'low-moderate',
    vote: { agree: 2, dissent: 1 },
    panel: [
      { name: 'Dr. Helena Voss', role: 'chair', vote: 'agree' },
      { name: 'Prof. Kofi Asante', role: 'member', vote: 'agree' },
      { name: 'Dr. Pavel Horak', role: 'member', vote: 'dissent' },
    ],
    revisit_by: '2028-06-01',
    reopen_triggers: ['new_study'],
  };
}

/** A new open request on `pub`'s pages. */
/** An operator's decision restricting `contributor`'s profile summary, which they may appeal. */
async function decisionOnContributor(w: World): Promise<number> {
  const deps = w.t.runtime.deps;
  const id = (await deps.db.selectFrom('accounts').select('id').where('username', '=', w.contributor.username).executeTakeFirstOrThrow()).id;
  const r = await moderation.submitReport(deps, { item: { kind: 'profile', id, field: 'summary' }, category: 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC', explanation: 'The summary is against the terms.', good_faith: true, locale: 'en' }, null);
  return (await moderation.decideReport(deps, w.admin.id, r.id, { type: 'restrict_field', ground: 'incompatible', terms_clause: 't2', facts: 'The summary named a private person.' })).id;
}

async function openRequest(w: World): Promise<number> {
  const res = await w.pub.api.post('/api/v1/requests', { url: `https://${w.pub.domain}/asks/${unique()}`, request_type: 'reviewer' });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

/** A new request, taken by `contributor`. */
async function takenRequest(w: World): Promise<number> {
  const id = await openRequest(w);
  const res = await w.contributor.client.post(`/api/v1/review-requests/${id}/take`);
  expect(res.status, res.text).toBe(200);
  return id;
}

/** A new pending submission of `contributor` on `pub`'s page. */
/** A claim of `pub` naming the contributor as the author of a fresh page, waiting for their answer. */
async function pendingClaim(w: World): Promise<number> {
  const url = `https://${w.pub.domain}/claimed/${unique()}`;
  const reg = await w.pub.api.post('/api/v1/pages', { url, title: 'Claimed', authors: [w.contributor.username] });
  expect(reg.body.data.authors, reg.text).toEqual([{ username: w.contributor.username, status: 'pending' }]);
  const claims = await w.contributor.client.get('/api/v1/account/claims?state=pending');
  return (claims.body.data as { id: number; page: { url: string } }[]).find((c) => c.page.url === url)!.id;
}

/** A link of `pub` naming its owner (the default session), written as asking would leave it: no cap to meet. */
async function authorLink(w: World, state: 'pending' | 'confirmed'): Promise<number> {
  const db = w.t.runtime.deps.db;
  const { id: publisherId } = await db.selectFrom('publishers').select('id').where('slug', '=', w.pub.slug).executeTakeFirstOrThrow();
  const now = new Date().toISOString();
  const row = { publisher_id: publisherId, account_id: w.owner.id, site: `https://${w.pub.domain}`, user_id: unique(), display_name: 'A WordPress writer', state, created_at: now, decided_at: state === 'pending' ? null : now };
  return (await db.insertInto('author_links').values(row).returning('id').executeTakeFirstOrThrow()).id;
}

/** An interest the contributor declared, to end. */
async function declaredInterest(w: World): Promise<number> {
  const res = await w.contributor.client.post('/api/v1/account/interests', { subject: 'topic', name: `topic-${unique()}`, kind: 'personal' });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

/** A public contribution of the contributor: a claim they confirmed. */
async function publicWork(w: World): Promise<number> {
  const claim = await pendingClaim(w);
  const done = await w.contributor.client.post(`/api/v1/account/claims/${claim}/confirm`);
  expect(done.status, done.text).toBe(200);
  const record = await new Client(w.t.baseUrl, randomIp()).get(`/v1/pages/record?url=${encodeURIComponent(done.body.data.page.url)}`);
  return Number(String(record.body.contributions[0].id).replace(/^ctb_/, ''));
}

async function pendingSubmission(w: World): Promise<number> {
  const res = await w.contributor.client.post('/api/v1/submissions', submissionBody(w));
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

async function newWebhookId(w: World): Promise<number> {
  const res = await w.owner.client.post('/api/v1/account/webhooks', { url: `https://hooks.example.com/in/${unique()}`, publisher: w.pub.slug });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

/** A webhook with one queued delivery (fanned out, never sent: redelivering it answers 202 without the network). */
async function newDelivery(w: World): Promise<Record<string, string>> {
  const id = await newWebhookId(w);
  const page = await w.pub.api.post('/api/v1/pages', { url: `https://${w.pub.domain}/hooked/${unique()}` });
  expect(page.status, page.text).toBe(201);
  await new WebhookRelay(w.t.runtime.deps).fanOut();
  const delivery = await w.t.runtime.deps.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('webhook_id', '=', id)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  return { id: String(id), delivery_id: String(delivery.id) };
}

/** The extension's bucket of the world's page (docs/extension.md): the first digits of its embed key's hash. */
async function bucketOf(w: World): Promise<string> {
  const page = await w.t.runtime.deps.db.selectFrom('pages').select('embed_key_hash').where('id', '=', w.page.id).executeTakeFirstOrThrow();
  return page.embed_key_hash!.slice(0, BUCKET_HEX);
}

async function newKeyId(w: World): Promise<number> {
  const res = await w.owner.client.post('/api/v1/account/api-keys', { name: 'to revoke', publisher: null });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

/** A new session of the owner's, signed in from a browser: its id, to sign it out. */
async function newOwnerSessionId(w: World): Promise<number> {
  const login = await new Client(w.t.baseUrl, randomIp()).post('/api/v1/auth/login', { email: w.owner.email, password: w.owner.password });
  expect(login.status, login.text).toBe(200);
  const list = await w.owner.client.get('/api/v1/account/sessions');
  return list.body.data[0].id as number;
}

/** A fresh session of `owner` (for routes that end the session they are called with). */
/** A session of an account of its own: ending it (or every session of its account) touches nobody else. */
export async function freshSession(w: World): Promise<string> {
  return (await signup(w.t)).token;
}

export async function makeWorld(t: TestApp): Promise<World> {
  const owner = await signup(t);
  const pub = await publisher(t, { owner });
  const url = `https://${pub.domain}/world/front-page`;
  // The owner lets the publication publish the authorships it names at once (a standing permission).
  const permit = await owner.client.req('PUT', `/api/v1/account/claim-preferences/${pub.slug}`, { body: { preference: 'permit' } });
  expect(permit.status, permit.text).toBe(200);
  const reg = await pub.api.post('/api/v1/pages', { url, title: 'Front page', topic: 'health', authors: [owner.username] });
  expect(reg.status, reg.text).toBe(201);
  const record = await new Client(t.baseUrl, randomIp()).get(`/v1/pages/record?url=${encodeURIComponent(url)}`);
  expect(record.status, record.text).toBe(200);
  const contributor = await signup(t);

  const adminName = `admin-${unique()}`;
  const adminLogin = { email: `${adminName}@ops.test`, password: 'a long admin password' };
  const made = await createAdmin(t.runtime.deps, { ...adminLogin, username: adminName, name: `Admin ${adminName}` });
  const session = await new Client(t.baseUrl, randomIp()).post('/api/v1/auth/login', adminLogin);
  expect(session.status, session.text).toBe(200);
  const admin = { id: made.user_id, token: session.body.data.token as string };
  const statement = statementBody();
  const issued = await new Client(t.baseUrl, randomIp(), admin.token).post('/api/v1/admin/panels', statement);
  expect(issued.status, issued.text).toBe(201);

  const w: World = {
    t,
    owner,
    pub,
    page: { id: reg.body.data.id as number, url },
    contributor,
    contributorKey: await contributorKey(contributor),
    teammate: await signup(t),
    founder: await signup(t),
    admin,
    contributionId: Number(String(record.body.contributions[0].id).replace(/^ctb_/, '')),
    requestId: 0,
    panelId: statement.id as string,
  };
  w.requestId = await openRequest(w);
  // One pass of the transparency log's sequencer, so its checkpoint and proofs exist for the /v1/log rows.
  await integrate(t.runtime.deps);
  return w;
}

/**
 * What the world's app is started with (`startTestApp({ ...WORLD_APP_OPTIONS, … })`) so that every row's valid call
 * can succeed, again and again: it witnesses `witnessedLog`, and every setting that caps what one account,
 * publication or person may hold (named `…PerAccount`, `…PerPublication`, `…PerPerson`, alone or in a group like
 * `claimLimits`) is a million, a cap added later included. The world's few accounts make an object per valid call;
 * each cap has tests of its own (limits.account, requests.cap, webhooks.caps, …).
 */
export const WORLD_APP_OPTIONS: Partial<Config> = { ...capsRaised(), witnessLogs: [witnessedLog.vkey] };

function capsRaised(): Partial<Config> {
  const CAP = /per(Account|Publication|Person)/i;
  const raised: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(testConfig())) {
    if (typeof v === 'number' && CAP.test(k)) raised[k] = 1_000_000;
    const group = v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v as Record<string, unknown>) : [];
    if (group.some(([g, x]) => typeof x === 'number' && CAP.test(g))) raised[k] = Object.fromEntries(group.map(([g, x]) => [g, typeof x === 'number' && CAP.test(g) ? 1_000_000 : x]));
  }
  return raised as Partial<Config>;
}

/**
 * Work in the world, so that the reads answer with something in them (their item schemas are then checked, not only
 * an empty list): the contributor has a pending submission, a pending claim, an accepted contribution, a declared
 * interest and a standing refusal; the owner has a webhook whose delivery was attempted, an invitation sent and one
 * waiting, an author link to answer, and `contributionId` becomes work made while its author declared an interest;
 * the world's page has a notice; the transparency log covers all of it.
 */
export async function withWork(w: World): Promise<void> {
  await pendingSubmission(w);
  await pendingClaim(w);
  await publicWork(w);
  await declaredInterest(w);
  const refused = await w.contributor.client.req('PUT', `/api/v1/account/claim-preferences/${(await publisher(w.t)).slug}`, { body: { preference: 'refuse' } });
  expect(refused.status, refused.text).toBe(200);
  // A webhook with a delivery attempted once by the relay, at a name the resolver (the test's DNS answer) does not
  // know: its attempt log has an entry, and nothing leaves the machine.
  const hooked = await newDelivery(w);
  const unknown: Resolve = (host, _options, callback) => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
  const relay = new WebhookRelay(w.t.runtime.deps, { resolve: unknown, log: { info: () => {}, error: () => {} } });
  expect((await relay.tick()).attempts).toBeGreaterThan(0);
  await relay.stop();
  w.attempted = Number(hooked.id);
  // A notice on the world's page, so its record lists one.
  const notice = await w.pub.api.post(`/api/v1/pages/${w.page.id}/notices`, { type: 'clarification', date: '2026-01-02', reason: 'The chart’s axis is in thousands.' });
  expect(notice.status, notice.text).toBe(201);
  // The world's contribution becomes one made while its author held an interest in the page's topic, so its proof
  // discloses one.
  const interest = await w.owner.client.post('/api/v1/account/interests', { subject: 'topic', name: 'health', kind: 'employment' });
  expect(interest.status, interest.text).toBe(201);
  const disclosed = `https://${w.pub.domain}/world/disclosed`;
  const reg = await w.pub.api.post('/api/v1/pages', { url: disclosed, title: 'A story with a disclosure', topic: 'health', authors: [w.owner.username] });
  expect(reg.status, reg.text).toBe(201);
  const record = await new Client(w.t.baseUrl, randomIp()).get(`/v1/pages/record?url=${encodeURIComponent(disclosed)}`);
  w.contributionId = Number(String(record.body.contributions[0].id).replace(/^ctb_/, ''));
  const invited = await signup(w.t);
  expect((await w.owner.client.post(`/api/v1/account/publishers/${w.pub.slug}/members`, { username: invited.username, role: 'editor' })).status).toBe(202);
  await invitationFor(w, w.owner);
  // A CMS user's link asking the owner, waiting for their answer.
  await authorLink(w, 'pending');
  await integrate(w.t.runtime.deps);
}

/**
 * The app's routes as Fastify prints them (`METHOD /path/{param}`, HEAD left out): the truth the table is checked
 * against, hidden routes included.
 */
export function routesOf(printed: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of printed.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?\s*$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    const full = (depth > 0 ? stack[depth - 1]! : '') + m[2]!;
    stack[depth] = full;
    stack.length = depth + 1;
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim())) {
      // HEAD and a public read's OPTIONS (its CORS preflight, app.ts) are made from its GET.
      if (method && method !== 'HEAD' && method !== 'OPTIONS') out.push(`${method} ${full.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, '{$1}')}`);
    }
  }
  return out;
}
