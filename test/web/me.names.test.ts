// /me/names over HTTP, as a browser without JavaScript uses it: a claim shown on the overview and answered on
// /me/names (Named as author), public work a person takes their name off (a second step saying what stays), standing
// answers to a publication, and a webhook of one's own that hears what names one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { addMember, publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { webPublication, webUser } from './dashboard.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  pub = await publisher(t);
});
afterAll(async () => t?.close());

const lookup = async (path: string) =>
  (await new Client(t.baseUrl).get(`/api/v1/pages/lookup?url=${encodeURIComponent(`https://${pub.domain}/${path}`)}`)).body.data;

describe('Named as author (/me/names)', () => {
  it('a claim is answered from /me/names; confirmed work can be taken back', async () => {
    const person = await webUser(t, 'Ida Tarbell');
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/named`, title: 'Named here', authors: [person.username] });
    const overview = await person.b.get('/me');
    expect(overview.text).toContain('Named as an author');
    const names = await person.b.get('/me/names');
    expect(names.text).toContain('Named here');
    const claim = /action="\/me\/claims\/(\d+)\/confirm"/.exec(names.text)![1];
    expect((await person.b.post(`/me/claims/${claim}/confirm`, {})).location).toBe('/me/names?done=confirmed');
    expect((await lookup('named')).contributors.author).toMatchObject([{ username: person.username }]);

    const after = await person.b.get('/me/names');
    const id = /action="\/me\/contributions\/(\d+)\/withdraw"/.exec(after.text)![1];
    expect((await person.b.post(`/me/contributions/${id}/withdraw`, {})).location).toBe('/me/names?done=withdrawn');
    expect((await lookup('named')).contributors).toEqual({});
  });

  it('taking one’s name back is a second step that says, for an authorship, that the conflict stays', async () => {
    const person = await webUser(t, 'Upton Sinclair');
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/authored`, title: 'Authored here', authors: [person.username] });
    const names = await person.b.get('/me/names');
    const claim = /action="\/me\/claims\/(\d+)\/confirm"/.exec(names.text)![1];
    await person.b.post(`/me/claims/${claim}/confirm`, {});
    // Work of another kind on another page: a review the publication accepted.
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/reviewed`, title: 'Reviewed here' });
    const sent = await person.api.post('/api/v1/submissions', { url: `https://${pub.domain}/reviewed`, role: 'review', summary: 'Read closely', evidence: { reason: 'Checked it', sources: [] } });
    expect(sent.status, sent.text).toBe(201);
    expect((await pub.api.post('/api/v1/submissions/decide', { submission_id: sent.body.data.id, decision: 'accept' })).status).toBe(200);

    const page = await person.b.get('/me/names');
    const steps = [...page.text.matchAll(/<details class="confirm">[\s\S]*?<\/details>/g)].map((m) => m[0]).filter((d) => d.includes('/me/contributions/'));
    expect(steps).toHaveLength(2);
    const authored = steps.find((d) => d.includes('Authored here'))!;
    const reviewed = steps.find((d) => d.includes('Reviewed here'))!;
    for (const step of [authored, reviewed]) {
      // The summary opens the step; the only submit button is inside it, after the consequence.
      expect(step).toMatch(/<summary[^>]*>Take my name off/);
      expect(step.match(/type="submit"/g)).toHaveLength(1);
      expect(step).toContain('you cannot put it back from here');
    }
    expect(authored).toContain('Having been its author stays a conflict of interest: you will not be able to review, fact-check');
    expect(authored).toContain('or have such work accepted on it afterwards');
    expect(reviewed).not.toContain('conflict');
    // No form outside the steps takes a name off in one click.
    const outside = page.text.replace(/<details class="confirm">[\s\S]*?<\/details>/g, '');
    expect(outside).not.toContain('/me/contributions/');

    // Confirmed, the name is off and the conflict holds, as the step said.
    const id = /action="\/me\/contributions\/(\d+)\/withdraw"/.exec(authored)![1];
    expect((await person.b.post(`/me/contributions/${id}/withdraw`, {})).location).toBe('/me/names?done=withdrawn');
    expect((await lookup('authored')).contributors).toEqual({});
    const check = await person.api.post('/api/v1/submissions', { url: `https://${pub.domain}/authored`, role: 'review', summary: 'My own page', evidence: { reason: 'Checked it', sources: [] } });
    expect(check.status, check.text).toBe(403);
    expect(check.body.error.code).toBe('conflict_of_interest');
  });

  it('a post without the form’s token changes nothing', async () => {
    const person = await webUser(t);
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/csrf`, title: 'Guarded', authors: [person.username] });
    const names = await person.b.get('/me/names');
    const claim = /action="\/me\/claims\/(\d+)\/confirm"/.exec(names.text)![1];
    const forged = await new Client(t.baseUrl).req('POST', `/me/claims/${claim}/confirm`, {
      raw: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `credence_session=${person.b.cookie('credence_session')}` },
    });
    expect(forged.status).toBe(403);
    expect((await lookup('csrf')).contributors).toEqual({});
  });

  it('standing answers: a member lets its publication publish at once; anyone can refuse a publication', async () => {
    const person = await webUser(t);
    await addMember(pub.owner.client, pub.slug, { username: person.username, client: person.api });
    const names = await person.b.get('/me/names');
    expect(names.text).toContain(`Let The ${pub.slug} publish at once`);
    expect((await person.b.post(`/me/claim-preferences/${pub.slug}/permit`, {})).location).toBe('/me/names?done=saved');
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/staff`, title: 'By staff', authors: [person.username] });
    expect((await lookup('staff')).contributors.author).toMatchObject([{ username: person.username, provenance: { consent: 'standing_permission' } }]);

    const other = await webUser(t);
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/unwanted`, title: 'Unwanted', authors: [other.username] });
    expect((await other.b.post(`/me/claim-preferences/${pub.slug}/refuse`, {})).location).toBe('/me/names?done=saved');
    const res = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/unwanted-2`, title: 'Unwanted again', authors: [other.username] });
    expect(res.body.data.authors).toEqual([{ username: other.username, status: 'refused' }]);
  });

  it('the publisher’s dashboard shows who was asked and has not answered', async () => {
    const site = await webPublication(t);
    const person = await webUser(t, 'Nellie Bly');
    await site.owner.b.get(`${site.base}/pages`);
    const made = await site.owner.b.post(`${site.base}/pages`, { url: `https://${site.domain}/asked`, title: 'Asked', authors: person.username });
    expect(made.status).toBe(303);
    const list = await site.owner.b.get(`${site.base}/pages`);
    expect(list.text).toContain('Authors asked to confirm (1)');
    expect(list.text).toContain(person.username);
  });

  it('a webhook of one’s own: its secret shown once, a bad URL refused next to the field, deleted by its owner only', async () => {
    const person = await webUser(t, 'Lincoln Steffens');
    await person.b.get('/me/names');
    const made = await person.b.postFollow('/me/webhooks', { url: 'https://hooks.example.com/credence' });
    expect(made.status).toBe(200);
    const secret = /id="new-secret" class="secret" readonly value="(whsec_[0-9a-f]{64})"/.exec(made.text)?.[1];
    expect(secret).toBeDefined();
    const listed = (await person.api.get('/api/v1/account/webhooks')).body.data;
    expect(listed).toMatchObject([{ url: 'https://hooks.example.com/credence', format: 'contributor', publisher: null }]);
    const again = await person.b.get('/me/names');
    expect(again.text).toContain('https://hooks.example.com/credence');
    expect(again.text).not.toContain(secret!);

    const bad = await person.b.post('/me/webhooks', { url: 'ftp://hooks.example.com/x' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="f-url-error"');
    expect(bad.text).toContain('https');
    expect((await person.b.post('/me/webhooks', { url: '' })).status).toBe(400);

    const other = await webUser(t);
    await other.b.get('/me/names');
    expect((await other.b.post(`/me/webhooks/${listed[0].id}/delete`, {})).status).toBe(404);
    const forged = await new Client(t.baseUrl).req('POST', `/me/webhooks/${listed[0].id}/delete`, {
      raw: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `credence_session=${person.b.cookie('credence_session')}` },
    });
    expect(forged.status).toBe(403);
    expect((await person.b.post(`/me/webhooks/${listed[0].id}/delete`, {})).location).toBe('/me/names?done=hook-deleted#webhooks');
    expect((await person.api.get('/api/v1/account/webhooks')).body.data).toEqual([]);
  });
});
