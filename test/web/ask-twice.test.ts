// What cannot be undone asks twice (docs/decisions/irreversible-actions-ask-twice.md), over HTTP as a browser without
// JavaScript sees it: on every page where a person can delete, release, withdraw, remove, leave, end or decide, the
// button that posts is inside a <details class="confirm"> whose summary opens it and whose opened step says what will
// happen. No destructive form is left bare on the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { registerPage, submitCorrection, type WebPublication, webPublication, type WebUser, webUser } from './dashboard.fixtures.js';

let t: TestApp;
let pub: WebPublication;
let asking: TestPublisher;
let member: WebUser;
let specialist: WebUser;
let hookId: number;
let submissionId: number;

const DESTRUCTIVE = /\/(delete|remove|withdraw|release|end|revoke|cancel|refuse|decide)"/;
const STEP = /<details class="confirm">[\s\S]*?<\/details>/g;

/** Every second step on a page, and what is left of the page once they are taken out. */
function steps(text: string): { steps: string[]; outside: string } {
  return { steps: [...text.matchAll(STEP)].map((m) => m[0]), outside: text.replace(STEP, '') };
}

/** A step opens with its summary, says what happens in a paragraph, then holds exactly one submit button. */
function expectWellFormed(step: string) {
  expect(step).toMatch(/^<details class="confirm"><summary class="button[^"]*">/);
  expect(step.match(/type="submit"/g)).toHaveLength(1);
  expect(step.indexOf('<p>')).toBeGreaterThan(step.indexOf('</summary>'));
  expect(step.indexOf('<p>')).toBeLessThan(step.indexOf('type="submit"'));
}

/** No form on the page posts a destructive action outside a second step, and no bare button decides. */
function expectNothingBare(text: string) {
  const { outside } = steps(text);
  const bare = [...outside.matchAll(/<form method="post" action="([^"]*)"/g)].map((m) => m[1]!).filter((a) => DESTRUCTIVE.test(`${a}"`));
  // The inbox's note form posts to /decide; its buttons are inside the steps, so none is left outside.
  const decideButtons = outside.match(/name="decision"/g) ?? [];
  expect({ bare: bare.filter((a) => !a.endsWith('/decide')), decideButtons }).toEqual({ bare: [], decideButtons: [] });
}

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true, rateLimitAllowlist: ['127.0.0.1'] });
  pub = await webPublication(t);
  member = await webUser(t, 'Mara Member');
  await addMember(pub.owner.api, pub.slug, { username: member.username, client: member.api });
  const invitee = await webUser(t, 'Ivo Invited');
  expect((await pub.owner.api.post(`/api/v1/account/publishers/${pub.slug}/members`, { username: invitee.username, role: 'editor' })).status).toBe(202);
  const made = await pub.owner.b.post(`${pub.base}/webhooks`, { url: 'http://127.0.0.1:9/hook', format: 'api_v1', events_api_v1: ['page.registered'] });
  expect(made.status, made.text).toBe(303);
  hookId = (await t.runtime.deps.db.selectFrom('webhooks').select('id').where('url', '=', 'http://127.0.0.1:9/hook').executeTakeFirstOrThrow()).id;

  specialist = await webUser(t, 'Sam Specialist');
  const page = await registerPage(t, pub);
  submissionId = await submitCorrection(specialist, page.url);
  asking = await publisher(t);
  const open = await asking.api.post('/api/v1/requests', { url: `https://${asking.domain}/story`, request_type: 'fact_checker', topic: 'zoology', title: 'Check the owl numbers' });
  expect(open.status, open.text).toBe(201);
  await specialist.b.get('/me/requests');
  expect((await specialist.b.post(`/me/requests/${open.body.data.id}/take`, {})).status).toBe(303);
  await specialist.b.get('/me/profile');
  expect((await specialist.b.post('/me/interests', { subject: 'publication', name: asking.slug, kind: 'employment', note: '' })).status).toBe(303);
  expect((await asking.api.post('/api/v1/pages', { url: `https://${asking.domain}/byline`, title: 'Byline here', authors: [specialist.username] })).status).toBe(201);
  await specialist.b.get('/me/names');
  expect((await specialist.b.post('/me/webhooks', { url: 'http://127.0.0.1:9/mine' })).status).toBe(303);
});
afterAll(async () => t?.close());

describe('every destructive button asks once more', () => {
  it('the publication’s overview: removing a member, leaving and withdrawing an invitation', async () => {
    const owner = await pub.owner.b.get(pub.base);
    expectNothingBare(owner.text);
    const { steps: ownerSteps } = steps(owner.text);
    ownerSteps.forEach(expectWellFormed);
    expect(ownerSteps.find((s) => s.includes(`/members/${member.username}/remove`))).toContain('loses access to');
    expect(ownerSteps.find((s) => s.includes('/invitations/'))).toContain('can no longer accept');
    const mine = await member.b.get(pub.base);
    expectNothingBare(mine.text);
    expect(steps(mine.text).steps.find((s) => s.includes(`/members/${member.username}/remove`))).toContain('You lose access to');
  });

  it('a webhook’s page: deleting it says what goes with it', async () => {
    const page = await pub.owner.b.get(`${pub.base}/webhooks/${hookId}`);
    expectNothingBare(page.text);
    const del = steps(page.text).steps.find((s) => s.includes(`/webhooks/${hookId}/delete`))!;
    expectWellFormed(del);
    expect(del).toContain('cannot be brought back');
  });

  it('the inbox: Accept and Reject are each a step that says the decision is final', async () => {
    const page = await pub.owner.b.get(`${pub.base}/inbox`);
    expectNothingBare(page.text);
    const found = steps(page.text).steps;
    const accept = found.find((s) => s.includes('value="accept"'))!;
    const reject = found.find((s) => s.includes('value="reject"'))!;
    for (const s of [accept, reject]) {
      expectWellFormed(s);
      expect(s).toContain('A decision cannot be changed afterwards.');
    }
    // An unasked correction reopens no request: the step does not pretend it does, nor does the notice after.
    expect(reject).not.toContain('opens again');
    const done = await pub.owner.b.postFollow(`${pub.base}/inbox/${submissionId}/decide`, { decision: 'reject', note: '' });
    expect(done.text).toContain('Rejected: the contributor sees your note.');
    expect(done.text).not.toContain('the request is open again');
  });

  it('the specialist’s pages: Release, Withdraw, End this declaration, Delete webhook and declining a byline', async () => {
    const fresh = await webUser(t, 'Wes Withdrawer');
    const page = await registerPage(t, pub);
    await submitCorrection(fresh, page.url);
    const cases: [WebUser, string, string, string][] = [
      [specialist, '/me/requests', '/release"', 'someone else may take it'],
      [specialist, '/me', '/release"', 'someone else may take it'],
      [fresh, '/me/submissions', '/withdraw"', 'cannot be sent again'],
      [specialist, '/me/profile', '/end"', 'cannot be resumed'],
      [specialist, '/me/names', '/delete"', 'cannot be brought back'],
      [specialist, '/me/names', '/decline"', 'cannot name you on that page again'],
    ];
    for (const [who, path, action, says] of cases) {
      const res = await who.b.get(path);
      expect(res.status, path).toBe(200);
      expectNothingBare(res.text);
      const step = steps(res.text).steps.find((s) => s.includes(action));
      expect(step, `${path} ${action}`).toBeDefined();
      expectWellFormed(step!);
      expect(step).toContain(says);
    }
  });
});
