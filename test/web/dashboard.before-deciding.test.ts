// What a publisher sees before an act that stays: a notice (a retraction, say) is checked and shown as readers will
// read it, saying it is never edited or removed, and only the review's own button publishes it; the inbox shows a
// fact check's claim and verdict, and the passage, before Accept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness.js';
import { registerPage, submitCorrection, type WebPublication, webPublication, webUser } from './dashboard.fixtures.js';

let t: TestApp;
let pub: WebPublication;

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  pub = await webPublication(t);
});
afterAll(async () => {
  await t?.close();
});

const noticesOf = async (pageId: number) => Number((await t.runtime.deps.db.selectFrom('page_notices').select((eb) => eb.fn.countAll<number>().as('n')).where('page_id', '=', pageId).executeTakeFirstOrThrow()).n);

describe('publishing a notice', () => {
  it('takes a second step that says it is never edited or removed; only that step publishes', async () => {
    const { id } = await registerPage(t, pub);
    const b = pub.owner.b;
    await b.get(`${pub.base}/pages/${id}`);
    const first = await b.post(`${pub.base}/pages/${id}/notices`, { type: 'retraction', date: '', reason: 'The images were duplicated.', url: '' });
    expect(first.status).toBe(200);
    expect(first.text).toContain('Publish this notice?');
    expect(first.text).toContain('never edited or removed');
    expect(first.text).toContain('The images were duplicated.');
    expect(first.text).toContain('name="confirmed" value="yes"');
    expect(await noticesOf(id)).toBe(0);

    const second = await b.post(`${pub.base}/pages/${id}/notices`, { type: 'retraction', date: '', reason: 'The images were duplicated.', url: '', confirmed: 'yes' });
    expect(second.status).toBe(303);
    expect(second.location).toBe(`${pub.base}/pages/${id}?done=notice#notices`);
    expect(await noticesOf(id)).toBe(1);
  });

  it('says what is wrong at the first step, next to the field, and publishes nothing', async () => {
    const { id } = await registerPage(t, pub);
    const b = pub.owner.b;
    await b.get(`${pub.base}/pages/${id}`);
    const res = await b.post(`${pub.base}/pages/${id}/notices`, { type: 'retraction', date: '', reason: '', url: '' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('id="f-reason-error"');
    expect(res.text).not.toContain('Publish this notice?');
    expect(await noticesOf(id)).toBe(0);
  });
});

describe('the inbox', () => {
  it('shows a fact check’s claim, verdict and passage before the publisher accepts', async () => {
    const { url } = await registerPage(t, pub);
    const checker = await webUser(t, 'Fay Checker');
    await submitCorrection(checker, url, {
      role: 'fact_check',
      summary: 'The autism claim is false',
      claim_reviewed: 'Vaccines cause autism',
      verdict: 'false',
      quote: { exact: 'Some say vaccines cause autism.' },
      evidence: { reason: 'Large cohort studies find no link.', sources: ['https://www.cdc.gov/vaccinesafety'] },
    });
    const inbox = await pub.owner.b.get(`${pub.base}/inbox`);
    expect(inbox.status).toBe(200);
    const card = inbox.text.slice(inbox.text.indexOf('The autism claim is false'));
    expect(card).toContain('<h4>The claim</h4><p class="prewrap">Vaccines cause autism</p>');
    expect(card).toContain('Verdict: <strong class="verdict">False</strong>');
    expect(card).toContain('Some say vaccines cause autism.');
    expect(card.indexOf('Vaccines cause autism')).toBeLessThan(card.indexOf('value="accept"'));
  });
});
