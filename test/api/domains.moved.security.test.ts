// A publication acts only on pages whose domain it holds now (seed 000 §4 rule 1, §5.3): once a domain moves to
// another publication, every write the old publication could make on its pages there (registering, naming authors,
// opening and cancelling requests, deciding the work, notices, asking to link a user of its site to a person) is 403
// `page_not_verified`, by key and by session, on /v1, /api/v1 and the dashboard, and changes nothing. The walk below
// covers every publisher write of the route table and every dashboard form of the app, so a new one cannot skip it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDomainByOperator } from '../../src/domain/publishers/publisher.service.js';
import type { Client, Res } from '../client.js';
import { publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from '../web/browser-client.js';
import { ROUTES, routeName, routesOf } from './route-table.js';

let t: TestApp;
let old: TestPublisher;
let rival: TestPublisher;
let specialist: TestUser;
let submissionId: number;
let pageId: number;
/** Open requests on the moved domain: one taken (its work pending), one left open. */
let takenRequestId: number;
let openRequestId: number;
let web: FormClient;
const url = () => `https://${old.domain}/moved/page`;
const otherUrl = () => `https://${old.domain}/moved/other`;

beforeAll(async () => {
  t = await startTestApp();
  old = await publisher(t);
  specialist = await signup(t);
  const opened = await old.api.post('/api/v1/requests', { url: url(), request_type: 'reviewer', topic: 'health' });
  expect(opened.status, opened.text).toBe(201);
  takenRequestId = opened.body.data.id;
  const lookup = await old.api.get(`/api/v1/pages/lookup?url=${encodeURIComponent(url())}`);
  pageId = lookup.body.data.id;
  const other = await old.api.post('/api/v1/requests', { url: otherUrl(), request_type: 'fact_checker', topic: 'health' });
  expect(other.status, other.text).toBe(201);
  openRequestId = other.body.data.id;
  const take = await specialist.client.post(`/api/v1/review-requests/${takenRequestId}/take`);
  expect(take.status, take.text).toBe(200);
  const sub = await specialist.client.post('/api/v1/submissions', { request_id: takenRequestId, summary: 'Reviewed', evidence: { reason: 'Read it', sources: [] } });
  expect(sub.status, sub.text).toBe(201);
  submissionId = sub.body.data.id;
  // The owner signs in on the dashboard before the move, as one whose tab stays open would.
  web = new FormClient(t.baseUrl);
  await web.get('/login');
  expect((await web.post('/login', { email: old.owner.email, password: old.owner.password })).status).toBe(303);
  rival = await publisher(t);
  await verifyDomainByOperator(t.runtime.deps, rival.slug, old.domain);
});
afterAll(async () => t?.close());

function expectRefused(res: Res, surface: 'v1' | 'api'): void {
  expect(res.status, res.text).toBe(403);
  if (surface === 'api') expect(res.body.success).toBe(false);
  else expect(res.body).not.toHaveProperty('success');
  expect(res.body.error.code).toBe('page_not_verified');
  expect(res.body.error.message).toContain(old.domain);
}

/** A batch answers 200 with the item failed, as SPEC §9 says of a page off the caller's verified domains. */
function expectItemRefused(res: Res): void {
  expect(res.status, res.text).toBe(200);
  expect(res.body.data.results[0]).toMatchObject({ status: 'failed', error: { code: 'page_not_verified' } });
}

/**
 * Every publisher write of the route table, tried on the moved domain's pages by one caller (the old publication's
 * key, or its owner's session). Each answers 403, single or batched.
 */
const WRITES: Record<string, (as: Client) => Promise<void>> = {
  'POST /api/v1/pages': async (as) => {
    // A known page (a new title, a new author) and a new one under the moved domain.
    expectRefused(await as.post(`/api/v1/pages?publisher=${old.slug}`, { url: url(), title: 'Rewritten', authors: [specialist.username] }), 'api');
    expectRefused(await as.post(`/api/v1/pages?publisher=${old.slug}`, { url: `https://${old.domain}/moved/new` }), 'api');
    expectItemRefused(await as.post(`/api/v1/pages?publisher=${old.slug}`, [{ url: url(), title: 'Rewritten' }]));
  },
  'POST /api/v1/pages/{id}/notices': async (as) => {
    expectRefused(await as.post(`/api/v1/pages/${pageId}/notices?publisher=${old.slug}`, { type: 'retraction', reason: 'We no longer stand by it' }), 'api');
  },
  'POST /api/v1/requests': async (as) => {
    expectRefused(await as.post(`/api/v1/requests?publisher=${old.slug}`, { url: url(), request_type: 'editor' }), 'api');
    expectRefused(await as.post(`/api/v1/requests?publisher=${old.slug}`, { article_ref_id: pageId, request_type: 'editor' }), 'api');
    expectItemRefused(await as.post(`/api/v1/requests?publisher=${old.slug}`, [{ url: url(), request_type: 'editor' }]));
  },
  'POST /api/v1/requests/{id}/cancel': async (as) => {
    expectRefused(await as.post(`/api/v1/requests/${openRequestId}/cancel?publisher=${old.slug}`), 'api');
    expectRefused(await as.post(`/api/v1/requests/${takenRequestId}/cancel?publisher=${old.slug}`), 'api');
  },
  'POST /api/v1/submissions/decide': async (as) => {
    expectRefused(await as.post(`/api/v1/submissions/decide?publisher=${old.slug}`, { submission_id: submissionId, decision: 'accept' }), 'api');
    expectRefused(await as.post(`/api/v1/submissions/decide?publisher=${old.slug}`, { submission_id: submissionId, decision: 'reject' }), 'api');
    expectItemRefused(await as.post(`/api/v1/submissions/decide?publisher=${old.slug}`, [{ submission_id: submissionId, decision: 'accept' }]));
  },
  'POST /api/v1/publishers/{slug}/author-links': async (as) => {
    // Linking a user of a site on the moved domain to a person: the site is no longer the publication's.
    const ask = { username: specialist.username, site: `https://${old.domain}/`, user_id: '7', display_name: 'A writer' };
    expectRefused(await as.post(`/api/v1/publishers/${old.slug}/author-links`, ask), 'api');
  },
  'POST /v1/requests': async (as) => {
    expectRefused(await as.post('/v1/requests', { url: url(), type: 'review' }), 'v1');
  },
};

/** Nothing the refused calls tried happened. */
async function expectUnchanged(): Promise<void> {
  const record = await rival.api.get(`/api/v1/articles/${pageId}`);
  expect(record.status, record.text).toBe(200);
  expect(record.body.data.title).not.toBe('Rewritten');
  expect(record.body.data.standing).toBe('current');
  expect(record.body.data.notices).toEqual([]);
  const registered = await t.runtime.deps.db.selectFrom('pages').select('url').where('host', '=', old.domain).execute();
  expect(registered.map((p) => p.url).sort()).toEqual([otherUrl(), url()]);
  // The move cancelled both (domains.moved.requests.test.ts); a refused cancel changes nothing else.
  expect((await specialist.client.get(`/api/v1/review-requests/${openRequestId}`)).body.data.status).toBe('cancelled');
  expect((await specialist.client.get(`/api/v1/review-requests/${takenRequestId}`)).body.data.status).toBe('cancelled');
  expect((await specialist.client.get(`/api/v1/submissions/${submissionId}`)).body.data.status).toBe('pending');
  const claims = await specialist.client.get('/api/v1/account/claims');
  expect(claims.body.data).toEqual([]);
  expect(await t.runtime.deps.db.selectFrom('author_links').select('id').execute()).toEqual([]);
}

describe('a domain moved to another publication', () => {
  it('the walk names every publisher write of the route table', () => {
    const writes = ROUTES.filter((r) => r.auth === 'publisher' && r.method !== 'GET').map(routeName);
    expect(Object.keys(WRITES).sort(), 'a publisher write missing from this walk: add what it does on a moved page').toEqual(writes.sort());
  });

  it('refuses every write of the old publication’s key (403 page_not_verified), and changes nothing', async () => {
    for (const [route, tryIt] of Object.entries(WRITES)) {
      await tryIt(old.api).catch((err: Error) => {
        throw new Error(`${route}: ${err.message}`);
      });
    }
    await expectUnchanged();
  });

  it('refuses every write of its owner’s session the same way', async () => {
    for (const [route, tryIt] of Object.entries(WRITES)) {
      await tryIt(old.owner.client).catch((err: Error) => {
        throw new Error(`${route}: ${err.message}`);
      });
    }
    await expectUnchanged();
  });

  it('refuses every dashboard form on those pages, and says why', async () => {
    const base = `/dashboard/${old.slug}`;
    // The dashboard's writes, by what they act on. Forms about the publication itself (its members, domains, keys
    // and webhooks) are not about its pages: taking the domain back is verifying it again.
    const onPages: Record<string, () => Promise<{ status: number; text: string }>> = {
      'POST /dashboard/{slug}/pages': async () => {
        await web.get(`${base}/pages`);
        return web.post(`${base}/pages`, { url: url(), title: 'Rewritten', authors: specialist.username });
      },
      'POST /dashboard/{slug}/pages/batch': async () => {
        await web.get(`${base}/pages`);
        const res = await web.post(`${base}/pages/batch`, { lines: `${url()} | Rewritten` });
        // A batch answers its page with each line's outcome.
        expect(res.status).toBe(200);
        return { status: 403, text: res.text };
      },
      'POST /dashboard/{slug}/pages/{id}/notices': async () => {
        await web.get(`${base}/pages/${pageId}`);
        return web.post(`${base}/pages/${pageId}/notices`, { type: 'retraction', reason: 'We no longer stand by it', confirmed: 'yes' });
      },
      'POST /dashboard/{slug}/requests': async () => {
        await web.get(`${base}/requests`);
        return web.post(`${base}/requests`, { url: url(), request_type: 'editor' });
      },
      'POST /dashboard/{slug}/requests/{id}/cancel': async () => {
        await web.get(`${base}/requests`);
        return web.post(`${base}/requests/${openRequestId}/cancel`, {});
      },
      'POST /dashboard/{slug}/inbox/{id}/decide': async () => {
        await web.get(`${base}/inbox`);
        return web.post(`${base}/inbox/${submissionId}/decide`, { decision: 'accept' });
      },
    };
    const aboutThePublication = /^POST \/dashboard\/\{slug\}\/(members|invitations|domains|keys|webhooks)\b/;
    const forms = routesOf(t.app.printRoutes({ commonPrefix: false })).filter((r) => r.startsWith('POST /dashboard/{slug}/'));
    expect(forms.filter((r) => !aboutThePublication.test(r)).sort(), 'a dashboard form missing from this walk').toEqual(Object.keys(onPages).sort());
    for (const [form, post] of Object.entries(onPages)) {
      const res = await post();
      expect(res.status, `${form}: ${res.text.slice(0, 300)}`).toBe(403);
      expect(res.text, form).toContain(`${old.domain} is not a verified site`);
    }
    await expectUnchanged();
  });

  it('leaves the new holder’s own writes alone', async () => {
    const opened = await rival.api.post('/api/v1/requests', { url: `https://${old.domain}/under-new-hands`, request_type: 'reviewer' });
    expect(opened.status, opened.text).toBe(201);
    const pid = (await rival.api.get(`/api/v1/pages/lookup?url=${encodeURIComponent(`https://${old.domain}/under-new-hands`)}`)).body.data.id as number;
    const notice = await rival.api.post(`/api/v1/pages/${pid}/notices`, { type: 'clarification', reason: 'Now ours' });
    expect(notice.status, notice.text).toBe(201);
    expect((await rival.api.post(`/api/v1/requests/${opened.body.data.id}/cancel`)).status).toBe(200);
  });
});
