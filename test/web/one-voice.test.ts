// One voice on the public pages: dates in one format by Intl (pages, embed, mail), one word for the link to a
// contribution's proof, certainties in words, a retraction said once in the full embed, a page's pending author
// claims counted without names, and a publication's recent pages newest first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDay, formatMoment } from '../../src/domain/dates.js';
import { render } from '../../src/domain/mail/mail.messages.js';
import { confirmClaims, publisher, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const get = async (path: string) => (await fetch(`${t.baseUrl}${path}`, { headers: { accept: 'text/html' } })).text();

describe('dates', () => {
  it('are written one way, by Intl, in the reader’s language', () => {
    expect(formatDay('2026-11-28')).toBe('28 Nov 2026');
    expect(formatDay('2026-11-28T23:59:00.000Z', 'en')).toBe('28 Nov 2026');
    expect(formatDay('2026-11-28', 'fr')).toBe('28 nov. 2026');
    expect(formatDay('2026-11-28', 'de')).toBe('28. Nov. 2026');
    expect(formatDay('not a date')).toBe('not a date');
  });

  it('on the dashboards too, with the hour where the hour matters', async () => {
    const { day, when } = await import('../../src/surfaces/web/dashboard.kit.js');
    expect(formatMoment('2026-11-21T10:00:00.000Z')).toBe('21 Nov 2026, 10:00 UTC');
    expect(String(day('2026-11-21T10:00:00.000Z'))).toBe('<time datetime="2026-11-21T10:00:00.000Z">21 Nov 2026</time>');
    expect(String(when('2026-11-21T10:00:00.000Z'))).toBe('<time datetime="2026-11-21T10:00:00.000Z">21 Nov 2026, 10:00 UTC</time>');
  });

  it('in mail too, in the mail’s language', () => {
    const base = { kind: 'api_key_expiring' as const, siteUrl: 'https://credence.test', username: 'ida', name: 'Ida', unsubscribeUrl: null };
    const facts = [{ name: 'CMS', expires_at: '2026-12-05', link: 'https://credence.test/me/keys' }];
    expect(render({ ...base, locale: 'en', facts }).text).toContain('expires on 5 Dec 2026.');
    expect(render({ ...base, locale: 'fr', facts }).text).toContain('expire le 5 déc. 2026.');
  });
});

describe('a record', () => {
  it('names the proof link one way, counts pending author claims without names, and dates as the site does', async () => {
    const pub = await publisher(t);
    const author = await signup(t, { name: 'Rachel Carson' });
    const waiting = await signup(t, { name: 'Not Yet Agreed' });
    const reg = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/voice`, title: 'Voice', authors: [author.username, waiting.username] });
    expect(reg.status, reg.text).toBe(201);
    await confirmClaims(author);
    const text = await get(`/records/${reg.body.data.id}`);
    expect(text).toContain('1 author claim waiting for confirmation');
    expect(text).not.toContain('Not Yet Agreed');
    expect(text).not.toContain('>Evidence<');
    expect(text).toMatch(/<a href="\/proofs\/\d+">Proof<span class="sr-only">/);
    const day = formatDay(t.clock.now().toISOString());
    expect(text).toContain(`>${day}</time>`);
  });

  it('says a retraction once in the full embed', async () => {
    const pub = await publisher(t);
    const author = await signup(t, { name: 'Nellie Bly' });
    const url = `https://${pub.domain}/retracted-embed`;
    const reg = await pub.api.post('/api/v1/pages', { url, title: 'Retracted', authors: [author.username] });
    expect(reg.status, reg.text).toBe(201);
    await confirmClaims(author);
    const notice = await pub.api.post(`/api/v1/pages/${reg.body.data.id}/notices`, { type: 'retraction', date: '2026-11-20', reason: 'The figures were invented.' });
    expect(notice.status, notice.text).toBe(201);
    const res = await fetch(`${t.baseUrl}/api/v1/embed/by-url?url=${encodeURIComponent(url)}&style=full`);
    const body = await res.text();
    expect(res.status, body).toBe(200);
    expect(body.split('The figures were invented.')).toHaveLength(2);
    expect(body).toContain('20 Nov 2026');
  });
});

describe('a publication', () => {
  it('lists its recent pages newest first', async () => {
    const pub = await publisher(t);
    const older = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/first`, title: 'First registered' });
    expect(older.status, older.text).toBe(201);
    t.clock.advance(86_400_000);
    const newer = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/second`, title: 'Second registered' });
    expect(newer.status, newer.text).toBe(201);
    // The older page gets the later date, as an import of dated pages would: the list follows the date, not the id.
    await t.runtime.deps.db.updateTable('pages').set({ created_at: new Date(t.clock.now().getTime() + 86_400_000).toISOString() }).where('id', '=', older.body.data.id).execute();
    const text = await get(`/publishers/${pub.slug}`);
    expect(text.indexOf('First registered')).toBeGreaterThan(0);
    expect(text.indexOf('First registered')).toBeLessThan(text.indexOf('Second registered'));
  });
});

describe('a panel certainty', () => {
  it('is said in words', async () => {
    const { certaintyLabel } = await import('../../src/surfaces/web/views.js');
    expect(certaintyLabel('low-moderate')).toBe('low-to-moderate certainty');
    expect(certaintyLabel('very-low')).toBe('very low certainty');
  });
});
