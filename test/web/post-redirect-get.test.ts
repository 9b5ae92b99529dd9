// Post/Redirect/Get for secrets: the post that makes a key answers 303, the page it leads to shows the secret once
// (sealed for this session in a short-lived cookie), and a reload neither shows it again nor makes a second key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness.js';
import { FLASH_COOKIE } from '../../src/surfaces/web/flash.js';
import { count, webUser } from './dashboard.fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('a new API key', () => {
  it('is shown once after the redirect; a reload shows nothing and makes nothing', async () => {
    const person = await webUser(t, 'Reload Person');
    await person.b.get('/me/keys');
    const before = await count(t, 'api_keys');
    const posted = await person.b.post('/me/keys', { name: 'reload test', expires: '' });
    expect(posted.status).toBe(303);
    expect(posted.text).not.toContain('cred_live_');
    // The cookie carries no readable secret.
    expect(decodeURIComponent(person.b.cookie(FLASH_COOKIE) ?? '')).not.toContain('cred_live_');
    const shown = await person.b.get(posted.location!.replace(/#.*$/, ''));
    expect(shown.text).toMatch(/cred_live_[0-9a-f]{64}/);
    const reloaded = await person.b.get('/me/keys');
    expect(reloaded.text).not.toMatch(/cred_live_[0-9a-f]{64}/);
    expect(await count(t, 'api_keys')).toBe(before + 1);
  });

  it('cannot be opened by another session holding the cookie', async () => {
    const person = await webUser(t, 'Sealed Person');
    const thief = await webUser(t, 'Other Person');
    await person.b.get('/me/keys');
    await person.b.post('/me/keys', { name: 'sealed', expires: '' });
    const sealed = person.b.cookie(FLASH_COOKIE)!;
    const res = await thief.b.get('/me/keys', { cookie: `${FLASH_COOKIE}=${sealed}; credence_session=${thief.b.cookie('credence_session') ?? ''}` });
    expect(res.text).not.toMatch(/cred_live_[0-9a-f]{64}/);
  });
});

describe('what cannot be undone asks twice', () => {
  it('revoking a key opens a second step saying what happens, and only its button posts', async () => {
    const person = await webUser(t, 'Careful Person');
    await person.b.get('/me/keys');
    await person.b.postFollow('/me/keys', { name: 'careful', expires: '' });
    const page = await person.b.get('/me/keys');
    const step = /<details class="confirm">[\s\S]*?<\/details>/.exec(page.text)?.[0];
    expect(step).toBeDefined();
    expect(step).toMatch(/<summary[^>]*>Revoke/);
    expect(step).toContain('A revoked key cannot be brought back.');
    expect(step).toContain('Revoke “careful” for good</button>');
    // The summary is no submit button: the only one that posts is inside the opened step.
    expect(step!.match(/type="submit"/g)).toHaveLength(1);
  });
});
