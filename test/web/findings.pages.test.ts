// Words a person reads, as the walk of 2026-11-29 found them wrong (issue 51, "What still fails people"): no internal
// paths, formula names or slugs on a page; a request named by its title; an attempt list that tells tries apart; a
// submit form for a request that shows only the fields of the request's kind, and its deadline said forwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayFor } from '../api/webhooks.fixtures.js';
import { publisher, type TestPublisher } from '../factories.js';
import { humane } from '../../src/surfaces/web/me.kit.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';
import { registerPage, submitCorrection, type WebPublication, webPublication, type WebUser, webUser } from './dashboard.fixtures.js';

let t: TestApp;
let pub: WebPublication;
let asking: TestPublisher;
let person: WebUser;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true, rateLimitAllowlist: ['127.0.0.1'] });
  pub = await webPublication(t);
  asking = await publisher(t);
  person = await webUser(t, 'Fay Finder');
});
afterAll(async () => t?.close());

describe('wrong or internal words (finding 4)', () => {
  it('a page’s detail, the embed page and the webhook form say nothing internal, and describe every event', async () => {
    const page = await registerPage(t, pub);
    const detail = await pub.owner.b.get(`${pub.base}/pages/${page.id}`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toContain('docs/decisions/');
    const embed = await pub.owner.b.get(`${pub.base}/embed?page=${page.id}`);
    expect(embed.status).toBe(200);
    expect(embed.text).not.toContain('same renderer');
    const hooks = await pub.owner.b.get(`${pub.base}/webhooks`);
    for (const event of ['page.changed', 'page.notice']) expect(hooks.text).toMatch(new RegExp(`<code>${event.replace('.', '\\.')}</code> <span class="hint">[^<]+</span>`));
  });

  it('the interests form names no slug, a profile no formula, the log-in form no length rule', async () => {
    const profile = await person.b.get('/me/profile');
    expect(profile.text).not.toContain('(its slug)');
    const card = await new FormClient(t.baseUrl).get(`/contributors/${person.username}`);
    expect(card.status).toBe(200);
    expect(card.text).not.toContain('Wilson');
    const login = await new FormClient(t.baseUrl).get('/login');
    expect(login.text).not.toContain('At most 254 characters');
    expect(login.text).toContain('maxlength="254"');
  });

  it('a webhook’s attempts tell the tries of one delivery apart', async () => {
    const made = await pub.owner.b.post(`${pub.base}/webhooks`, { url: 'http://127.0.0.1:9/tries', format: 'api_v1', events_api_v1: ['page.registered'] });
    expect(made.status, made.text).toBe(303);
    const hook = await t.runtime.deps.db.selectFrom('webhooks').select('id').where('url', '=', 'http://127.0.0.1:9/tries').executeTakeFirstOrThrow();
    await registerPage(t, pub);
    const relay = relayFor(t);
    // Three tries against a closed port, each once its backoff has passed.
    for (let i = 0; i < 3; i++) {
      await relay.tick();
      t.clock.advance(3_600_000);
    }
    await relay.stop();
    const text = (await pub.owner.b.get(`${pub.base}/webhooks/${hook.id}`)).text;
    const tries = [...text.matchAll(/delivery (\d+), try (\d+)/g)].map((m) => Number(m[2]));
    expect(tries.length).toBeGreaterThanOrEqual(2);
    expect(new Set(tries).size).toBe(tries.length);
    expect(text).not.toContain('>empty<');
  });
});

describe('a Source request’s submit form (finding 7)', () => {
  it('asks for sources, not Before/After or a verdict, and says the deadline forwards', async () => {
    const open = await asking.api.post('/api/v1/requests', { url: `https://${asking.domain}/sourced`, request_type: 'source', topic: 'health', title: 'Source the vitamin D claim' });
    expect(open.status, open.text).toBe(201);
    const id = open.body.data.id as number;
    await person.b.get('/me/requests');
    expect((await person.b.post(`/me/requests/${id}/take`, {})).status).toBe(303);
    const form = await person.b.get(`/me/submit?request=${id}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="sources"');
    expect(form.text).not.toContain('name="before"');
    expect(form.text).not.toContain('name="after"');
    expect(form.text).not.toContain('Fact checks');
    const held = await person.b.get('/me/requests');
    expect(held.text).toMatch(/Submit work on it by <time[^>]*>[^<]+<\/time>, or it opens to others again\./);
  });
});

describe('trust for people with nothing decided, and the home page’s order (finding 6)', () => {
  it('a new account reads “no decided work yet”, not 0%; its public profile “no accepted work yet”', async () => {
    const fresh = await webUser(t, 'Nia New');
    const me = await fresh.b.get('/me');
    expect(me.text).toContain('<strong>No decided work yet</strong> for a trust score');
    expect(me.text).not.toContain('<strong>0%</strong> trust score');
    const profile = await new FormClient(t.baseUrl).get(`/contributors/${fresh.username}`);
    expect(profile.text).toContain('<strong>No accepted work yet</strong> for a trust score');
  });

  it('lists people by trust, then accepted count, as the list shows them', async () => {
    const decideAll = async (who: WebUser, accept: number, reject: number) => {
      for (let i = 0; i < accept + reject; i++) {
        const page = await registerPage(t, pub);
        const id = await submitCorrection(who, page.url);
        const res = await pub.owner.api.post('/api/v1/submissions/decide', { submission_id: id, decision: i < accept ? 'accept' : 'reject' });
        expect(res.status, res.text).toBe(200);
      }
    };
    // Many accepted among many rejected: the higher contribution score, the lower trust.
    const busy = await webUser(t, 'Bea Busy');
    const careful = await webUser(t, 'Cal Careful');
    await decideAll(busy, 3, 3);
    await decideAll(careful, 2, 0);
    const home = await new FormClient(t.baseUrl).get('/');
    const section = home.text.slice(home.text.indexOf('id="top-h"'));
    const order = [...section.matchAll(/href="\/contributors\/([^"]+)"/g)].map((m) => m[1]);
    expect(order.indexOf(careful.username)).toBeGreaterThanOrEqual(0);
    expect(order.indexOf(careful.username)).toBeLessThan(order.indexOf(busy.username));
    const trusts = [...section.slice(0, section.indexOf('</section>')).matchAll(/trust (\d+)%/g)].map((m) => Number(m[1]));
    expect(trusts).toEqual([...trusts].sort((a, b) => b - a));
  });
});

describe('a new publisher’s domain that does not verify (finding 2)', () => {
  it('says what to do next, and how an operator verifies by hand', async () => {
    const domain = `noor-${pub.slug}.example`;
    await pub.owner.b.get(`${pub.base}/domains`);
    expect((await pub.owner.b.post(`${pub.base}/domains`, { domain })).status).toBe(303);
    const failed = await pub.owner.b.post(`${pub.base}/domains/${domain}/verify`, {});
    expect(failed.status).toBeGreaterThanOrEqual(400);
    expect(failed.text).toContain('Not verified yet.');
    expect(failed.text).toContain('What next: publish one of the two below and press Verify again.');
    expect(failed.text).toContain(`npx credence domains:verify ${domain} --publisher ${pub.slug}`);
  });
});

describe('the proof page (finding 8)', () => {
  it('names an authorship in its heading, and says the decision once', async () => {
    const author = await webUser(t, 'Ada Author');
    const reg = await asking.api.post('/api/v1/pages', { url: `https://${asking.domain}/authored-proof`, title: 'Authored proof', authors: [author.username] });
    expect(reg.status, reg.text).toBe(201);
    const names = await author.b.get('/me/names');
    const claim = /action="\/me\/claims\/(\d+)\/confirm"/.exec(names.text)![1];
    await author.b.post(`/me/claims/${claim}/confirm`, {});
    const id = (await t.runtime.deps.db.selectFrom('contributions').select('id').where('page_id', '=', reg.body.data.id).executeTakeFirstOrThrow()).id;
    const proof = await new FormClient(t.baseUrl).get(`/proofs/${id}`);
    expect(proof.status).toBe(200);
    const h1 = /<h1>([\s\S]*?)<\/h1>/.exec(proof.text)![1]!;
    expect(h1).toContain('Ada Author, author of “Authored proof”');
    expect(h1).not.toContain('Wrote this page');
    expect(proof.text).toContain('<h2>Decision</h2>');
    expect(proof.text).not.toContain('<dt>Decision</dt>');
  });
});

describe('one voice (finding 9)', () => {
  it('says “email”, keeps a domain’s case, and speaks a batch result as a sentence', async () => {
    const security = await person.b.get('/me/security');
    expect(security.text).not.toContain('e-mail');
    const report = await new FormClient(t.baseUrl).get('/report');
    expect(report.text).not.toContain('e-mail');
    await pub.owner.b.get(`${pub.base}/pages`);
    const batch = await pub.owner.b.post(`${pub.base}/pages/batch`, { lines: `https://${pub.domain}/fine Fine\nftp://${pub.domain}/bad Bad` });
    expect(batch.text).toContain('Must be an http or https URL');
    expect(batch.text).not.toContain('url must be');
    expect(humane('noor.example has no TXT record')).toBe('noor.example has no TXT record');
    expect(humane('must be an http or https URL')).toBe('Must be an http or https URL');
  });

  it('says “sign in” and “sign out”, never “log in” or “log out”', async () => {
    const pages = [await new FormClient(t.baseUrl).get('/login'), await new FormClient(t.baseUrl).get('/signup'), await new FormClient(t.baseUrl).get('/requests'), await person.b.get('/me/security'), await person.b.get('/me')];
    for (const page of pages) {
      const visible = page.text.replace(/<script[\s\S]*?<\/script>/g, '').replace(/<[^>]+>/g, ' ');
      expect(visible).not.toMatch(/\b[Ll]og(ged)? (in|out)\b/);
    }
    expect(pages[0]!.text).toContain('<h1>Sign in</h1>');
    expect(pages[3]!.text).toContain('>Sign out</button>');
  });

  it('puts a session’s Sign out on its own line', async () => {
    const other = new FormClient(t.baseUrl);
    await other.get('/login');
    expect((await other.post('/login', { email: person.email, password: 'long enough password' })).status).toBe(303);
    const page = await person.b.get('/me/security');
    expect(page.text).toMatch(/<\/span><form method="post" action="\/me\/security\/sessions\/\d+\/end" class="actions">/);
  });
});
