// What the webhook tests share: a relay over the test app's database (driven by tick() with the test clock, or
// started for real), a webhook registered through the API, and the work that makes each kind of event.
import { expect } from 'vitest';
import { createStatement, issueVersion } from '../../src/domain/panels/panel.service.js';
import { type RelayOptions, WebhookRelay } from '../../src/jobs/relay.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import type { TestApp } from '../harness.js';
import { statementBody, unique, versionBody } from './panels.fixtures.js';

export { unique };

export const quietLog = { error: () => {}, info: () => {} };

/** A relay on the test app's database; no jitter unless asked, so the schedule is exact. */
export function relayFor(t: TestApp, opts: RelayOptions = {}): WebhookRelay {
  return new WebhookRelay(t.runtime.deps, { random: () => 0.5, log: quietLog, ...opts });
}

export interface Hook {
  id: number;
  secret: string;
  body: any;
}

export async function registerHook(user: TestUser, body: Record<string, unknown>): Promise<Hook> {
  const res = await user.client.post('/api/v1/account/webhooks', body);
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id, secret: res.body.data.secret, body: res.body.data };
}

export async function getHook(user: TestUser, id: number): Promise<any> {
  const res = await user.client.get(`/api/v1/account/webhooks/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** A page of the publisher, registered through its key (fires page.registered). */
export async function registerPage(pub: TestPublisher, path = `news/${unique()}`, topic = 'health'): Promise<{ id: number; url: string }> {
  const url = `https://${pub.domain}/${path}`;
  const res = await pub.api.post('/api/v1/pages', { url, title: `Story ${path}`, topic });
  expect([200, 201], res.text).toContain(res.status);
  return { id: res.body.data.id, url };
}

/** A specialist with a contributor key. */
export async function specialist(t: TestApp): Promise<TestUser & { key: string }> {
  const user = await signup(t, { name: 'Dr. Ada Specialist' });
  return { ...user, key: await contributorKey(user) };
}

/** Open a request on a page (the publisher's key) and have `who` take it (fires request.taken). */
export async function openAndTake(pub: TestPublisher, who: TestUser, url: string, type = 'correction'): Promise<number> {
  const open = await pub.api.post('/api/v1/requests', { url, request_type: type, topic: 'health', title: 'Check it' });
  expect(open.status, open.text).toBe(201);
  const take = await who.client.post(`/api/v1/review-requests/${open.body.data.id}/take`);
  expect(take.status, take.text).toBe(200);
  return open.body.data.id as number;
}

export const correction = (over: Record<string, unknown> = {}) => ({
  summary: 'Fixed the vaccination rate',
  evidence: { before: 'Rates fell to 70%.', after: 'Rates fell to 79%.', reason: 'The CDC table says 79%.', sources: ['https://www.cdc.gov/table'] },
  ...over,
});

/** Submit work (fires contribution.submitted and submission.received); returns the submission id. */
export async function submit(who: TestUser, body: Record<string, unknown>): Promise<number> {
  const res = await who.client.post('/api/v1/submissions', body);
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

/** Accept a submission (fires contribution.accepted); returns the contribution id. */
export async function accept(pub: TestPublisher, submissionId: number): Promise<number> {
  const res = await pub.api.post('/api/v1/submissions/decide', { submission_id: submissionId, decision: 'accept', note: 'Thanks' });
  expect(res.status, res.text).toBe(200);
  return res.body.data.contribution_id as number;
}

/** Issue a panel statement on a topic, then its version 2 (each fires panel.updated). */
export async function panelOnTopic(t: TestApp, topic: string) {
  const body = statementBody({ topic });
  await createStatement(t.runtime.deps, body as never);
  await issueVersion(t.runtime.deps, body.id, versionBody(body, { answer: 'A revised answer.' }) as never);
  return body.id as string;
}

export async function newPublisher(t: TestApp): Promise<TestPublisher> {
  return publisher(t);
}
