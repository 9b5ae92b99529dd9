// The marketplace could be emptied. A fresh account took all 24 open requests, and takes never expired.
// Now an account holds at most REQUESTS_HELD_PER_ACCOUNT requests, work pending on them included (409 `conflict`
// naming the limit; submitting junk on each frees no place, the publisher's decision does), and a take without work runs out after REQUEST_TAKE_HOURS: the request reopens, the specialist is told on
// /me and the publisher on its dashboard. The sweep runs in `serve` (jobs/take-expiry.ts) on the service's clock,
// and is safe to run twice or on several instances at once. Both databases (DATABASE_URL picks PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireStaleTakes } from '../../src/domain/requests/request.service.js';
import { startTakeExpiry } from '../../src/jobs/take-expiry.js';
import { publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from '../web/browser-client.js';

let t: TestApp;
let p: TestPublisher;
const HOUR = 3_600_000;

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  p = await publisher(t);
});
afterAll(async () => t?.close());

let n = 0;
async function openRequest(): Promise<number> {
  const res = await p.api.post('/api/v1/requests', { url: `https://${p.domain}/story-${++n}`, request_type: 'reviewer', title: `Story ${n}`, topic: 'health' });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}
const take = (u: TestUser, id: number) => u.client.post(`/api/v1/review-requests/${id}/take`);
const status = async (id: number) => (await t.runtime.deps.db.selectFrom('requests').select(['status', 'taken_by']).where('id', '=', id).executeTakeFirstOrThrow());
const submit = (u: TestUser, id: number) => u.client.post('/api/v1/submissions', { request_id: id, summary: 'Reviewed', evidence: { reason: 'Read it', sources: [] } });

async function signedIn(u: TestUser): Promise<FormClient> {
  const b = new FormClient(t.baseUrl);
  await b.get('/login');
  const res = await b.post('/login', { email: u.email, password: u.password });
  expect(res.status).toBe(303);
  return b;
}

describe('a cap on the requests one account holds', () => {
  it('takes three, refuses the fourth with 409 naming the limit; a release frees a place', async () => {
    const ids = [await openRequest(), await openRequest(), await openRequest(), await openRequest(), await openRequest()];
    const u = await signup(t);
    for (const id of ids.slice(0, 3)) expect((await take(u, id)).status).toBe(200);
    const refused = await take(u, ids[3]!);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'conflict', details: [{ field: 'limit' }] } });
    expect(refused.body.error.message).toContain('hold 3 requests');
    expect(await status(ids[3]!)).toEqual({ status: 'open', taken_by: null });

    expect((await u.client.post(`/api/v1/review-requests/${ids[1]}/release`)).status).toBe(200);
    expect((await take(u, ids[3]!)).status).toBe(200);
    expect((await take(u, ids[4]!)).status).toBe(409);
    // Someone else is not held back by it.
    expect((await take(await signup(t), ids[1]!)).status).toBe(200);
  });

  it('counts a take whose work is pending: junk submitted on each frees nothing; the publisher deciding frees the place', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, () => openRequest()));
    const u = await signup(t);
    const junk = (id: number) => u.client.post('/api/v1/submissions', { request_id: id, summary: 'x', evidence: { reason: 'x', sources: [] } });
    const subs: number[] = [];
    for (const id of ids.slice(0, 3)) {
      expect((await take(u, id)).status).toBe(200);
      const s = await junk(id);
      expect(s.status, s.text).toBe(201);
      subs.push(s.body.data.id);
    }
    const refused = await take(u, ids[3]!);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'conflict', details: [{ field: 'limit' }] } });
    expect(await status(ids[3]!)).toEqual({ status: 'open', taken_by: null });
    // The web form refuses it too, in words.
    const b = await signedIn(u);
    await b.get('/me/requests');
    const page = await b.post(`/me/requests/${ids[3]}/take`, {});
    expect(page.status).toBe(409);
    expect(page.text).toContain('You hold 3 requests, the most an account may; a place frees when the publisher decides your work on one');
    expect(await status(ids[3]!)).toEqual({ status: 'open', taken_by: null });

    // Rejected: the request reopens and the place frees.
    expect((await p.api.post('/api/v1/submissions/decide', { submission_id: subs[0], decision: 'reject' })).status).toBe(200);
    expect((await take(u, ids[3]!)).status).toBe(200);
    expect((await take(u, ids[4]!)).status).toBe(409);
    // Accepted: the request is fulfilled and the place frees.
    expect((await p.api.post('/api/v1/submissions/decide', { submission_id: subs[1], decision: 'accept' })).status).toBe(200);
    expect((await take(u, ids[4]!)).status).toBe(200);
    // Withdrawn: the request reopens and the place frees.
    const more = await openRequest();
    expect((await take(u, more)).status).toBe(409);
    expect((await u.client.post(`/api/v1/submissions/${subs[2]}/withdraw`)).status).toBe(200);
    expect((await take(u, more)).status).toBe(200);
  });

  it('holds when takes arrive at once, and says so on /me/requests', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, () => openRequest()));
    const u = await signup(t);
    const all = await Promise.all(ids.map((id) => take(u, id)));
    expect(all.filter((r) => r.status === 200)).toHaveLength(3);
    expect(all.filter((r) => r.status === 409)).toHaveLength(2);
    const b = await signedIn(u);
    await b.get('/me/requests');
    const open = ids.filter((_, i) => all[i]!.status === 409)[0]!;
    const page = await b.post(`/me/requests/${open}/take`, {});
    expect(page.status).toBe(409);
    expect(page.text).toContain('You hold 3 requests, the most an account may');
  });
});

