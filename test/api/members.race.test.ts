// A publication always keeps an owner, even when two changes of membership arrive at once: two
// owners demoting each other, both leaving, removing each other. Each pair is sent together, many times over, on
// whichever database the suite runs on; without the publication's lock both calls pass their "another owner is
// left" check before either writes, and the publication ends with none.
// In one process on SQLite a request's queries run without yielding, so the pairs there also go to two real
// `credence serve` processes on one database (as `--workers` runs them): that is where SQLite meets the race.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type Res } from '../client.js';
import { addMember, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { confirmIn, processEnv, type ProcessEnv } from '../process-env.js';
import { killHard, type ServeProcess, startServe } from '../serve-process.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const ROUNDS = 12;

/** A publication with two owners: its founder `a` and `b`, who accepted an invitation as owner. */
async function twoOwners(): Promise<{ p: TestPublisher; a: TestUser; b: TestUser }> {
  const p = await publisher(t);
  const b = await signup(t);
  await addMember(p.owner.client, p.slug, b, 'owner');
  return { p, a: p.owner, b };
}

async function owners(p: TestPublisher): Promise<number> {
  const rows = await t.runtime.deps.db
    .selectFrom('publisher_members as m')
    .innerJoin('publishers as p', 'p.id', 'm.publisher_id')
    .select('m.account_id')
    .where('p.slug', '=', p.slug)
    .where('m.role', '=', 'owner')
    .execute();
  return rows.length;
}

/** Exactly one of the two went through; the other was refused as the state it met warrants, never a 5xx. */
function oneWins(results: Res[]): void {
  const statuses = results.map((r) => r.status).sort();
  expect(statuses.filter((s) => s === 200), JSON.stringify(results.map((r) => r.text))).toHaveLength(1);
  const loser = results.find((r) => r.status !== 200)!;
  // 409: the only owner left; 403: no longer an owner; 404: no longer a member.
  expect([403, 404, 409], loser.text).toContain(loser.status);
}

describe('two changes of membership at once', () => {
  it(`two owners demote each other: one wins, one owner is left (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const { p, a, b } = await twoOwners();
      const path = `/api/v1/account/publishers/${p.slug}/members`;
      oneWins(await Promise.all([a.client.post(path, { username: b.username, role: 'editor' }), b.client.post(path, { username: a.username, role: 'editor' })]));
      expect(await owners(p)).toBe(1);
    }
  });

  it(`two owners demote themselves: one owner is left (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const { p, a, b } = await twoOwners();
      const path = `/api/v1/account/publishers/${p.slug}/members`;
      oneWins(await Promise.all([a.client.post(path, { username: a.username, role: 'editor' }), b.client.post(path, { username: b.username, role: 'editor' })]));
      expect(await owners(p)).toBe(1);
    }
  });

  it(`both owners leave: one stays (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const { p, a, b } = await twoOwners();
      const base = `/api/v1/account/publishers/${p.slug}/members`;
      oneWins(await Promise.all([a.client.delete(`${base}/${a.username}`), b.client.delete(`${base}/${b.username}`)]));
      expect(await owners(p)).toBe(1);
    }
  });

  it(`two owners remove each other: one stays (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const { p, a, b } = await twoOwners();
      const base = `/api/v1/account/publishers/${p.slug}/members`;
      oneWins(await Promise.all([a.client.delete(`${base}/${b.username}`), b.client.delete(`${base}/${a.username}`)]));
      expect(await owners(p)).toBe(1);
    }
  });

  it(`one owner leaves while the other transfers ownership to them: one owner is left (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const { p, a, b } = await twoOwners();
      const base = `/api/v1/account/publishers/${p.slug}`;
      const [left, moved] = await Promise.all([a.client.delete(`${base}/members/${a.username}`), b.client.post(`${base}/transfer`, { username: a.username })]);
      // Either order is fine (leave then transfer is refused: a is no longer a member); an owner is always left.
      expect([left.status, moved.status].every((s) => s < 500), left.text + moved.text).toBe(true);
      expect(await owners(p)).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('two processes on one database', { timeout: 180_000 }, () => {
  let env: ProcessEnv;
  const servers: ServeProcess[] = [];
  beforeAll(async () => {
    env = await processEnv('members', { LOG_LEVEL: 'warn', RATE_LIMIT_ALLOWLIST: '127.0.0.1', PUBLICATIONS_OWNED_PER_ACCOUNT: '1000' });
    // One after the other: the first applies the migrations.
    servers.push(await startServe(env.env));
    servers.push(await startServe(env.env));
  }, 180_000);
  afterAll(async () => {
    for (const s of servers) await killHard(s);
    await env?.cleanup();
  });

  const at = (i: number, token: string | null = null) => new Client(`http://127.0.0.1:${servers[i]!.port}`, '127.0.0.1', token);
  let n = 0;
  async function person(): Promise<{ username: string; token: string }> {
    const username = `race-${process.pid}-${n++}`;
    const email = `${username}@race.test`;
    expect((await at(0).post('/api/v1/auth/signup', { email, password: 'correct horse battery', name: username, username })).status).toBe(202);
    await confirmIn(() => env.open(), email);
    const login = await at(0).post('/api/v1/auth/login', { email, password: 'correct horse battery' });
    expect(login.status, login.text).toBe(200);
    return { username, token: login.body.data.token as string };
  }
  let pair: { username: string; token: string }[] | undefined;
  /** A new publication owned by the same two people each time: `a` and `b` (invited as owner, accepted). */
  async function twoOwnersAt(): Promise<{ slug: string; a: { username: string; token: string }; b: { username: string; token: string } }> {
    pair ??= [await person(), await person()];
    const [a, b] = pair as [{ username: string; token: string }, { username: string; token: string }];
    const slug = `race-${n++}-${process.pid}`;
    expect((await at(0, a.token).post('/api/v1/account/publishers', { name: 'Race', slug })).status).toBe(201);
    expect((await at(0, a.token).post(`/api/v1/account/publishers/${slug}/members`, { username: b.username, role: 'owner' })).status).toBe(202);
    const mine = (await at(0, b.token).get('/api/v1/account/publisher-invitations')).body.data as { id: number; publisher: { slug: string } }[];
    const id = mine.find((x) => x.publisher.slug === slug)!.id;
    expect((await at(0, b.token).post(`/api/v1/account/publisher-invitations/${id}/accept`)).status).toBe(200);
    return { slug, a, b };
  }
  async function ownersAt(slug: string, token: string): Promise<number> {
    const res = await at(1, token).get(`/api/v1/account/publishers/${slug}/members`);
    expect(res.status, res.text).toBe(200);
    return (res.body.data as { role: string }[]).filter((m) => m.role === 'owner').length;
  }

  it(`two owners on two processes demote each other, and leave together: one owner is left (${ROUNDS} rounds each)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const { slug, a, b } = await twoOwnersAt();
      const path = `/api/v1/account/publishers/${slug}/members`;
      oneWins(await Promise.all([at(0, a.token).post(path, { username: b.username, role: 'editor' }), at(1, b.token).post(path, { username: a.username, role: 'editor' })]));
      const winner = (await at(0, a.token).get(path)).status === 200 ? a : b;
      expect(await ownersAt(slug, winner.token)).toBe(1);
    }
    for (let i = 0; i < ROUNDS; i++) {
      const { slug, a, b } = await twoOwnersAt();
      const path = `/api/v1/account/publishers/${slug}/members`;
      const results = await Promise.all([at(0, a.token).delete(`${path}/${a.username}`), at(1, b.token).delete(`${path}/${b.username}`)]);
      oneWins(results);
      const stayed = results[0]!.status === 200 ? b : a;
      expect(await ownersAt(slug, stayed.token)).toBe(1);
    }
  });
});
