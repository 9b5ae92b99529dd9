// /verify: a dropped credential is checked by the server and the page says in words what was found: verified, NOT
// verified only when a check failed (tampered, withdrawn), and "could not be checked" for what is no credential or
// another issuer's. The form is the site's frame, labelled, and needs no script.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';

let t: TestApp;
let pub: TestPublisher;
beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
});
afterAll(async () => t?.close());

const text = (page: string) => page.replace(/<[^>]+>/g, ' ').replace(/&[a-z#0-9]+;/g, ' ').replace(/\s+/g, ' ');

describe('/verify', () => {
  it('checks a dropped credential and says what it found', async () => {
    const u = await signup(t);
    const url = `https://${pub.domain}/verify-1`;
    expect((await pub.api.post('/api/v1/pages', { url, title: 'Verify me', topic: 'health' })).status).toBeLessThan(300);
    const s = await new Client(t.baseUrl).as(await contributorKey(u)).post('/api/v1/submissions', { url, role: 'fact_check', summary: 'checked', evidence: { reason: 'the report says so', sources: ['https://archive.example/r'] } });
    const d = await pub.api.post('/api/v1/submissions/decide', { submission_id: s.body.data.id, decision: 'accept', note: 'thanks' });
    const id = d.body.data.contribution_id as number;
    await integrate(t.runtime.deps);
    const credential = (await u.client.get(`/api/v1/account/contributions/${id}/credential`)).body.data.credential;
    const jwt = (await u.client.get(`/api/v1/account/contributions/${id}/credential?format=jwt`)).body.data.credential as string;

    const b = new FormClient(t.baseUrl);
    const form = await b.get('/verify');
    expect(form.status).toBe(200);
    expect(form.text).toContain('<label for="credential">');
    expect(form.text).toContain('<script src="/assets/credential-verify.js" defer></script>');
    expect(form.text).not.toMatch(/<script>(?!<)/);

    const good = await b.post('/verify', { credential: JSON.stringify(credential) });
    expect(good.status).toBe(200);
    expect(text(good.text)).toContain('Verified: the signature, the status and the log entry all hold.');
    expect(text(good.text)).toContain('revocation: not set');
    expect(text(good.text)).toMatch(/still holds the proof.s checkpoint/);
    expect(good.text).not.toContain('NOT verified');
    const asJwt = await b.post('/verify', { credential: jwt });
    expect(text(asJwt.text)).toContain('Verified:');

    const tampered = await b.post('/verify', { credential: JSON.stringify({ ...credential, name: 'Review of another page' }) });
    expect(text(tampered.text)).toContain('NOT verified: 1 check failed.');
    expect(text(tampered.text)).toContain('FAILED: the proof does not verify');

    const junk = await b.post('/verify', { credential: 'hello' });
    expect(text(junk.text)).toContain('This file could not be checked: This file is neither a credential (JSON) nor a VC-JWT.');
    expect(junk.text).not.toContain('NOT verified');
    const elsewhere = await b.post('/verify', { credential: JSON.stringify({ ...credential, issuer: { id: 'did:web:example.org', type: ['Profile'] } }) });
    expect(text(elsewhere.text)).toContain('could not be checked: it was issued for https://example.org');

    const empty = await b.post('/verify', { credential: '' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('aria-invalid="true"');
    expect((await b.post('/verify', { credential: JSON.stringify(credential) }, { csrf: null })).status).toBe(403);
    await b.get('/verify');

    expect((await u.client.post(`/api/v1/account/contributions/${id}/withdraw`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    const withdrawn = await b.post('/verify', { credential: JSON.stringify(credential) });
    expect(text(withdrawn.text)).toContain('NOT verified');
    expect(text(withdrawn.text)).toContain('the credential is REVOKED');
  });
});
