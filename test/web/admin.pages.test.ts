// Operators' pages: verify a domain by hand, issue a panel statement and its next version. Non-admins get a 403
// page and change nothing; visitors are sent to log in; every form needs its CSRF token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';
import { count, unique, webAdmin, type WebUser, webUser } from './dashboard.fixtures.js';

let t: TestApp;
let admin: WebUser;

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  admin = await webAdmin(t);
});
afterAll(async () => t?.close());

const statementFields = (over: Record<string, string | string[]> = {}) => ({
  id: `measles-${unique()}`,
  topic: 'Public Health',
  question: 'Is a second MMR dose needed?',
  answer: 'Yes: two doses protect about 97% of people.',
  certainty: 'high',
  panel: ['Dr. Helena Voss | chair | agree', 'Prof. Kofi Asante | member | agree', 'Dr. Pavel Horak | member | dissent'].join('\n'),
  revisit_by: '2027-06-01',
  reopen_triggers: ['new_study'],
  ...over,
});

describe('who may open the admin pages', () => {
  it('sends visitors to log in, and shows others a 403 page', async () => {
    const anon = new FormClient(t.baseUrl);
    const res = await anon.get('/admin');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?next=%2Fadmin');
    const person = await webUser(t);
    for (const path of ['/admin', '/admin/panels/new', '/admin/panels/anything']) {
      const page = await person.b.get(path);
      expect(page.status, path).toBe(403);
      expect(page.text).toContain('Only operators can open this page');
    }
    expect((await person.b.get('/')).status).toBeLessThan(500);
    const before = await count(t, 'domains');
    await person.b.get('/dashboard');
    const post = await person.b.post('/admin/domains/verify', { publisher: 'x', domain: 'x.example' });
    expect(post.status).toBe(403);
    const issue = await person.b.post('/admin/panels', statementFields());
    expect(issue.status).toBe(403);
    expect(await count(t, 'domains')).toBe(before);
    expect(await t.runtime.deps.db.selectFrom('panel_statements').selectAll().execute()).toEqual([]);
  });

  it('shows operators an Admin link in the navigation', async () => {
    const page = await admin.b.get('/admin');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<a href="/admin" aria-current="page">Admin</a>');
    expect(page.text).toContain('<h1>Operations</h1>');
  });
});

