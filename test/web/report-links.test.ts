// Every public item links the report form with the item named (DSA Art. 16(2)(b): the exact location): the record
// page, the proof page, a profile, a publication's pages, and the embed in every style and language; each link
// opens the form with the item filled in.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STYLES } from '../../src/surfaces/embed/renderer.js';
import { LANGS } from '../../src/surfaces/embed/i18n.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
let writer: TestUser;
let writerId: number;
let pageId: number;
let contributionId: number;
const anon = () => new Client(t.baseUrl);
const html = (path: string) => anon().get(path, { headers: { accept: 'text/html' } });

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  pub = await publisher(t);
  writer = await signup(t, { name: 'Rhea Reporter' });
  await writer.client.patch('/api/v1/account/profile', { summary: 'Checks harbour news.' });
  const url = `https://${pub.domain}/quay`;
  const page = await pub.api.post('/api/v1/pages', { url, title: 'The quay', topic: 'politics' });
  pageId = page.body.data.id;
  const key = await contributorKey(writer);
  const sub = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', { url, role: 'fact_check', summary: 'The quay is 40 m long', evidence: { reason: 'the plan', sources: ['https://archive.example/plan'] } });
  expect(sub.status, sub.text).toBe(201);
  expect((await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept', note: 'ok' })).status).toBe(200);
  const db = t.runtime.deps.db;
  contributionId = (await db.selectFrom('contributions').select('id').where('page_id', '=', pageId).executeTakeFirstOrThrow()).id;
  writerId = (await db.selectFrom('accounts').select('id').where('username', '=', writer.username).executeTakeFirstOrThrow()).id;
});
afterAll(async () => t?.close());

describe('Report links', () => {
  it('are on the record, proof, profile and publication pages, naming the item and its field', async () => {
    expect((await html(`/records/${pageId}`)).text).toContain(`/report?item=contribution:${contributionId}:summary`);
    const proof = (await html(`/proofs/${contributionId}`)).text;
    expect(proof).toContain(`/report?item=contribution:${contributionId}:summary`);
    expect(proof).toContain(`/report?item=contribution:${contributionId}:evidence_reason`);
    const profile = (await html(`/contributors/${writer.username}`)).text;
    expect(profile).toContain(`/report?item=profile:${writerId}:name`);
    expect(profile).toContain(`/report?item=profile:${writerId}:summary`);
    expect((await html(`/publishers/${pub.slug}`)).text).toContain(`/report?item=page:${pageId}:title`);
  });

  it('are in the embed, in every style and language', async () => {
    for (const style of STYLES) {
      for (const lang of LANGS) {
        const res = await anon().get(`/api/v1/embed/article/${pageId}?style=${style}&lang=${lang}`);
        expect(res.status).toBe(200);
        expect(JSON.stringify(res.body), `${style} ${lang}`).toContain(`/report?item=page:${pageId}`);
      }
    }
  });

  it('open the form with the item filled in', async () => {
    const form = await html(`/report?item=contribution:${contributionId}:summary`);
    expect(form.status).toBe(200);
    expect(form.text).toContain(`value="contribution:${contributionId}:summary"`);
  });

  it('are in the extension’s popup, to the form on the record’s service', () => {
    const popup = readFileSync(new URL('../../extension/popup.js', import.meta.url), 'utf8');
    expect(popup).toContain("'/report?item=page:'");
    // Its words come from the catalogs, in each of the four languages.
    for (const lang of ['en', 'de', 'fr', 'es']) {
      const catalog = JSON.parse(readFileSync(new URL(`../../src/i18n/catalogs/${lang}.json`, import.meta.url), 'utf8')) as Record<string, string>;
      expect(catalog['extension.report'], lang).toBeTruthy();
    }
    expect(readFileSync(new URL('../../extension/lib/strings.js', import.meta.url), 'utf8')).toContain("'report'");
  });
});
