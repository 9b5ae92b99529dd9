// Text as the documents count and require it: lengths in characters (an emoji is one, as JSON Schema counts, never
// two UTF-16 units), and a required field of words refused when it is only spaces, by the schema the documents show,
// naming the field. The replay body's "one of since or after" is in its schema too, so `{}` is refused there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
let person: TestUser;
beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  pub = await publisher(t);
  person = await signup(t);
});
afterAll(async () => t?.close());

const EMOJI = '📰';

describe('lengths', () => {
  it('count an emoji as one character, on the schema and in the service', async () => {
    const fits = await person.client.post('/api/v1/account/interests', { subject: 'organisation', kind: 'funding', name: EMOJI.repeat(200), note: EMOJI.repeat(500) });
    expect(fits.status, fits.text).toBe(201);
    const over = await person.client.post('/api/v1/account/interests', { subject: 'organisation', kind: 'funding', name: EMOJI.repeat(201) });
    expect(over.status).toBe(400);
    expect(over.body.error.details).toEqual([{ field: 'name', message: 'must be at most 200 characters' }]);
  });

  it('count a notice’s reason in characters', async () => {
    const page = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/emoji`, title: 'Emoji', topic: 'news' });
    expect(page.status, page.text).toBe(201);
    const id = page.body.data.id;
    const res = await pub.api.post(`/api/v1/pages/${id}/notices`, { type: 'expression_of_concern', reason: EMOJI.repeat(2000) });
    expect(res.status, res.text).toBe(201);
  });
});

describe('a required field of words', () => {
  it('is refused when it is only spaces, naming the field, wherever people write one', async () => {
    const named = await person.client.post('/api/v1/account/publishers', { name: '   ', slug: 'blank-name' });
    expect(named.status).toBe(400);
    expect(named.body.error.details).toEqual([{ field: 'name', message: 'must not be blank' }]);
    const key = await person.client.post('/api/v1/account/api-keys', { name: ' \t ' });
    expect(key.status).toBe(400);
    expect(key.body.error.details[0]).toEqual({ field: 'name', message: 'must not be blank' });
    const work = await new Client(t.baseUrl)
      .as(await contributorKey(person))
      .post('/api/v1/submissions', { url: `https://${pub.domain}/emoji`, role: 'review', summary: '  ', evidence: { reason: '\n', sources: [] } });
    expect(work.status).toBe(400);
    expect(work.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'summary', message: 'must not be blank' },
        { field: 'evidence.reason', message: 'must not be blank' },
      ]),
    );
  });

  it('is taken with words and spaces around them, and stored trimmed', async () => {
    const res = await person.client.post('/api/v1/account/publishers', { name: '  The Spaced Times ', slug: 'spaced-times' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.name).toBe('The Spaced Times');
  });

  it('is documented as such: the schema carries the pattern, and a form gets it as its own', async () => {
    const doc = (await new Client(t.baseUrl).get('/api/v1/openapi.json')).body;
    const body = doc.paths['/account/publishers'].post.requestBody.content['application/json'].schema;
    const name = (body.properties ?? body.anyOf[0].properties).name;
    expect(new RegExp(name.pattern, 'u').test('  ')).toBe(false);
    expect(new RegExp(`^(?:${name.pattern})$`, 'v').test('  a  ')).toBe(true);
  });
});

describe('a replay', () => {
  it('says in its schema that it takes one of since and after, and refuses {} there', async () => {
    const hook = await pub.owner.client.post('/api/v1/account/webhooks', { url: 'https://hooks.example.com/in', publisher: pub.slug });
    expect(hook.status, hook.text).toBe(201);
    const neither = await pub.owner.client.post(`/api/v1/account/webhooks/${hook.body.data.id}/replay`, {});
    expect(neither.status).toBe(400);
    expect(neither.body.error.details).toEqual([{ field: '(body)', message: 'must not be empty' }]);
    const doc = (await new Client(t.baseUrl).get('/api/v1/openapi.json')).body;
    const schema = doc.paths['/account/webhooks/{id}/replay'].post.requestBody.content['application/json'].schema;
    expect(schema).toMatchObject({ minProperties: 1, maxProperties: 1 });
  });
});
