// Full-text search over the public record, on both APIs (and so on both databases: FTS5 and tsvector): a title word
// finds its page, a URL word too; people by name and username but never by e-mail, and never while unconfirmed or
// once erased; a renamed person by the new name only; panel statements by their current question; results ranked.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { makeAdmin, statementBody, versionBody } from './panels.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
let anon: Client;
// Words nobody else in the suite uses, so each test's matches are its own.
const word = () => `zq${randomBytes(3).toString('hex')}`;
const rare = word();

beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  anon = new Client(t.baseUrl);
  const pages = [
    { url: `https://${pub.domain}/health/${rare}-cases-rise-in-three-states`, title: `${rare} cases rise in three states` },
    { url: `https://${pub.domain}/health/vaccines-and-${rare}`, title: 'Vaccines and schools' },
    { url: `https://${pub.domain}/weather/today`, title: 'The weather today' },
  ];
  for (const p of pages) expect((await pub.api.post('/api/v1/pages', p)).status).toBe(201);
});
afterAll(async () => t?.close());

const find = async (q: string, surface: '/api/v1' | '/v1' = '/api/v1', extra = '') => {
  const res = await anon.get(`${surface}/search?q=${encodeURIComponent(q)}${extra}`);
  expect(res.status, res.text).toBe(200);
  return res.body as { data: { type: string; id: string; title: string; detail: string; url: string }[]; meta: { total: number } };
};

