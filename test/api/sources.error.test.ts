// A source URL: one rule at submission, on every path that takes sources (the API, the web form), and a
// proof that answers whatever an older version stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { signedInClient } from '../web/pages.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
let alice: TestUser;
let anon: Client;
let n = 0;

beforeAll(async () => {
  t = await startTestApp();
  [pub, alice] = await Promise.all([publisher(t), signup(t)]);
  anon = new Client(t.baseUrl);
});
afterAll(async () => t?.close());

async function page(): Promise<string> {
  const url = `https://${pub.domain}/src/${++n}`;
  expect((await pub.api.post('/api/v1/pages', { url, title: 'S' })).status).toBe(201);
  return url;
}

const submit = (url: string, sources: string[]) =>
  alice.client.post('/api/v1/submissions', { url, role: 'review', summary: 's', evidence: { reason: 'r', sources } });

async function accept(id: number): Promise<number> {
  const res = await pub.api.post('/api/v1/submissions/decide', { submission_id: id, decision: 'accept' });
  expect(res.status, res.text).toBe(200);
  return res.body.data.contribution_id as number;
}

describe('a source URL', () => {
  it('is stored as its WHATWG serialisation, percent-encoded where RFC 3986 wants it, and its proof answers', async () => {
    const res = await submit(await page(), ['https://e.example/a b', 'HTTPS://E.example/x?q={1}|^`', 'https://e.example/100%']);
    expect(res.status, res.text).toBe(201);
    const ctb = await accept(res.body.data.id);
    for (const path of [`/v1/proofs/ctb_${ctb}`, `/proofs/ctb_${ctb}`]) {
      const proof = await anon.get(path);
      expect(proof.status, proof.text).toBe(200);
      expect(proof.body.evidence.sources).toEqual([
        'https://e.example/a%20b',
        'https://e.example/x?q=%7B1%7D%7C%5E%60',
        'https://e.example/100%25',
      ]);
    }
    const mine = await alice.client.get(`/api/v1/submissions/${res.body.data.id}`);
    expect(mine.body.data.evidence.sources[0]).toBe('https://e.example/a%20b');
  });

  it('that is not http(s) is refused naming the item, on the API', async () => {
    const res = await submit(await page(), ['https://ok.example/', 'javascript:alert(1)']);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field: 'evidence.sources.1', message: expect.any(String) });
  });

  it('already stored unencoded answers its proof in the same form, never a 500', async () => {
    const res = await submit(await page(), ['https://e.example/ok']);
    expect(res.status, res.text).toBe(201);
    // A row as an older version stored it: the source as sent.
    await t.runtime.deps.db
      .updateTable('submissions')
      .set({ sources: JSON.stringify(['https://e.example/a b', 'not a url at all']) })
      .where('id', '=', res.body.data.id)
      .execute();
    const ctb = await accept(res.body.data.id);
    const proof = await anon.get(`/v1/proofs/ctb_${ctb}`);
    expect(proof.status, proof.text).toBe(200);
    // A value no parser reads as a URL is left out rather than answered as one.
    expect(proof.body.evidence.sources).toEqual(['https://e.example/a%20b']);
    const html = await anon.get(`/proofs/ctb_${ctb}`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(200);
    const mine = await alice.client.get(`/api/v1/submissions/${res.body.data.id}`);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.data.evidence.sources).toEqual(['https://e.example/a%20b']);
  });

  it('follows the same rule on the web form: stored encoded, and a refusal on its line', async () => {
    const { b, username } = await signedInClient(t);
    await b.get('/me/submit');
    const form = { url: await page(), role: 'review', summary: 's', before: '', after: '', reason: 'r' };
    const bad = await b.post('/me/submissions', { ...form, sources: 'https://fine.example/a\nhttps://user:pw@e.example/' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="f-sources-error">Line 2: must not carry a user name or password');
    const ok = await b.post('/me/submissions', { ...form, sources: 'https://e.example/a b' });
    expect(ok.status).toBe(303);
    const account = await t.runtime.deps.db.selectFrom('accounts').select('id').where('username', '=', username).executeTakeFirstOrThrow();
    const row = await t.runtime.deps.db.selectFrom('submissions').select('sources').where('account_id', '=', account.id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.sources)).toEqual(['https://e.example/a%20b']);
  });
});
