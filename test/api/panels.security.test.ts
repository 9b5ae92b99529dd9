// Who may issue panel statements: an admin's session, nobody else (SPEC §5). Reads are public, but a presented
// credential that cannot be used is still a 401. Statements never carry a panellist's private fields.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createAdmin } from '../../src/domain/accounts/account.service.js';
import { Client, randomIp, type Res } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { makeAdmin, statementBody, type TestAdmin, versionBody, versionCount } from './panels.fixtures.js';

let t: TestApp;
let admin: TestAdmin;
let member: TestUser;
let pub: TestPublisher;
let existing: Record<string, any>;
let nextVersion = 2;
const bad = { expiredSession: '', endedSession: '', revokedKey: '', adminKey: '', contributorKey: '' };

beforeAll(async () => {
  t = await startTestApp();
  // An admin session that outlives its 30 days: made first, then the clock moves past its end.
  const stale = await makeAdmin(t);
  bad.expiredSession = stale.token;
  t.clock.advanceDays(30);
  t.clock.advance(60_000);

  admin = await makeAdmin(t);
  const ended = await makeAdmin(t);
  expect((await ended.client.post('/api/v1/auth/logout')).status).toBe(200);
  bad.endedSession = ended.token;

  // Keys an admin made: a key is never enough for an operator route.
  const key = await admin.client.post('/api/v1/account/api-keys', { name: 'ops', publisher: null });
  expect(key.status, key.text).toBe(201);
  bad.adminKey = key.body.data.key;
  const doomed = await admin.client.post('/api/v1/account/api-keys', { name: 'doomed', publisher: null });
  bad.revokedKey = doomed.body.data.key;
  expect((await admin.client.delete(`/api/v1/account/api-keys/${doomed.body.data.id}`)).status).toBe(200);

  member = await signup(t);
  pub = await publisher(t, { owner: member });
  bad.contributorKey = await contributorKey(await signup(t));

  existing = statementBody();
  expect((await admin.client.post('/api/v1/admin/panels', existing)).status).toBe(201);
});
afterAll(async () => t?.close());
beforeEach(() => t.clock.advance(10_000));

interface AdminRoute {
  name: string;
  path: () => string;
  body: () => Record<string, unknown>;
}

const ADMIN_ROUTES: AdminRoute[] = [
  { name: 'POST /api/v1/admin/panels', path: () => '/api/v1/admin/panels', body: () => statementBody() },
  {
    name: 'POST /api/v1/admin/panels/{id}/versions',
    path: () => `/api/v1/admin/panels/${existing.id}/versions`,
    body: () => versionBody(existing, { answer: `Revised answer ${randomBytes(3).toString('hex')}.` }),
  },
];

const hex64 = () => randomBytes(32).toString('hex');

function expectApiError(res: Res, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'success']);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code, res.text).toBe(code);
}

