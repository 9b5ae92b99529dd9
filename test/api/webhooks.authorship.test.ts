// Seed 001 §6: `contribution.accepted` fires whenever a page's public trust record gains work, "so cached attribution
// blocks should be refreshed": a confirmed authorship and one a standing permission publishes at once included, on
// both surfaces. Work that leaves a page (a pending submission withdrawn, published work its person takes their name
// back from) reaches /api/v1 endpoints as `contribution.withdrawn`, as it reaches /v1 ones. Every payload matches the
// schema its document's `webhooks` section gives.
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { API_WEBHOOK_PAYLOADS } from '../../src/surfaces/integration-v1/webhook-events.presenter.js';
import { V1_WEBHOOK_PAYLOADS } from '../../src/surfaces/public-v1/webhook-events.presenter.js';
import { addMember, confirmClaims, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { newPublisher, registerHook, relayFor, specialist, submit } from './webhooks.fixtures.js';

let t: TestApp;
let rx: WebhookReceiver;
let relay: WebhookRelay;
let pub: TestPublisher;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
  pub = await newPublisher(t);
  const api = await registerHook(pub.owner, { url: rx.url('/api') });
  rx.trust('/api', api.secret);
  const v1 = await registerHook(pub.owner, { url: rx.url('/v1'), format: 'v1', publisher: pub.slug });
  rx.trust('/v1', v1.secret);
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  await t?.close();
});

/** What reached each endpoint since `before`, each checked against its document's schema. */
function since(before: number, event: string) {
  const fresh = rx.requests.slice(before).filter((r) => r.event === event);
  for (const r of fresh) {
    const schema = (r.path === '/api' ? API_WEBHOOK_PAYLOADS : V1_WEBHOOK_PAYLOADS)[event]!.schema;
    expect([...Value.Errors(schema, r.json)], JSON.stringify(r.json)).toEqual([]);
    expect(r.verified).toBe(true);
  }
  return { api: fresh.filter((r) => r.path === '/api').map((r) => r.json), v1: fresh.filter((r) => r.path === '/v1').map((r) => r.json) };
}

describe('authorships on the webhooks', () => {
  it('a confirmed authorship fires contribution.accepted on both surfaces', async () => {
    const author = await signup(t, { name: 'Ann Author' });
    const url = `https://${pub.domain}/authored/one`;
    expect((await pub.api.post('/api/v1/pages', { url, title: 'One', authors: [author.username] })).status).toBe(201);
    await relay.tick();
    const before = rx.requests.length;
    await confirmClaims(author);
    await relay.tick();
    const got = since(before, 'contribution.accepted');
    expect(got.api).toHaveLength(1);
    expect(got.api[0].data.contribution).toMatchObject({ role: 'author', submission_id: null, contributor: { username: author.username, name: 'Ann Author' }, change: null });
    expect(got.api[0].data.page).toMatchObject({ url });
    expect(got.v1).toHaveLength(1);
    expect(got.v1[0]).toMatchObject({ event: 'contribution.accepted', page: url, contribution: { type: 'author', contributor: author.username, status: 'accepted' } });
  });

  it('an authorship a standing permission publishes at once fires it too', async () => {
    const member = await signup(t);
    await addMember(pub.owner.client, pub.slug, member);
    expect((await member.client.req('PUT', `/api/v1/account/claim-preferences/${pub.slug}`, { body: { preference: 'permit' } })).status).toBe(200);
    await relay.tick();
    const before = rx.requests.length;
    const url = `https://${pub.domain}/authored/permitted`;
    expect((await pub.api.post('/api/v1/pages', { url, title: 'Two', authors: [member.username] })).body.data.authors[0].status).toBe('published');
    await relay.tick();
    const got = since(before, 'contribution.accepted');
    expect(got.api.map((p) => p.data.contribution.contributor.username)).toEqual([member.username]);
    expect(got.v1.map((p) => p.contribution.contributor)).toEqual([member.username]);
  });
});

describe('withdrawn work on /api/v1', () => {
  it('a pending submission withdrawn reaches the /api/v1 endpoint as contribution.withdrawn', async () => {
    const ada = await specialist(t);
    const url = `https://${pub.domain}/withdrawn/one`;
    expect((await pub.api.post('/api/v1/pages', { url, title: 'W' })).status).toBe(201);
    const id = await submit(ada, { url, role: 'review', summary: 'Read it', evidence: { reason: 'Fine', sources: [] } });
    await relay.tick();
    const before = rx.requests.length;
    expect((await ada.client.post(`/api/v1/submissions/${id}/withdraw`)).status).toBe(200);
    await relay.tick();
    const got = since(before, 'contribution.withdrawn');
    expect(got.api.map((p) => p.data.withdrawn)).toEqual([
      { submission_id: id, contribution_id: null, role: 'review', summary: 'Read it', contributor: { username: ada.username, name: 'Dr. Ada Specialist' }, withdrawn_by: 'contributor' },
    ]);
    expect(got.v1).toHaveLength(1);
  });

  it('an authorship its person takes their name back from reaches it too', async () => {
    const author = await signup(t);
    const url = `https://${pub.domain}/authored/back`;
    await pub.api.post('/api/v1/pages', { url, title: 'Back', authors: [author.username] });
    await relay.tick();
    const confirmed = rx.requests.length;
    await confirmClaims(author);
    await relay.tick();
    const contributionId = since(confirmed, 'contribution.accepted').api[0].data.contribution.id as number;
    const before = rx.requests.length;
    expect((await author.client.post(`/api/v1/account/contributions/${contributionId}/withdraw`)).status).toBe(200);
    await relay.tick();
    const got = since(before, 'contribution.withdrawn');
    expect(got.api.map((p) => p.data.withdrawn)).toEqual([
      { submission_id: null, contribution_id: contributionId, role: 'author', summary: 'Wrote this page', contributor: { username: author.username, name: expect.any(String) }, withdrawn_by: 'contributor' },
    ]);
    expect(got.v1).toHaveLength(1);
  });
});
