// What the dashboard and admin page tests share: people signed in through the real forms (a FormClient each), a
// publication made through the dashboard with a domain verified by an operator, and the work that fills an inbox.
import { confirmAddress } from '../factories.js';
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { createAdmin } from '../../src/domain/accounts/account.service.js';
import { verifyDomainByOperator } from '../../src/domain/publishers/publisher.service.js';
import { Client } from '../client.js';
import type { TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';

export const unique = () => randomBytes(4).toString('hex');

export const PASSWORD = 'long enough password';

export interface WebUser {
  username: string;
  email: string;
  b: FormClient;
  /** The same person on the JSON API (a session token of their own). */
  api: Client;
}

/** A person signed up through /signup, signed in in `b`, with an API session for setup steps. */
export async function webUser(t: TestApp, name = 'Test Person'): Promise<WebUser> {
  const username = `web-${unique()}`;
  const email = `${username}@web.test`;
  const b = new FormClient(t.baseUrl);
  await b.get('/signup');
  const res = await b.post('/signup', { name, username, email, password: PASSWORD });
  expect(res.status, res.text).toBe(303);
  await confirmAddress(t, email);
  // Sign-up redirects to the log-in form (the same for a taken email); log in from it.
  const login = await b.post('/login?next=/me', { email, password: PASSWORD });
  expect(login.status, login.text).toBe(303);
  // The cookie holds the same session token the API takes (SPEC §5).
  return { username, email, b, api: new Client(t.baseUrl).as(b.cookie('credence_session')!) };
}

/** An operator, signed in through /login. */
export async function webAdmin(t: TestApp): Promise<WebUser> {
  const username = `ops-${unique()}`;
  const email = `${username}@ops.test`;
  await createAdmin(t.runtime.deps, { email, password: PASSWORD, username, name: 'Olga Operator' });
  const b = new FormClient(t.baseUrl);
  await b.get('/login');
  const res = await b.post('/login', { email, password: PASSWORD });
  expect(res.status, res.text).toBe(303);
  return { username, email, b, api: new Client(t.baseUrl).as(b.cookie('credence_session')!) };
}

export interface WebPublication {
  slug: string;
  domain: string;
  base: string;
  owner: WebUser;
}

/** A publication created through the dashboard form, its domain verified by an operator. */
export async function webPublication(t: TestApp, owner?: WebUser): Promise<WebPublication> {
  const who = owner ?? (await webUser(t, 'Pat Publisher'));
  const slug = `pub-${unique()}`;
  await who.b.get('/dashboard');
  const res = await who.b.post('/dashboard', { name: `The ${slug}`, slug });
  expect(res.status, res.text).toBe(303);
  expect(res.location).toBe(`/dashboard/${slug}?done=created`);
  const domain = `${slug}.example`;
  await verifyDomainByOperator(t.runtime.deps, slug, domain);
  return { slug, domain, base: `/dashboard/${slug}`, owner: who };
}

/** Register a page through the dashboard form; returns its id. */
export async function registerPage(t: TestApp, pub: WebPublication, path = `news/${unique()}`, title = `Story ${path}`): Promise<{ id: number; url: string }> {
  const url = `https://${pub.domain}/${path}`;
  await pub.owner.b.get(`${pub.base}/pages`);
  const res = await pub.owner.b.post(`${pub.base}/pages`, { url, title, topic: 'health' });
  expect(res.status, res.text).toBe(303);
  const page = await t.runtime.deps.db.selectFrom('pages').select('id').where('url', '=', url).executeTakeFirstOrThrow();
  return { id: page.id, url };
}

/** A correction submitted by `who` on a page, unasked, through the JSON API; returns the submission id. */
export async function submitCorrection(who: WebUser, url: string, over: Record<string, unknown> = {}): Promise<number> {
  const res = await who.api.post('/api/v1/submissions', {
    url,
    role: 'correction',
    summary: 'Fixed the vaccination rate',
    evidence: { before: 'Rates fell to 70% last year.', after: 'Rates fell to 79% last year.', reason: 'The CDC table says 79%.', sources: ['https://www.cdc.gov/table'] },
    ...over,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

/** Rows of a table, for "nothing changed" checks. */
export async function count(t: TestApp, table: 'publishers' | 'pages' | 'requests' | 'api_keys' | 'webhooks' | 'domains' | 'publisher_members' | 'publisher_invitations' | 'contributions'): Promise<number> {
  const r = await t.runtime.deps.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
