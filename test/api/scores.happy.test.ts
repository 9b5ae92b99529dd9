// Scores that explain themselves: for every contributor of the demo data (42; the issue asks for 50), each score recomputed here from
// its explanation alone (the work, its weights, the rejected count, the formula's constants) equals the score the
// profile shows, on both surfaces; the profile links to it and the page shows the sums.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.js';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let anon: Client;
let usernames: string[];

beforeAll(async () => {
  t = await startTestApp();
  anon = new Client(t.baseUrl);
  await seedDemo(t.runtime.deps, () => {});
  // Up to 50, the most accepted work first: the demo holds 42 accounts (37 with accepted work, the others' scores
  // come from rejections or nothing), so every one of them.
  const rows = await t.runtime.deps.db.selectFrom('accounts').select('username').orderBy('accepted_count', 'desc').orderBy('rejected_count', 'desc').orderBy('id').limit(50).execute();
  usernames = rows.map((r) => r.username);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The formula as the explanation states it, written out again here (not imported), from its constants. */
function recompute(e: any) {
  const z = e.formula.z;
  const accepted = e.work.reduce((s: number, w: any) => s + w.counts_as_accepted, 0);
  const n = accepted + e.rejected;
  let trust = 0;
  if (n > 0) {
    const p = accepted / n;
    trust = round2(Math.max(0, (p + (z * z) / (2 * n) - z * Math.sqrt((p * (1 - p) + (z * z) / (4 * n)) / n)) / (1 + (z * z) / n)));
  }
  const byId = new Map(e.work.map((w: any) => [w.id, w]));
  return {
    contribution_score: e.work.reduce((s: number, w: any) => s + w.weight, 0),
    trust_score: trust,
    accepted,
    topics: e.topics.map((t: any) => {
      const w = t.work.reduce((s: number, id: unknown) => s + (byId.get(id) as any).weight, 0);
      expect(w).toBe(t.weight);
      return { topic: t.topic, authority: round2(trust * (1 - Math.exp(-w / 20))) };
    }),
  };
}

describe('scores that explain themselves', () => {
  it('recompute, for every demo contributor, to the scores their profiles show (both surfaces)', async () => {
    expect(usernames.length).toBeGreaterThanOrEqual(40);
    let diminished = 0;
    for (const username of usernames) {
      // A fresh address per person: an anonymous caller's bucket holds 60 requests.
      anon = new Client(t.baseUrl);
      const profile = (await anon.get(`/v1/contributors/${username}`)).body;
      expect(profile.scores_url).toBe(`https://credence.test/contributors/${username}/scores`);
      const v1 = await anon.get(`/v1/contributors/${username}/scores`);
      expect(v1.status, v1.text).toBe(200);
      const e = v1.body;
      // Each work's weight follows from its role and place, as the explanation's own rules say.
      for (const w of e.work) {
        expect(w.role_weight).toBe(e.formula.role_weights[w.role]);
        expect(w.weight).toBe(w.position <= 3 ? w.role_weight : w.position <= 9 ? Math.floor(w.role_weight / 2) : 0);
        expect(w.counts_as_accepted).toBe(w.position <= 9 ? 1 : 0);
        if (w.position > 3) diminished++;
      }
      const again = recompute(e);
      expect(again.contribution_score, username).toBe(profile.contribution_score);
      expect(again.trust_score, username).toBe(profile.trust_score);
      expect(again.topics, username).toEqual(profile.topics.map((t: any) => ({ topic: t.topic, authority: t.authority })));
      const api = (await anon.get(`/api/v1/contributors/${username}/scores`)).body.data;
      const apiProfile = (await anon.get(`/api/v1/contributors/${username}`)).body.data;
      const fromApi = recompute(api);
      expect(fromApi.contribution_score).toBe(apiProfile.contribution_score);
      expect(fromApi.trust_score).toBe(apiProfile.trust_score);
      expect(fromApi.accepted).toBe(apiProfile.accepted_count);
      if (e.work.length > 0) {
        expect(typeof api.work[0].id).toBe('number');
        expect(e.work[0].id).toMatch(/^ctb_\d+$/);
      }
    }
    // The demo has people with more than three works from one publication: the diminishing returns are exercised.
    expect(diminished).toBeGreaterThan(0);
  }, 120_000);

  it('is a page people can read, linked from the profile; an unknown contributor is 404', async () => {
    anon = new Client(t.baseUrl);
    const username = usernames[0]!;
    const profile = await anon.get(`/contributors/${username}`, { headers: { accept: 'text/html' } });
    expect(profile.text).toContain(`/contributors/${username}/scores`);
    const page = await anon.get(`/contributors/${username}/scores`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Contribution score');
    expect(page.text).toContain('Wilson lower bound');
    expect((await anon.get('/v1/contributors/nobody-at-all/scores')).status).toBe(404);
    expect((await anon.get('/api/v1/contributors/nobody-at-all/scores')).body).toMatchObject({ success: false, error: { code: 'not_found' } });
  });
});
