// Declared interests: a contributor declares them through the API and /me; one in a publication keeps
// them from taking its requests and submitting on its pages (403 in the /api/v1 envelope and on the web pages); the
// proof of their related work, their public profile on both surfaces and the publisher's inbox show them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { signedInClient } from '../web/pages.fixtures.js';
import { FormClient } from '../web/browser-client.js';

let t: TestApp;
let pub: TestPublisher;
let other: TestPublisher;
let anon: Client;
let specialist: TestUser;
let key: Client;
let url: string;
let otherUrl: string;

const evidence = { reason: 'Checked against the trial registry', sources: [] };

async function openRequest(p: TestPublisher, pageUrl: string): Promise<number> {
  const open = await p.api.post('/api/v1/requests', { url: pageUrl, request_type: 'fact_checker', topic: 'health', title: 'Check the numbers' });
  expect(open.status, open.text).toBe(201);
  return open.body.data.id as number;
}

beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  other = await publisher(t);
  anon = new Client(t.baseUrl);
  specialist = await signup(t, { name: 'Dr. Interested' });
  key = new Client(t.baseUrl).as(await contributorKey(specialist));
  url = `https://${pub.domain}/health/trial`;
  otherUrl = `https://${other.domain}/health/drug`;
  expect((await pub.api.post('/api/v1/pages', { url, title: 'The trial', topic: 'Health' })).status).toBe(201);
  expect((await other.api.post('/api/v1/pages', { url: otherUrl, title: 'The drug', topic: 'health' })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

describe('declaring', () => {
  it('takes an organisation, a publication (by slug) and a topic, with a kind; the profile shows them on both surfaces', async () => {
    const org = await specialist.client.post('/api/v1/account/interests', { subject: 'organisation', name: 'Acme Pharma', kind: 'funding', note: 'Research grant 2025' });
    expect(org.status, org.text).toBe(201);
    expect(org.body.data).toMatchObject({ subject: 'organisation', name: 'Acme Pharma', publication: null, kind: 'funding', note: 'Research grant 2025', ended_at: null });
    const topic = await key.post('/api/v1/account/interests', { subject: 'topic', name: ' Health ', kind: 'personal' });
    expect(topic.status, topic.text).toBe(201);
    expect(topic.body.data).toMatchObject({ subject: 'topic', name: 'health', note: '' });
    const list = await specialist.client.get('/api/v1/account/interests');
    expect(list.body.data.map((i: { name: string }) => i.name)).toEqual(['Acme Pharma', 'health']);
    const v1 = await anon.get(`/v1/contributors/${specialist.username}`);
    expect(v1.body.interests).toHaveLength(2);
    const api = await anon.get(`/api/v1/contributors/${specialist.username}`);
    expect(api.body.data.interests[0]).toMatchObject({ name: 'Acme Pharma', kind: 'funding' });
    expect(JSON.stringify(api.body)).not.toContain('account_id');
    const page = await anon.get(`/contributors/${specialist.username}`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('Declared interests');
    expect(page.text).toContain('Funding: Acme Pharma (Research grant 2025)');
  });

  it('refuses what it cannot read, naming the field', async () => {
    const bad = await specialist.client.post('/api/v1/account/interests', { subject: 'company', name: 'X', kind: 'funding' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error.details)).toContain('subject');
    const unknown = await specialist.client.post('/api/v1/account/interests', { subject: 'publication', name: 'no-such-publication', kind: 'employment' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([{ field: 'name', message: 'no publication has this slug' }]);
    const kind = await specialist.client.post('/api/v1/account/interests', { subject: 'topic', name: 'x', kind: 'friendship' });
    expect(kind.status).toBe(400);
    expect(JSON.stringify(kind.body.error.details)).toContain('kind');
  });
});

describe('an interest in a publication', () => {
  let requestId: number;
  let interestId: number;

  it('keeps the specialist from taking its requests and submitting on its pages (403), not another publication’s', async () => {
    requestId = await openRequest(pub, url);
    const declared = await specialist.client.post('/api/v1/account/interests', { subject: 'publication', name: pub.slug, kind: 'employment', note: 'Staff writer' });
    expect(declared.status, declared.text).toBe(201);
    expect(declared.body.data).toMatchObject({ subject: 'publication', publication: pub.slug, name: `The ${pub.slug}` });
    interestId = declared.body.data.id;

    const take = await key.post(`/api/v1/review-requests/${requestId}/take`);
    expect(take.status).toBe(403);
    expect(take.body).toMatchObject({ success: false, error: { code: 'forbidden' } });
    expect(take.body.error.message).toContain(`The ${pub.slug}`);
    const submit = await key.post('/api/v1/submissions', { url, role: 'fact_check', summary: 'Checked', evidence });
    expect(submit.status).toBe(403);
    expect(submit.body).toMatchObject({ success: false, error: { code: 'forbidden' } });
    // In a batch, the item fails the same way.
    const batch = await key.post('/api/v1/submissions', [
      { url, role: 'fact_check', summary: 'Checked', evidence },
      { url: otherUrl, role: 'fact_check', summary: 'Checked', evidence },
    ]);
    expect(batch.body.data.results[0]).toMatchObject({ status: 'failed', error: { code: 'forbidden' } });
    expect(batch.body.data.results[1].status).toBe('created');
    expect((await anon.get(`/api/v1/review-requests/${requestId}`)).body.data.status).toBe('open');
  });

  it('refuses on the web pages too (403)', async () => {
    const { b } = await signedInClient(t, 'Web Interested');
    await b.get('/me/profile');
    const declared = await b.post('/me/interests', { subject: 'publication', name: pub.slug, kind: 'ownership', note: '' });
    expect(declared.status, declared.text).toBe(303);
    const profile = await b.get('/me/profile?done=declared');
    expect(profile.text).toContain(`Ownership: the publication The ${pub.slug}`);
    await b.get('/me/requests');
    const take = await b.post(`/me/requests/${requestId}/take`, {});
    expect(take.status).toBe(403);
    expect(take.text).toContain('You declared an interest in');
    await b.get('/me/submit');
    const submit = await b.post('/me/submissions', { url, role: 'fact_check', summary: 'Checked', reason: 'Because', sources: '' });
    expect(submit.status).toBe(403);
    expect(submit.text).toContain('You declared an interest in');
    // A bad declaration answers the form with the field's error.
    await b.get('/me/profile');
    const bad = await b.post('/me/interests', { subject: 'publication', name: 'nope-nope', kind: 'ownership', note: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/no publication has this slug/i);
  });

  it('shows in the publisher’s inbox before deciding, and on the proof of related work', async () => {
    const inbox = await other.api.get('/api/v1/publisher-auth/requests?status=pending');
    const mine = inbox.body.data.find((s: { contributor: { username: string } }) => s.contributor.username === specialist.username);
    expect(mine.contributor.interests.map((i: { name: string }) => i.name)).toEqual(['Acme Pharma', 'health', `The ${pub.slug}`]);
    const editor = new FormClient(t.baseUrl);
    await editor.get('/login');
    expect((await editor.post('/login?next=/dashboard', { email: other.owner.email, password: other.owner.password })).status).toBe(303);
    const dashboard = await editor.get(`/dashboard/${other.slug}/inbox`);
    expect(dashboard.status).toBe(200);
    expect(dashboard.text).toContain('Funding: Acme Pharma');
    const decided = await other.api.post('/api/v1/submissions/decide', { submission_id: mine.id, decision: 'accept' });
    expect(decided.status, decided.text).toBe(200);
    const contributionId = decided.body.data.contribution_id as number;
    // The page's topic is health: the topic interest bears on it; the employer's publication and the funder do not.
    const proof = await anon.get(`/proofs/${contributionId}`);
    expect(proof.body.interests.map((i: { subject: string; name: string }) => `${i.subject}:${i.name}`)).toEqual(['topic:health']);
    const html = await anon.get(`/proofs/${contributionId}`, { headers: { accept: 'text/html' } });
    expect(html.text).toContain('Declared interests');
    expect(html.text).toContain('Personal: the topic health');
  });

  it('ends: the specialist may take the requests again; a proof of work accepted while it held keeps showing it', async () => {
    // Accepted while the publication interest held? No: that work was on another publication. Work on pub's page
    // after ending the declaration shows the ended interest only if it held when accepted, which it did not.
    const end = await specialist.client.delete(`/api/v1/account/interests/${interestId}`);
    expect(end.status, end.text).toBe(200);
    expect((await specialist.client.delete(`/api/v1/account/interests/${interestId}`)).status).toBe(404);
    const someoneElse = await signup(t);
    expect((await someoneElse.client.delete(`/api/v1/account/interests/${interestId - 1}`)).status).toBe(404);
    const take = await key.post(`/api/v1/review-requests/${requestId}/take`);
    expect(take.status, take.text).toBe(200);
    expect((await anon.get(`/v1/contributors/${specialist.username}`)).body.interests.map((i: { name: string }) => i.name)).toEqual(['Acme Pharma', 'health']);

    // An interest declared after work was accepted on that publication's pages shows on its proof while it holds.
    const author = await signup(t, { name: 'Later Hire' });
    const work = await new Client(t.baseUrl).as(await contributorKey(author)).post('/api/v1/submissions', { url, role: 'review', summary: 'Read it', evidence });
    expect(work.status, work.text).toBe(201);
    const ok = await pub.api.post('/api/v1/submissions/decide', { submission_id: work.body.data.id, decision: 'accept' });
    const id = ok.body.data.contribution_id as number;
    expect((await anon.get(`/proofs/${id}`)).body.interests).toEqual([]);
    t.clock.advanceDays(1);
    const hired = await author.client.post('/api/v1/account/interests', { subject: 'publication', name: pub.slug, kind: 'employment' });
    expect((await anon.get(`/proofs/${id}`)).body.interests.map((i: { kind: string }) => i.kind)).toEqual(['employment']);
    // Ended later, it no longer held when the work was accepted: it leaves the proof.
    t.clock.advanceDays(1);
    await author.client.delete(`/api/v1/account/interests/${hired.body.data.id}`);
    expect((await anon.get(`/proofs/${id}`)).body.interests).toEqual([]);
  });
});
