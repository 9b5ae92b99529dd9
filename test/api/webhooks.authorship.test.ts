// Publishing an authorship tells the publication's webhooks, on both surfaces, as accepted work does (seed 001:
// `contribution.accepted`, so cached attribution blocks are refreshed): when its person confirms the claim, and when
// a standing permission of theirs publishes it at once. Both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { addMember, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { registerHook, relayFor, unique } from './webhooks.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
let person: TestUser;
let rx: WebhookReceiver;
let relay: WebhookRelay;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
  pub = await publisher(t);
  person = await signup(t, { name: 'Ada Author' });
  const api = await registerHook(pub.owner, { url: rx.url('/api') });
  const v1 = await registerHook(pub.owner, { url: rx.url('/v1'), format: 'v1', publisher: pub.slug });
  rx.trust('/api', api.secret);
  rx.trust('/v1', v1.secret);
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  await t?.close();
});

async function name(path: string): Promise<string> {
  const url = `https://${pub.domain}/${path}`;
  const res = await pub.api.post('/api/v1/pages', [{ url, title: `Page ${path}`, topic: 'health', authors: [person.username] }]);
  expect(res.status, res.text).toBe(200);
  return url;
}

const accepted = (path: string, url: string) => rx.at(path).filter((r) => r.event === 'contribution.accepted' && JSON.stringify(r.json).includes(url));

describe('an authorship made public', () => {
  it('is told as contribution.accepted on both surfaces when its person confirms', async () => {
    const url = await name(`confirmed-${unique()}`);
    await relay.tick();
    expect(accepted('/api', url)).toEqual([]);
    const [claim] = (await person.client.get('/api/v1/account/claims?state=pending')).body.data;
    expect((await person.client.post(`/api/v1/account/claims/${claim.id}/confirm`)).status).toBe(200);
    await relay.tick();
    const [api] = accepted('/api', url);
    expect(api?.json.data).toMatchObject({
      page: { url },
      contribution: { role: 'author', summary: 'Wrote this page', submission_id: null, contributor: { username: person.username, name: 'Ada Author' }, change: null },
    });
    expect(api?.json.data.contribution.proof_url).toMatch(/\/proofs\/\d+$/);
    const [v1] = accepted('/v1', url);
    expect(v1?.json).toMatchObject({ event: 'contribution.accepted', page: url, contribution: { id: expect.stringMatching(/^ctb_\d+$/), type: 'author', contributor: person.username, status: 'accepted' } });
  });

  it('is told when a standing permission publishes it at once', async () => {
    await addMember(pub.owner.client, pub.slug, person);
    expect((await person.client.req('PUT', `/api/v1/account/claim-preferences/${pub.slug}`, { body: { preference: 'permit' } })).status).toBe(200);
    const url = await name(`permitted-${unique()}`);
    await relay.tick();
    expect(accepted('/api', url)).toHaveLength(1);
    expect(accepted('/v1', url)).toHaveLength(1);
  });
});
