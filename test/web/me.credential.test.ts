// /me's work page offers each accepted contribution's credential as a file, naming the holder as they choose
// (docs/credentials.md): the link is there only for accepted work, the file is the signed credential itself, and
// nobody else's session, and no session, gets it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { webUser } from './dashboard.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
});
afterAll(async () => t?.close());

async function submitted(u: Awaited<ReturnType<typeof webUser>>, n: number): Promise<number> {
  const url = `https://${pub.domain}/credential-${n}`;
  expect((await pub.api.post('/api/v1/pages', { url, title: `Story ${n}`, topic: 'health' })).status).toBeLessThan(300);
  const s = await u.api.post('/api/v1/submissions', { url, role: 'fact_check', summary: `Checked story ${n}`, evidence: { reason: 'the report says so', sources: ['https://archive.example/r'] } });
  expect(s.status, s.text).toBe(201);
  return s.body.data.id as number;
}

describe('/me/submissions: Download credential', () => {
  it('links each accepted contribution’s credential, in either holder form, and only the person’s own', async () => {
    const u = await webUser(t, 'Credential Holder');
    const accepted = await submitted(u, 1);
    await submitted(u, 2);
    const d = await pub.api.post('/api/v1/submissions/decide', { submission_id: accepted, decision: 'accept', note: 'thanks' });
    expect(d.status, d.text).toBe(200);
    const contribution = d.body.data.contribution_id as number;

    const page = await u.b.get('/me/submissions');
    expect(page.status).toBe(200);
    const links = [...page.text.matchAll(/href="(\/me\/contributions\/\d+\/credential\?holder=[a-z_]+)"/g)].map((m) => m[1]);
    // One accepted, one pending: the pending one has no link.
    expect(links).toEqual([`/me/contributions/${contribution}/credential?holder=profile`, `/me/contributions/${contribution}/credential?holder=email_hash`]);
    expect(page.text).toContain('Download credential');

    const byProfile = await u.b.get(links[0]!);
    expect(byProfile.status).toBe(200);
    expect(byProfile.headers.get('content-type')).toMatch(/^application\/vc/);
    expect(byProfile.headers.get('content-disposition')).toBe(`attachment; filename="credence-contribution-${contribution}.json"`);
    const c = JSON.parse(byProfile.text);
    expect(c.type).toEqual(['VerifiableCredential', 'OpenBadgeCredential']);
    expect(c.credentialSubject.id).toMatch(new RegExp(`/contributors/${u.username}$`));
    expect(c.proof.cryptosuite).toBe('eddsa-rdfc-2022');

    const byHash = JSON.parse((await u.b.get(links[1]!)).text);
    expect(byHash.credentialSubject.id).toBeUndefined();
    expect(byHash.credentialSubject.identifier[0]).toMatchObject({ type: 'IdentityObject', identityType: 'emailAddress', hashed: true });
    expect(JSON.stringify(byHash)).not.toContain(u.email);

    // Someone else's session: 404; no session: to the log-in page.
    const other = await webUser(t, 'Someone Else');
    expect((await other.b.get(links[0]!)).status).toBe(404);
    const anon = await fetch(`${t.baseUrl}${links[0]!}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(anon.status).toBe(303);
    expect(anon.headers.get('location')).toMatch(/^\/login\?next=/);
    // A bad holder form is a clean 400.
    expect((await u.b.get(`/me/contributions/${contribution}/credential?holder=name`)).status).toBe(400);
  });
});
