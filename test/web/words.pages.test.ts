// Words and dates for people: a retraction is said once on the record and is its last change; the scores page
// writes ordinals as English does and shows the formula's field names as code, not backticks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmClaims, publisher, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const get = async (path: string) => (await fetch(`${t.baseUrl}${path}`, { headers: { accept: 'text/html' } })).text();

describe('a retracted page’s record', () => {
  it('says the retraction once, and counts it as the last change', async () => {
    const pub = await publisher(t);
    const author = await signup(t, { name: 'Ida Tarbell' });
    const reg = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/retracted`, title: 'Retracted', authors: [author.username] });
    expect(reg.status, reg.text).toBe(201);
    await confirmClaims(author);
    t.clock.advance(16 * 86_400_000);
    const notice = await pub.api.post(`/api/v1/pages/${reg.body.data.id}/notices`, { type: 'retraction', date: '2026-11-20', reason: 'The images were duplicated.' });
    expect(notice.status, notice.text).toBe(201);
    const text = await get(`/records/${reg.body.data.id}`);
    const visible = text.replace(/<script[\s\S]*?<\/script>/g, '');
    expect(visible.split('The images were duplicated.')).toHaveLength(2);
    expect(text).not.toContain('<h2>Notices</h2>');
    const noticeDay = t.clock.now().toISOString().slice(0, 10);
    const last = /<strong>(.*?)<\/strong> last change/.exec(text)![1]!;
    expect(last).toContain(`<time datetime="${noticeDay}`);
  });
});

describe('an erased person', () => {
  it('reads as a former contributor, with no level or trust', async () => {
    const pub = await publisher(t);
    const author = await signup(t, { name: 'Gone Author' });
    const reg = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/erased`, title: 'Erased', authors: [author.username] });
    expect(reg.status, reg.text).toBe(201);
    await confirmClaims(author);
    const erased = await author.client.delete('/api/v1/account', { body: { password: author.password } });
    expect(erased.status, erased.text).toBe(200);
    const text = await get(`/records/${reg.body.data.id}`);
    const line = /<p class="who">[\s\S]*?<\/p>/.exec(text)![0];
    expect(line).toContain('A former contributor');
    expect(line).not.toMatch(/trust|newcomer|%/);
    expect(line.match(/class="badge/g)).toHaveLength(1); // the role's only
  });
});

describe('the scores page', () => {
  it('writes ordinals and code as people read them', async () => {
    const person = await signup(t, { name: 'Nellie Bly' });
    const text = await get(`/contributors/${person.username}/scores`);
    expect(text).toContain('the 1st to 3rd count in full');
    expect(text).not.toMatch(/[1-3]th\b|`/);
    expect(text).toContain('<code>weight</code>');
  });
});
