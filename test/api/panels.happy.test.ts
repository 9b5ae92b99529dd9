// Expert panels (SPEC §14): admins create statements and issue versions; /v1 reads any version and lists current
// ones; issuing fires panel.updated with the changed fields; linked panellists are experts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { confirmClaims, publisher, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { makeAdmin, panelEvents, statementBody, type TestAdmin, unique, versionBody, versionCount } from './panels.fixtures.js';

let t: TestApp;
let admin: TestAdmin;
let anon: Client;
beforeAll(async () => {
  t = await startTestApp();
  admin = await makeAdmin(t);
  anon = new Client(t.baseUrl);
});
afterAll(async () => t?.close());
// Each test moves the clock on, so versions get distinct issue times and anonymous reads never run out of tokens.
beforeEach(() => t.clock.advance(120_000));

const create = (body: Record<string, unknown>) => admin.client.post('/api/v1/admin/panels', body);
const issue = (id: string, body: Record<string, unknown>) => admin.client.post(`/api/v1/admin/panels/${id}/versions`, body);
const read = (id: string, version?: number | string) =>
  anon.get(`/v1/panels/${id}${version === undefined ? '' : `?version=${version}`}`);

const STATEMENT_KEYS = [
  'answer',
  'certainty',
  'current_version',
  'id',
  'issued_at',
  // Added by the transparency log: the entry that published the version.
  'log',
  'panel',
  'question',
  'reopen_triggers',
  'review',
  'revisit_by',
  'sources',
  'status',
  'topic',
  'version',
  'vote',
].sort();

describe('creating a statement', () => {
  it('issues version 1 with every field of the seed, and /v1 reads it back', async () => {
    const body = statementBody();
    const res = await create(body);
    expect(res.status, res.text).toBe(201);
    expect(res.body.success).toBe(true);
    const s = res.body.data;
    expect(Object.keys(s).sort()).toEqual(STATEMENT_KEYS);
    expect(s).toEqual({
      id: body.id,
      question: body.question,
      version: 1,
      status: 'issued',
      answer: body.answer,
      certainty: 'low-moderate',
      vote: { agree: 4, dissent: 1 },
      panel: body.panel,
      issued_at: t.clock.now().toISOString(),
      revisit_by: '2027-06-01',
      reopen_triggers: ['new_study', 'source_corrected'],
      topic: 'health',
      current_version: 1,
      log: { index: expect.any(Number), proof_url: `https://credence.test/v1/log/proof/inclusion?index=${s.log.index}`, bundle_url: `https://credence.test/v1/log/proof/bundle?index=${s.log.index}` },
      sources: [],
      review: { needed: false, flags: [] },
    });
    expect(s.issued_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const current = await read(body.id);
    expect(current.status, current.text).toBe(200);
    expect(current.body).toEqual(s);
    expect((await read(body.id, 1)).body).toEqual(s);
  });

  it('normalises the topic and trims text, and takes `version: 1` on creation', async () => {
    const body = statementBody({ topic: '  Public Health ', question: '  Is it safe?  ', version: 1 });
    const res = await create(body);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ topic: 'public-health', question: 'Is it safe?', version: 1 });
  });

  it('links panellists who have accounts to their profiles, and only them', async () => {
    const expert = await signup(t, { name: 'Amara Okafor' });
    const body = statementBody({
      panel: [
        { name: 'Dr. Amara Okafor', role: 'chair', vote: 'agree', username: expert.username },
        { name: 'Prof. Kofi Asante', role: 'member', vote: 'agree' },
        { name: 'Dr. Pavel Horak', role: 'member', vote: 'abstain' },
      ],
      vote: { agree: 2, dissent: 0 },
    });
    const res = await create(body);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.panel).toEqual([
      {
        name: 'Dr. Amara Okafor',
        role: 'chair',
        vote: 'agree',
        username: expert.username,
        profile_url: `https://credence.test/contributors/${expert.username}`,
      },
      { name: 'Prof. Kofi Asante', role: 'member', vote: 'agree' },
      { name: 'Dr. Pavel Horak', role: 'member', vote: 'abstain' },
    ]);
    // The name stays as the statement printed it; the account's email never appears.
    const pub = await read(body.id);
    expect(pub.body.panel).toEqual(res.body.data.panel);
    expect(pub.text).not.toContain(expert.email);
  });
});