describe('verify a domain by hand', () => {
  it('verifies for a publication, with errors next to the fields', async () => {
    const owner = await webUser(t);
    const slug = `hand-${unique()}`;
    await owner.b.get('/dashboard');
    await owner.b.post('/dashboard', { name: 'Hand Verified', slug });
    await admin.b.get('/admin');
    const empty = await admin.b.post('/admin/domains/verify', { publisher: '', domain: '' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('id="f-publisher-error"');
    expect(empty.text).toContain('id="f-domain-error"');
    const unknown = await admin.b.post('/admin/domains/verify', { publisher: 'no-such-pub', domain: 'a.example' });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('No publication is called no-such-pub');
    const badDomain = await admin.b.post('/admin/domains/verify', { publisher: slug, domain: 'localhost' });
    expect(badDomain.status).toBe(400);
    expect(badDomain.text).toContain('must be a public DNS name');
    const ok = await admin.b.post('/admin/domains/verify', { publisher: slug.toUpperCase(), domain: `${slug}.example` });
    expect(ok.location).toBe('/admin?done=domain-verified');
    const domains = await owner.b.get(`/dashboard/${slug}/domains`);
    expect(domains.text).toContain('by an operator');
    // Without the CSRF token, nothing happens.
    const before = await count(t, 'domains');
    const forged = await admin.b.post('/admin/domains/verify', { publisher: slug, domain: `other-${slug}.example` }, { csrf: null });
    expect(forged.status).toBe(403);
    const foreign = await admin.b.post('/admin/domains/verify', { publisher: slug, domain: `other-${slug}.example` }, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(await count(t, 'domains')).toBe(before);
  });
});

describe('panel statements', () => {
  it('issues a statement, counting the vote from the panel, with errors next to the fields', async () => {
    const panellist = await webUser(t, 'Dr. Ruth Okonkwo');
    const form = await admin.b.get('/admin/panels/new');
    expect(form.text).toContain('<h1>Issue a new statement</h1>');
    const bad = await admin.b.post(
      '/admin/panels',
      statementFields({ id: 'X', certainty: 'sure', panel: 'Dr. A | chair | agree\nDr. B | member | maybe\nDr. C | | agree | no-such-user', revisit_by: '2020-01-01' }),
    );
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="f-id-error"');
    expect(bad.text).toContain('id="f-certainty-error"');
    expect(bad.text).toContain('line 2: vote must be one of: agree, dissent, abstain');
    expect(bad.text).toContain('line 3: role');
    // The text typed stays.
    expect(bad.text).toContain('Dr. B | member | maybe');

    const unknownUser = await admin.b.post('/admin/panels', statementFields({ panel: 'Dr. A | chair | agree | no-such-user' }));
    expect(unknownUser.status).toBe(400);
    expect(unknownUser.text).toContain('line 1: username no account is called no-such-user');

    const id = `measles-${unique()}`;
    const ok = await admin.b.post('/admin/panels', statementFields({ id, panel: `Dr. Helena Voss | chair | agree\nDr. Ruth Okonkwo | member | agree | ${panellist.username}\nDr. Pavel Horak | member | dissent` }));
    expect(ok.status).toBe(303);
    expect(ok.location).toBe(`/admin/panels/${id}?done=issued`);
    const pub = await new Client(t.baseUrl).get(`/v1/panels/${id}`);
    expect(pub.status, pub.text).toBe(200);
    expect(pub.body).toMatchObject({ version: 1, topic: 'public-health', vote: { agree: 2, dissent: 1 }, certainty: 'high' });
    const page = await admin.b.get(ok.location!);
    expect(page.text).toContain('Version 1 is issued and public.');
    expect(page.text).toContain('Issue version 2');
    expect(page.text).toContain('<input type="hidden" name="version" value="2">');
    expect(page.text).toContain(`Dr. Ruth Okonkwo | member | agree | ${panellist.username}`);
    const again = await admin.b.post('/admin/panels', statementFields({ id }));
    expect(again.status).toBe(409);
    expect(again.text).toContain('already exists');
    const list = await admin.b.get('/admin');
    expect(list.text).toContain(`href="/admin/panels/${id}"`);
  });

  it('issues the next version from the current one, and refuses one issued on a stale form', async () => {
    const id = `mmr-${unique()}`;
    await admin.b.get('/admin/panels/new');
    await admin.b.post('/admin/panels', statementFields({ id }));
    const page = await admin.b.get(`/admin/panels/${id}`);
    const fields = {
      version: '2',
      topic: 'public-health',
      question: 'Is a second MMR dose needed?',
      answer: 'Yes: two doses protect about 97% of people; one dose about 93%.',
      certainty: 'high',
      panel: 'Dr. Helena Voss | chair | agree\nProf. Kofi Asante | member | agree\nDr. Pavel Horak | member | agree',
      revisit_by: '2027-06-01',
      reopen_triggers: ['new_study', 'source_corrected'],
    };
    expect(page.status).toBe(200);
    const same = await admin.b.post(`/admin/panels/${id}/versions`, { ...fields, answer: 'Yes: two doses protect about 97% of people.', panel: statementFields().panel, reopen_triggers: ['new_study'] });
    expect(same.status).toBe(400);
    expect(same.text).toContain('would repeat version 1 exactly');
    const ok = await admin.b.post(`/admin/panels/${id}/versions`, fields);
    expect(ok.location).toBe(`/admin/panels/${id}?done=issued`);
    const v2 = await new Client(t.baseUrl).get(`/v1/panels/${id}`);
    expect(v2.body).toMatchObject({ version: 2, vote: { agree: 3, dissent: 0 } });
    // A second admin's form still says version 2: refused, their text kept, aimed at version 3 now.
    const stale = await admin.b.post(`/admin/panels/${id}/versions`, { ...fields, answer: 'Another answer.' });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('Version 2 of');
    expect(stale.text).toContain('Another answer.');
    expect(stale.text).toContain('<input type="hidden" name="version" value="3">');
    expect((await admin.b.get('/admin/panels/no-such-statement')).status).toBe(404);
    const forged = await admin.b.post(`/admin/panels/${id}/versions`, { ...fields, version: '3', answer: 'Forged.' }, { csrf: null });
    expect(forged.status).toBe(403);
    expect((await new Client(t.baseUrl).get(`/v1/panels/${id}`)).body.version).toBe(2);
  });
});