describe.each(ADMIN_ROUTES)('$name', (route) => {
  const call = (headers: Record<string, string>, body: Record<string, unknown> = route.body()) =>
    new Client(t.baseUrl, randomIp()).req('POST', route.path(), { body, headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it.each([
    ['no credential', () => ({}), 'unauthorized'],
    ['a malformed Authorization header', () => ({ authorization: 'Basic YWRtaW46YWRtaW4=' }), 'unauthorized'],
    ['an unknown key', () => bearer(`cred_live_${hex64()}`), 'unauthorized'],
    ['an unknown key as X-API-Key', () => ({ 'x-api-key': `cred_live_${hex64()}` }), 'unauthorized'],
    ['an unknown session token', () => bearer(`cred_sess_${randomBytes(32).toString('base64url')}`), 'unauthorized'],
    ['a revoked key', () => bearer(bad.revokedKey), 'key_revoked'],
    ['an ended session (after logout)', () => bearer(bad.endedSession), 'unauthorized'],
    ['an expired admin session', () => bearer(bad.expiredSession), 'unauthorized'],
  ])('401 with %s', async (_name, headers, code) => {
    expectApiError(await call(headers()), 401, code);
  });

  it.each([
    ['an admin’s own key', () => bearer(bad.adminKey)],
    ['an admin’s own key as X-API-Key', () => ({ 'x-api-key': bad.adminKey })],
    ['a publisher key', () => bearer(pub.key)],
    ['a contributor key', () => bearer(bad.contributorKey)],
  ])('403 session_required with %s', async (_name, headers) => {
    expectApiError(await call(headers()), 403, 'session_required');
  });

  it('403 forbidden with the session of an account that is not an admin', async () => {
    expectApiError(await call(bearer(member.token)), 403, 'forbidden');
  });

  it('checks the caller before the body: a stranger learns nothing from validation', async () => {
    expectApiError(await call({}, { nonsense: true }), 401, 'unauthorized');
    expectApiError(await call(bearer(member.token), { nonsense: true }), 403, 'forbidden');
  });

  it('answers an admin session', async () => {
    const body = route.body();
    if (route.name.endsWith('/versions')) body.version = nextVersion++;
    const res = await call(bearer(admin.token), body);
    expect(res.status, res.text).toBe(201);
    expect(res.body.success).toBe(true);
  });
});

describe('admin rights', () => {
  it('wrote nothing for any refused call', async () => {
    // Version 1, and one version per "answers an admin session" case.
    expect(await versionCount(t, existing.id)).toBe(nextVersion - 1);
  });

  it('take effect on an existing session the moment an operator grants them', async () => {
    const ops = await signup(t);
    const route = ADMIN_ROUTES[0]!;
    expectApiError(await ops.client.post(route.path(), route.body()), 403, 'forbidden');
    await createAdmin(t.runtime.deps, { email: ops.email, password: ops.password, username: ops.username, name: 'Ops' });
    const res = await ops.client.post(route.path(), route.body());
    expect(res.status, res.text).toBe(201);
  });
});

describe('public reads', () => {
  it('need no credential', async () => {
    const anon = new Client(t.baseUrl);
    expect((await anon.get(`/v1/panels/${existing.id}`)).status).toBe(200);
    expect((await anon.get(`/v1/panels/${existing.id}?version=1`)).status).toBe(200);
    expect((await anon.get('/v1/panels?topic=health')).status).toBe(200);
  });

  it('still refuse a credential that cannot be used, with 401 in the /v1 envelope', async () => {
    for (const token of [bad.revokedKey, bad.expiredSession, `cred_live_${hex64()}`]) {
      for (const path of [`/v1/panels/${existing.id}`, '/v1/panels?topic=health']) {
        const res = await new Client(t.baseUrl).get(path, { token });
        expect(res.status, res.text).toBe(401);
        expect(Object.keys(res.body)).toEqual(['error']);
      }
    }
  });

  it('show a linked panellist’s username and profile, never their email or account id', async () => {
    const body = statementBody({
      panel: [
        { name: 'Dr. Linked', role: 'chair', vote: 'agree', username: member.username },
        { name: 'Dr. Other', role: 'member', vote: 'agree' },
      ],
      vote: { agree: 2, dissent: 0 },
    });
    const created = await admin.client.post('/api/v1/admin/panels', body);
    expect(created.status, created.text).toBe(201);
    for (const res of [created, await new Client(t.baseUrl).get(`/v1/panels/${body.id}`), await new Client(t.baseUrl).get('/v1/panels?per_page=100')]) {
      expect(res.text).not.toContain(member.email);
      expect(res.text).not.toContain('account_id');
      expect(res.text).not.toContain('password');
    }
    const entry = created.body.data.panel[0];
    expect(Object.keys(entry).sort()).toEqual(['name', 'profile_url', 'role', 'username', 'vote']);
  });

  it('refuse an account id smuggled into a panel entry', async () => {
    const panel = [{ name: 'Dr. Sneaky', role: 'chair', vote: 'agree', account_id: member.id }];
    const res = await admin.client.post('/api/v1/admin/panels', statementBody({ panel, vote: { agree: 1, dissent: 0 } }));
    expectApiError(res, 400, 'invalid_request');
    expect(res.body.error.details).toContainEqual({ field: 'panel.0.account_id', message: 'is not a known field' });
  });
});
