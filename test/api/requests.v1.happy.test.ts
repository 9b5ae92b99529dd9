// /v1/requests for a person in several publications: the list covers all of them, and a request is opened
// for the publication that verified the page's domain; keys act for their own publication as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { addMember, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let a: TestPublisher;
let b: TestPublisher;
let stranger: TestPublisher;
let both: TestUser;
let n = 0;

beforeAll(async () => {
  t = await startTestApp();
  both = await signup(t);
  [a, b, stranger] = await Promise.all([publisher(t, { owner: both }), publisher(t), publisher(t)]);
  await addMember(b.owner.client, b.slug, both);
});
afterAll(async () => t?.close());

const open = (c: Client, pub: TestPublisher, type = 'review') => c.post('/v1/requests', { url: `https://${pub.domain}/v1req/${++n}`, type });
const idsOf = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);

describe('a person in two publications', () => {
  it('opens a request on either one’s page, for the publication that verified its domain', async () => {
    const onA = await open(both.client, a);
    expect(onA.status, onA.text).toBe(201);
    const onB = await open(both.client, b, 'correction');
    expect(onB.status, onB.text).toBe(201);
    expect(onB.body).toMatchObject({ status: 'open', type: 'correction', url: expect.stringContaining(b.domain) });
    // Each publication's key sees its own.
    expect(idsOf(await a.api.get('/v1/requests'))).toContain(onA.body.id);
    expect(idsOf(await a.api.get('/v1/requests'))).not.toContain(onB.body.id);
    expect(idsOf(await b.api.get('/v1/requests'))).toContain(onB.body.id);
  });

  it('lists the requests of every publication they belong to, and no other', async () => {
    const mine = [(await open(both.client, a)).body.id, (await open(both.client, b)).body.id];
    const theirs = (await open(stranger.api, stranger)).body.id;
    const res = await both.client.get('/v1/requests?per_page=100');
    expect(res.status, res.text).toBe(200);
    expect(idsOf(res)).toEqual(expect.arrayContaining(mine));
    expect(idsOf(res)).not.toContain(theirs);
    expect(res.body.meta.total).toBe(res.body.data.length);
  });

  it('cannot open one on a page of a publication they are not in (403), nor on an unverified site', async () => {
    for (const url of [`https://${stranger.domain}/x`, 'https://nobody-verified.example/x']) {
      const res = await both.client.post('/v1/requests', { url, type: 'review' });
      expect(res.status, res.text).toBe(403);
      expect(res.body.error.code).toBe('page_not_verified');
    }
  });
});

describe('keys and others', () => {
  it('a publisher key still acts for its own publication only', async () => {
    const res = await a.api.post('/v1/requests', { url: `https://${b.domain}/not-mine`, type: 'review' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('page_not_verified');
  });

  it('a person in no publication is 403, on both', async () => {
    const loner = await signup(t);
    expect((await loner.client.get('/v1/requests')).status).toBe(403);
    expect((await open(loner.client, a)).status).toBe(403);
  });
});
