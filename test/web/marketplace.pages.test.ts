// The marketplace offers a person only what they may take: a request of a publication they declared an interest in
// shows why it is not theirs (the take itself is refused with 403), where anyone else sees "Take this request".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { webUser, type WebUser } from './dashboard.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
let declared: WebUser;
let other: WebUser;
beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  const open = await pub.api.post('/api/v1/requests', { url: `https://${pub.domain}/story`, request_type: 'fact_checker', topic: 'zoology', title: 'Check the owl numbers' });
  expect(open.status, open.text).toBe(201);
  declared = await webUser(t, 'Dana Declared');
  other = await webUser(t, 'Oscar Other');
  const interest = await declared.api.post('/api/v1/account/interests', { subject: 'publication', name: pub.slug, kind: 'employment' });
  expect(interest.status, interest.text).toBe(201);
});
afterAll(async () => t?.close());

describe('the marketplace', () => {
  it('says why a request of a publication one declared an interest in is not offered', async () => {
    const page = await declared.b.get('/me/requests?topic=zoology');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Check the owl numbers');
    expect(page.text).toContain('You declared an interest in');
    expect(page.text).not.toContain('Take this request');
  });

  it('offers it to anyone else', async () => {
    const page = await other.b.get('/me/requests?topic=zoology');
    expect(page.text).toContain('Take this request');
    expect(page.text).not.toContain('You declared an interest in');
  });
});