describe('versions', () => {
  it('issues versions 2 and 3; every version stays readable, the earlier ones superseded and unchanged', async () => {
    const v1 = statementBody();
    const created = await create(v1);
    expect(created.status, created.text).toBe(201);

    t.clock.advance(3_600_000);
    const v2Body = versionBody(v1, {
      version: 2,
      answer: 'A small protective effect, confined to people with low starting levels; routine supplementation is not supported.',
      certainty: 'moderate',
      vote: { agree: 5, dissent: 0 },
      panel: v1.panel.map((p: Record<string, string>) => ({ ...p, vote: 'agree' })),
    });
    const v2 = await issue(v1.id, v2Body);
    expect(v2.status, v2.text).toBe(201);
    expect(v2.body.data).toMatchObject({ id: v1.id, version: 2, current_version: 2, status: 'issued', certainty: 'moderate' });
    expect(v2.body.data.issued_at).toBe(t.clock.now().toISOString());

    t.clock.advance(3_600_000);
    // Left out, `version` is the next one.
    const v3Body = versionBody(v2Body, { revisit_by: '2027-12-01', reopen_triggers: ['new_study', 'source_corrected', 'alert_extended'] });
    delete v3Body.version;
    const v3 = await issue(v1.id, v3Body);
    expect(v3.status, v3.text).toBe(201);
    expect(v3.body.data).toMatchObject({ version: 3, current_version: 3, status: 'issued', revisit_by: '2027-12-01' });

    const [r1, r2, r3, current] = await Promise.all([read(v1.id, 1), read(v1.id, 2), read(v1.id, 3), read(v1.id)]);
    expect([r1, r2, r3].map((r) => [r.status, r.body.version, r.body.status, r.body.current_version])).toEqual([
      [200, 1, 'superseded', 3],
      [200, 2, 'superseded', 3],
      [200, 3, 'issued', 3],
    ]);
    // Version 1 reads exactly as it was issued, but for its status and the current version.
    expect(r1.body).toEqual({ ...created.body.data, status: 'superseded', current_version: 3 });
    expect(r2.body).toEqual({ ...v2.body.data, status: 'superseded', current_version: 3 });
    expect(current.body).toEqual(v3.body.data);
    expect(r1.body.issued_at < r2.body.issued_at && r2.body.issued_at < r3.body.issued_at).toBe(true);
    expect(await versionCount(t, v1.id)).toBe(3);
  });

  it('writes panel.updated to the outbox with every changed field, the previous version and the topic', async () => {
    const v1 = statementBody({ topic: 'climate' });
    expect((await create(v1)).status).toBe(201);
    const v2 = versionBody(v1, {
      version: 2,
      certainty: 'moderate',
      vote: { agree: 3, dissent: 2 },
      panel: v1.panel.map((p: Record<string, string>, i: number) => ({ ...p, vote: i < 3 ? 'agree' : 'dissent' })),
      revisit_by: '2027-03-01',
    });
    expect((await issue(v1.id, v2)).status).toBe(201);

    const events = await panelEvents(t, v1.id);
    expect(events).toHaveLength(2);
    for (const e of events) {
      expect(e.publisher_id).toBeNull();
      expect(e.page_id).toBeNull();
    }

    // Version 1: every field is new.
    expect(events[0]!.payload).toMatchObject({ panel_id: v1.id, version: 1, previous_version: null, topic: 'climate' });
    expect(Object.keys(events[0]!.payload.changes).sort()).toEqual(
      ['answer', 'certainty', 'panel', 'question', 'reopen_triggers', 'revisit_by', 'sources', 'topic', 'vote'].sort(),
    );
    expect(events[0]!.payload.changes.certainty).toEqual({ from: null, to: 'low-moderate' });

    // Version 2: exactly the fields that changed, each from and to.
    expect(events[1]!.payload).toEqual({
      panel_id: v1.id,
      version: 2,
      previous_version: 1,
      topic: 'climate',
      changes: {
        certainty: { from: 'low-moderate', to: 'moderate' },
        vote: { from: { agree: 4, dissent: 1 }, to: { agree: 3, dissent: 2 } },
        panel: { from: v1.panel, to: v2.panel },
        revisit_by: { from: '2027-06-01', to: '2027-03-01' },
      },
    });
    expect(events[1]!.created_at).toBe(t.clock.now().toISOString());
  });

  it('lets exactly one of two simultaneous issues of the same next version win; the other is 409 conflict', async () => {
    const v1 = statementBody();
    expect((await create(v1)).status).toBe(201);
    for (let version = 2; version <= 5; version++) {
      const bodies = ['first', 'second'].map((who) => versionBody(v1, { version, answer: `Answer of the ${who} admin, round ${version}.` }));
      const results = await Promise.all(bodies.map((b) => issue(v1.id, b)));
      expect(results.map((r) => r.status).sort(), results.map((r) => r.text).join('\n')).toEqual([201, 409]);
      const winner = results.find((r) => r.status === 201)!;
      const loser = results.find((r) => r.status === 409)!;
      expect(loser.body).toMatchObject({ success: false, error: { code: 'conflict' } });
      const current = await read(v1.id);
      expect(current.body).toMatchObject({ version, current_version: version, answer: winner.body.data.answer });
      expect((await read(v1.id, version - 1)).body.status).toBe('superseded');
    }
    expect(await versionCount(t, v1.id)).toBe(5);
    expect((await panelEvents(t, v1.id)).map((e) => e.payload.version)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('listing', () => {
  it('lists the current versions of a topic, newest issue first, with the list envelope and pages', async () => {
    const topic = `topic-${unique()}`;
    const a = statementBody({ topic });
    const b = statementBody({ topic });
    const c = statementBody({ topic });
    const elsewhere = statementBody({ topic: `other-${unique()}` });
    for (const s of [a, b, c, elsewhere]) {
      expect((await create(s)).status).toBe(201);
      t.clock.advance(60_000);
    }
    // A new version of the oldest makes it the newest.
    expect((await issue(a.id, versionBody(a, { version: 2, certainty: 'moderate' }))).status).toBe(201);

    const res = await anon.get(`/v1/panels?topic=${topic}`);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
    expect(res.body.meta).toEqual({ total: 3, page: 1, per_page: 20 });
    expect(res.body.data.map((s: { id: string }) => s.id)).toEqual([a.id, c.id, b.id]);
    expect(res.body.data.map((s: { version: number; status: string }) => [s.version, s.status])).toEqual([
      [2, 'issued'],
      [1, 'issued'],
      [1, 'issued'],
    ]);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(STATEMENT_KEYS);
    expect(res.body.data[0]).toEqual((await read(a.id)).body);

    const page1 = await anon.get(`/v1/panels?topic=${topic}&per_page=2`);
    const page2 = await anon.get(`/v1/panels?topic=${topic}&per_page=2&page=2`);
    expect(page1.body.data.map((s: { id: string }) => s.id)).toEqual([a.id, c.id]);
    expect(page2.body.data.map((s: { id: string }) => s.id)).toEqual([b.id]);
    expect(page2.body.meta).toEqual({ total: 3, page: 2, per_page: 2 });
    expect((await anon.get(`/v1/panels?topic=${topic}&per_page=1000`)).body.meta.per_page).toBe(100);
    // The topic is matched as topics are stored.
    expect((await anon.get(`/v1/panels?topic=${topic.toUpperCase()}`)).body.meta.total).toBe(3);
  });

  it('answers an empty list for a topic without statements, and every topic without ?topic', async () => {
    const none = await anon.get(`/v1/panels?topic=nothing-${unique()}`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ data: [], meta: { total: 0, page: 1, per_page: 20 } });
    const all = await anon.get('/v1/panels?per_page=100');
    expect(all.status).toBe(200);
    expect(all.body.meta.total).toBeGreaterThan(3);
    expect(all.body.data.every((s: { status: string }) => s.status === 'issued')).toBe(true);
  });
});

describe('panellists are experts', () => {
  it('makes a linked panellist of a current version an expert, in records too, until a version leaves them out', async () => {
    const expert = await signup(t, { name: 'Noor Haddad' });
    const pub = await publisher(t);
    const url = `https://${pub.domain}/health/a-new-medicine`;
    const reg = await pub.api.post('/api/v1/pages', { url, title: 'A new medicine', topic: 'health', authors: [expert.username] });
    await confirmClaims(expert);
    expect(reg.status, reg.text).toBe(201);
    const level = async () => {
      const rec = await anon.get(`/api/v1/articles/${reg.body.data.id}`);
      expect(rec.status, rec.text).toBe(200);
      return rec.body.data.contributors.author[0].level as string;
    };
    // Read once so the record is cached: the level must change all the same.
    expect(await level()).toBe('newcomer');

    const v1 = statementBody({
      panel: [
        { name: 'Dr. Noor Haddad', role: 'chair', vote: 'agree', username: expert.username },
        { name: 'Prof. Kofi Asante', role: 'member', vote: 'agree' },
      ],
      vote: { agree: 2, dissent: 0 },
    });
    expect((await create(v1)).status).toBe(201);
    expect(await level()).toBe('expert');

    // Version 2 replaces the chair: version 1 is superseded, so the old chair is no longer a current panellist.
    const v2 = versionBody(v1, {
      version: 2,
      panel: [
        { name: 'Dr. Helena Voss', role: 'chair', vote: 'agree' },
        { name: 'Prof. Kofi Asante', role: 'member', vote: 'agree' },
      ],
    });
    expect((await issue(v1.id, v2)).status).toBe(201);
    expect(await level()).toBe('newcomer');

    // Back on the panel of version 3.
    const v3 = versionBody(v1, { version: 3, certainty: 'moderate' });
    expect((await issue(v1.id, v3)).status).toBe(201);
    expect(await level()).toBe('expert');
  });
});