describe('search', () => {
  it('finds a page by a word of its title, ranked above a page with the word only in its URL', async () => {
    const r = await find(rare);
    expect(r.data.map((d) => d.title)).toEqual([`${rare} cases rise in three states`, 'Vaccines and schools']);
    expect(r.meta.total).toBe(2);
    expect(r.data[0]).toEqual({
      type: 'page',
      id: expect.any(String),
      title: `${rare} cases rise in three states`,
      detail: `https://${pub.domain}/health/${rare}-cases-rise-in-three-states`,
      url: expect.stringMatching(/^https:\/\/credence\.test\/records\/\d+$/),
    });
    // The same on /v1, in its envelope.
    const v1 = await find(rare, '/v1');
    expect(v1.data.map((d) => d.title)).toEqual(r.data.map((d) => d.title));
    expect('success' in v1).toBe(false);
  });

  it('matches words by their start, requires every word, and reads a URL by its words', async () => {
    expect((await find(rare.slice(0, 5))).data.length).toBeGreaterThanOrEqual(2);
    expect((await find(`${rare} three`)).data.map((d) => d.title)).toEqual([`${rare} cases rise in three states`]);
    expect((await find(`${rare} nowhere`)).data).toEqual([]);
    expect((await find(`https://${pub.domain}/weather/today`)).data.map((d) => d.title)).toEqual(['The weather today']);
    expect((await find('"; drop table pages; --')).data).toEqual([]);
    expect((await find('!!!')).data).toEqual([]);
  });

  it('finds a publisher by its name and slug', async () => {
    const r = await find(pub.slug, '/api/v1', '&type=publisher');
    expect(r.data).toEqual([{ type: 'publisher', id: pub.slug, title: `The ${pub.slug}`, detail: pub.slug, url: `https://credence.test/publishers/${pub.slug}` }]);
  });

  it('finds people by name and username, never by their e-mail, and not before they confirm it', async () => {
    const name = word();
    const inbox = word();
    const person = await signup(t, { name: `Dr ${name} Example`, email: `${inbox}@mail.test` });
    expect((await find(name)).data).toEqual([
      { type: 'contributor', id: person.username, title: `Dr ${name} Example`, detail: `@${person.username}`, url: `https://credence.test/contributors/${person.username}` },
    ]);
    expect((await find(person.username)).data.map((d) => d.id)).toEqual([person.username]);
    expect((await find(inbox)).data).toEqual([]);
    // Signed up, address not confirmed: not public, not found.
    const shy = word();
    const res = await anon.post('/api/v1/auth/signup', { email: `${shy}@mail.test`, password: 'correct horse battery', name: `Unconfirmed ${shy}`, username: `u-${shy}` });
    expect(res.status, res.text).toBe(202);
    expect((await find(shy)).data).toEqual([]);
  });

  it('follows a rename at once: the new name finds the person, the old one does not', async () => {
    const before = word();
    const after = word();
    const person = await signup(t, { name: `Ada ${before}` });
    expect((await find(before)).data).toHaveLength(1);
    const renamed = await person.client.req('PATCH', '/api/v1/account/profile', { body: { name: `Ada ${after}` } });
    expect(renamed.status, renamed.text).toBe(200);
    expect((await find(before)).data).toEqual([]);
    expect((await find(after)).data.map((d) => d.title)).toEqual([`Ada ${after}`]);
  });

  it('forgets an erased person, in its answers and in the database’s bytes', async () => {
    const name = word();
    const person = await signup(t, { name: `Erin ${name}` });
    expect((await find(name)).data).toHaveLength(1);
    const gone = await person.client.req('DELETE', '/api/v1/account', { body: { password: person.password } });
    expect(gone.status, gone.text).toBe(200);
    expect((await find(name)).data).toEqual([]);
    expect((await find(person.username)).data).toEqual([]);
    const bytes = await t.databaseBytes();
    expect(bytes.includes(Buffer.from(name, 'utf8')), 'the index keeps the erased name').toBe(false);
  });

  it('finds a panel statement by its current question and topic, not by a question it no longer asks', async () => {
    const admin = await makeAdmin(t);
    const old = word();
    const now = word();
    const body = statementBody({ question: `Does ${old} prevent infections?` });
    expect((await admin.client.post('/api/v1/admin/panels', body)).status).toBe(201);
    expect((await find(old)).data.map((d) => [d.type, d.id])).toEqual([['panel', body.id]]);
    const next = await admin.client.post(`/api/v1/admin/panels/${body.id}/versions`, versionBody(body, { question: `Does ${now} prevent infections?` }));
    expect(next.status, next.text).toBe(201);
    expect((await find(old)).data).toEqual([]);
    const r = await find(now);
    expect(r.data).toEqual([{ type: 'panel', id: body.id, title: `Does ${now} prevent infections?`, detail: 'health', url: `https://credence.test/panels/${body.id}` }]);
  });

  it('ranks the closer match first across kinds, and pages through the rest', async () => {
    const w = word();
    await signup(t, { name: `${w} Person` });
    expect((await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/a/${w}`, title: `${w}` })).status).toBe(201);
    expect((await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/b/${w}-long`, title: `A long title that mentions ${w} once among many other words` })).status).toBe(201);
    const all = await find(w);
    expect(all.meta.total).toBe(3);
    // The page titled with the word and the person named by it lead; the long title, where the word is one of many,
    // comes last.
    expect(all.data.slice(0, 2).map((d) => d.title).sort()).toEqual([w, `${w} Person`]);
    expect(all.data.at(-1)!.title).toMatch(/^A long title/);
    const second = await find(w, '/api/v1', '&per_page=1&page=2');
    expect(second.data).toEqual([all.data[1]]);
    expect((await find(w, '/api/v1', '&type=contributor')).data.map((d) => d.type)).toEqual(['contributor']);
  });

  it('refuses a missing, empty or overlong query and an unknown type, naming the field', async () => {
    for (const [path, field] of [
      ['/api/v1/search', 'q'],
      ['/api/v1/search?q=', 'q'],
      [`/api/v1/search?q=${'a'.repeat(201)}`, 'q'],
      ['/api/v1/search?q=a&type=email', 'type'],
      ['/api/v1/search?q=a&page=51', 'page'],
      ['/v1/search', 'q'],
    ] as const) {
      const res = await anon.get(path);
      expect(res.status, path).toBe(400);
      expect(JSON.stringify(res.body.error.details ?? res.body.error.message), path).toContain(field);
    }
  });
});