describe('a take runs out without work', () => {
  it('reopens after REQUEST_TAKE_HOURS; the specialist (on /me) and the publisher (its dashboard) are told', async () => {
    const id = await openRequest();
    const worked = await openRequest();
    const u = await signup(t);
    expect((await take(u, id)).status).toBe(200);
    expect((await take(u, worked)).status).toBe(200);
    expect((await submit(u, worked)).status).toBe(201);
    const b = await signedIn(u);
    // The take without work has a deadline; the one with work waiting for the publisher does not, and says so.
    const held = (await b.get('/me')).text;
    expect(held.split('Submit work on it by')).toHaveLength(2);
    expect(held).toContain('You submitted work on it');
    expect((await b.get('/me/requests')).text.split('or it opens to others again')).toHaveLength(2);

    t.clock.advance(71 * HOUR);
    await expireStaleTakes(t.runtime.deps);
    expect(await status(id)).toMatchObject({ status: 'taken' });
    t.clock.advance(2 * HOUR);
    expect(await expireStaleTakes(t.runtime.deps)).toBeGreaterThanOrEqual(1);
    expect(await status(id)).toEqual({ status: 'open', taken_by: null });
    // Work pending keeps a take, however old.
    expect(await status(worked)).toMatchObject({ status: 'taken' });
    const api = await u.client.get(`/api/v1/review-requests/${id}`);
    expect(api.body.data).toMatchObject({ status: 'open' });

    const me = await b.get('/me');
    expect(me.text).toContain('Takes that ran out');
    // The request is named by its title (or its page’s, quoted), not by an id and the title in quotes.
    expect(me.text).toContain(`<li>Story `);
    expect(me.text).not.toContain(`Request ${id},`);
    const owner = await signedIn(p.owner);
    const dash = await owner.get(`/dashboard/${p.slug}/requests`);
    expect(dash.status).toBe(200);
    expect(dash.text).toContain('Takes that ran out');
    expect(dash.text).toContain(`<li>Story `);
    expect(dash.text).toContain(u.username);
    // Nothing private there: no email.
    expect(dash.text).not.toContain(u.email);
    // Anyone may take it again, the same specialist included.
    expect((await take(u, id)).status).toBe(200);
  });

  it('is safe to run twice and on several instances at once: each take expires once, told once', async () => {
    const ids = await Promise.all(Array.from({ length: 3 }, () => openRequest()));
    const u = await signup(t);
    for (const id of ids) expect((await take(u, id)).status).toBe(200);
    t.clock.advance(73 * HOUR);
    const runs = await Promise.all([expireStaleTakes(t.runtime.deps, 1), expireStaleTakes(t.runtime.deps, 2), expireStaleTakes(t.runtime.deps)]);
    expect(runs.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3);
    const rows = await t.runtime.deps.db.selectFrom('request_take_expiries').select('request_id').where('request_id', 'in', ids).execute();
    expect(rows.map((r) => r.request_id).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(await status(id)).toEqual({ status: 'open', taken_by: null });
    expect(await expireStaleTakes(t.runtime.deps)).toBe(0);
  });

  it('runs by itself as `serve` runs it, on the service clock', async () => {
    const id = await openRequest();
    const u = await signup(t);
    expect((await take(u, id)).status).toBe(200);
    const jobs = [startTakeExpiry(t.runtime.deps, { pollMs: 20 }), startTakeExpiry(t.runtime.deps, { pollMs: 20 })];
    try {
      await new Promise((r) => setTimeout(r, 60));
      expect(await status(id)).toMatchObject({ status: 'taken' });
      t.clock.advance(73 * HOUR);
      const deadline = Date.now() + 3000;
      while ((await status(id)).status !== 'open' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await status(id)).toEqual({ status: 'open', taken_by: null });
    } finally {
      await Promise.all(jobs.map((j) => j.stop()));
    }
    const told = await t.runtime.deps.db.selectFrom('request_take_expiries').select('id').where('request_id', '=', id).execute();
    expect(told).toHaveLength(1);
  });
});
