// Builders for the people and things most tests need. They go through the public API where it is cheap, and
// through services only for what an operator does (verifying a domain by hand).
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { confirmByOperator } from '../src/domain/accounts/account.service.js';
import { verifyDomainByOperator } from '../src/domain/publishers/publisher.service.js';
import { Client } from './client.js';
import type { TestApp } from './harness.js';

const unique = () => randomBytes(4).toString('hex');

export interface TestUser {
  id: number;
  username: string;
  email: string;
  password: string;
  token: string;
  client: Client;
}

export async function signup(t: TestApp, over: Partial<{ username: string; name: string; email: string }> = {}): Promise<TestUser> {
  const username = over.username ?? `user-${unique()}`;
  const email = over.email ?? `${username}@mail.test`;
  const password = 'correct horse battery';
  const anon = new Client(t.baseUrl);
  const res = await anon.post('/api/v1/auth/signup', { email, password, name: over.name ?? `Name ${username}`, username });
  expect(res.status, res.text).toBe(202);
  await confirmAddress(t, email);
  // Sign-up starts no session (it answers the same for a taken email): log in, as a client would.
  const login = await anon.post('/api/v1/auth/login', { email, password });
  expect(login.status, login.text).toBe(200);
  return { id: login.body.data.user_id, username, email, password, token: login.body.data.token, client: anon.as(login.body.data.token) };
}

/**
 * Confirm an address by hand, as its mailed link would: most tests are about what confirmed accounts do.
 * test/api/mail.happy.test.ts follows the real links.
 */
export async function confirmAddress(t: TestApp, email: string): Promise<void> {
  expect(await confirmByOperator(t.runtime.deps.db, email, t.clock.now().toISOString())).toBe(true);
  await t.runtime.deps.changes.committed();
}

export interface TestPublisher {
  slug: string;
  domain: string;
  owner: TestUser;
  /** A publisher API key of the owner. */
  key: string;
  keyId: number;
  api: Client;
}

/** A publisher with a verified domain, its owner, and a publisher key. */
export async function publisher(t: TestApp, over: Partial<{ slug: string; domain: string; owner: TestUser }> = {}): Promise<TestPublisher> {
  const owner = over.owner ?? (await signup(t));
  const slug = over.slug ?? `pub-${unique()}`;
  const domain = over.domain ?? `${slug}.example`;
  const created = await owner.client.post('/api/v1/account/publishers', { name: `The ${slug}`, slug });
  expect(created.status, created.text).toBe(201);
  await verifyDomainByOperator(t.runtime.deps, slug, domain);
  const key = await owner.client.post('/api/v1/account/api-keys', { name: 'cms', publisher: slug });
  expect(key.status, key.text).toBe(201);
  return { slug, domain, owner, key: key.body.data.key, keyId: key.body.data.id, api: new Client(t.baseUrl).as(key.body.data.key) };
}

export async function contributorKey(user: TestUser): Promise<string> {
  const res = await user.client.post('/api/v1/account/api-keys', { name: 'contrib', publisher: null });
  expect(res.status, res.text).toBe(201);
  return res.body.data.key;
}

/**
 * Make `user` a member of a publication the way people do: an owner invites, the person accepts. Returns
 * nothing; fails the test when either step is refused.
 */
export async function addMember(owner: Client, slug: string, user: Pick<TestUser, 'username' | 'client'>, role: 'owner' | 'editor' = 'editor'): Promise<void> {
  const inv = await owner.post(`/api/v1/account/publishers/${slug}/members`, { username: user.username, role });
  expect(inv.status, inv.text).toBe(202);
  const mine = await user.client.get('/api/v1/account/publisher-invitations');
  const id = (mine.body.data as { id: number; publisher: { slug: string } }[]).find((i) => i.publisher.slug === slug)!.id;
  const ok = await user.client.post(`/api/v1/account/publisher-invitations/${id}/accept`);
  expect(ok.status, ok.text).toBe(200);
}

/**
 * The people named as authors confirm every claim waiting for them (Naming is a claim until the person
 * agrees), as each would on /me or through the API. For tests about what happens once authors are public.
 */
export async function confirmClaims(...people: ({ client: Client } | { api: Client })[]): Promise<void> {
  for (const person of people) {
    const client = 'client' in person ? person.client : person.api;
    const claims = await client.get('/api/v1/account/claims?state=pending');
    expect(claims.status, claims.text).toBe(200);
    for (const claim of claims.body.data as { id: number }[]) {
      const done = await client.post(`/api/v1/account/claims/${claim.id}/confirm`);
      expect(done.status, done.text).toBe(200);
    }
  }
}
