// The typed client (clients/typescript) against the real app on a loopback port: a publication registers its pages,
// looks them up, opens a request; a specialist takes it and submits; the publisher decides; the record, the proof
// and the webhook's deliveries show it. Every call goes through the generated types, and the file is typechecked
// (tsconfig includes it): a change of the contract that breaks a client breaks the build here first.
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createApiClient, createV1Client } from '../../clients/typescript/index.js';
import { verifyDomainByOperator } from '../../src/domain/publishers/publisher.service.js';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { startTestApp, type TestApp } from '../harness.js';
import { confirmAddress } from '../factories.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { relayFor } from './webhooks.fixtures.js';

let t: TestApp;
let rx: WebhookReceiver;
let relay: WebhookRelay;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  await t?.close();
});

/** The answer's data, after checking the call succeeded (openapi-fetch puts a 4xx/5xx body in `error`). */
/** One object created: the creation routes answer an array with `data.results`, one object with the object itself. */
function single<T extends { data: object }>(body: T): Exclude<T['data'], { results: unknown }> {
  if ('results' in body.data) throw new Error('expected one object, got a batch answer');
  return body.data as Exclude<T['data'], { results: unknown }>;
}

function ok<R extends { data?: unknown; error?: unknown; response: Response }>(r: R, status = 200): NonNullable<R['data']> {
  expect(r.error, JSON.stringify(r.error)).toBeUndefined();
  expect(r.response.status).toBe(status);
  return r.data as NonNullable<R['data']>;
}

/** Sign up and log in through the client; returns the session token. */
async function person(username: string, name: string): Promise<string> {
  const anon = createApiClient({ siteUrl: t.baseUrl });
  const email = `${username}@mail.test`;
  const password = 'correct horse battery';
  ok(await anon.POST('/auth/signup', { body: { email, password, name, username } }), 202);
  await confirmAddress(t, email);
  const session = ok(await anon.POST('/auth/login', { body: { email, password } }));
  expectTypeOf(session.data.token).toEqualTypeOf<string>();
  return session.data.token;
}

describe('the typed client, one story', () => {
  it('registers, looks up, requests, submits, decides and reads the webhook’s deliveries', async () => {
    // The publisher: an account, a publication with a verified domain, a publisher key, a webhook.
    const owner = createApiClient({ siteUrl: t.baseUrl, token: await person('owner-story', 'Olive Owner') });
    const created = ok(await owner.POST('/account/publishers', { body: { name: 'The Story Times', slug: 'story-times' } }), 201);
    expectTypeOf(created.data.role).toEqualTypeOf<'owner' | 'editor'>();
    expect(created.data).toMatchObject({ slug: 'story-times', role: 'owner' });
    await verifyDomainByOperator(t.runtime.deps, 'story-times', 'story-times.example');
    const key = { data: single(ok(await owner.POST('/account/api-keys', { body: { name: 'cms', publisher: 'story-times' } }), 201)) };
    expect(key.data).toMatchObject({ kind: 'publisher', status: 'active' });
    const cms = createApiClient({ siteUrl: t.baseUrl, token: key.data.key });
    const who = ok(await cms.GET('/whoami'));
    expectTypeOf(who.data.credential).toEqualTypeOf<'publisher_key' | 'contributor_key' | 'session'>();
    expect(who.data.credential).toBe('publisher_key');

    const hook = { data: single(ok(await owner.POST('/account/webhooks', { body: { url: rx.url('/story'), events: ['page.registered', 'submission.received', 'contribution.accepted'] } }), 201)) };
    rx.trust('/story', hook.data.secret);

    // Register two pages in one call, then one alone; the link of a single registration leads to its record.
    const url = 'https://story-times.example/health/measles';
    const batch = ok(
      await cms.POST('/pages', {
        body: [
          { url, title: 'Measles cases rise', topic: 'health' },
          { url: 'https://story-times.example/health/flu', title: 'Flu season', topic: 'health' },
        ],
      }),
    );
    if (!('results' in batch.data)) throw new Error('an array gets the batch result');
    expect(batch.data.summary).toEqual({ created: 2, updated: 0, skipped: 0, failed: 0 });
    const again = ok(await cms.POST('/pages', { body: { url, title: 'Measles cases rise', topic: 'health' } }));
    if ('results' in again.data) throw new Error('one object gets one result');
    expectTypeOf(again.data.status).toEqualTypeOf<'created' | 'updated' | 'skipped' | 'failed'>();
    expect(again.data.status).toBe('skipped');
    const pageId = again.data.id!;
    const byId = ok(await cms.GET('/articles/{id}', { params: { path: { id: pageId } } }));
    expect(byId.data).toMatchObject({ id: pageId, registered: true, has_record: false, status: 'verified' });

    // Lookup: known, with no accepted work yet.
    const before = ok(await createApiClient({ siteUrl: t.baseUrl }).GET('/pages/lookup', { params: { query: { url } } }));
    expectTypeOf(before.data.status).toEqualTypeOf<'verified' | 'unverified' | null>();
    expect(before.data).toMatchObject({ registered: true, has_record: false });

    // The publisher opens a request; a specialist takes it and submits.
    const opened = ok(await cms.POST('/requests', { body: { url, request_type: 'fact_checker', title: 'Check the case count', brief: 'Against the CDC table', topic: 'health' } }), 201);
    if ('results' in opened.data) throw new Error('one object gets one result');
    const requestId = opened.data.id!;
    const request = ok(await cms.GET('/review-requests/{id}', { params: { path: { id: requestId } } }));
    expectTypeOf(request.data.status).toEqualTypeOf<'open' | 'taken' | 'fulfilled' | 'cancelled'>();
    expect(request.data).toMatchObject({ id: requestId, request_type: 'fact_checker', status: 'open' });

    const specialistSession = await person('ada-story', 'Dr. Ada Story');
    const mine = { data: single(ok(await createApiClient({ siteUrl: t.baseUrl, token: specialistSession }).POST('/account/api-keys', { body: { name: 'tools', publisher: null } }), 201)) };
    expect(mine.data.kind).toBe('contributor');
    const ada = createApiClient({ siteUrl: t.baseUrl, token: mine.data.key });
    const taken = ok(await ada.POST('/review-requests/{id}/take', { params: { path: { id: requestId } } }));
    expect(taken.data).toMatchObject({ status: 'taken', taken_by: 'ada-story' });
    const submitted = ok(
      await ada.POST('/submissions', {
        body: {
          request_id: requestId,
          summary: 'The case count matches the CDC table',
          claim_reviewed: 'Measles cases rose to 1,200',
          verdict: 'true',
          evidence: { reason: 'The CDC weekly table lists 1,200 cases.', sources: ['https://www.cdc.gov/measles/cases.html'] },
        },
      }),
      201,
    );
    if ('results' in submitted.data) throw new Error('one object gets one result');
    const submissionId = submitted.data.id!;
    const own = ok(await ada.GET('/submissions', { params: { query: { status: 'pending' } } }));
    expect(own.data.map((s) => s.id)).toEqual([submissionId]);
    const pending = ok(await ada.GET('/submissions/{id}', { params: { path: { id: submissionId } } }));
    expectTypeOf(pending.data.status).toEqualTypeOf<'pending' | 'accepted' | 'rejected' | 'withdrawn'>();
    expect(pending.data).toMatchObject({ status: 'pending', request_id: requestId, decision: null });

    // The publisher reads the work with its evidence and accepts it.
    const inbox = ok(await cms.GET('/publisher-auth/requests'));
    const work = inbox.data.find((s) => s.id === submissionId)!;
    expectTypeOf(work.role).toEqualTypeOf<'review' | 'fact_check' | 'edit' | 'correction' | 'source' | 'author'>();
    expect(work).toMatchObject({ status: 'pending', role: 'fact_check', evidence: { sources: ['https://www.cdc.gov/measles/cases.html'] } });
    const decided = ok(await cms.POST('/submissions/decide', { body: { submission_id: submissionId, decision: 'accept', note: 'Thanks' } }));
    if ('results' in decided.data) throw new Error('one object gets one result');
    expect(decided.data).toMatchObject({ status: 'created', submission_id: submissionId });
    const contributionId = decided.data.contribution_id!;
    const accepted = ok(await ada.GET('/submissions/{id}', { params: { path: { id: submissionId } } }));
    expect(accepted.data).toMatchObject({ status: 'accepted', decision: { decision: 'accept', note: 'Thanks' } });

    // The record now shows the accepted fact check, by URL (lookup) and at record_url through the /v1 client.
    const after = ok(await createApiClient({ siteUrl: t.baseUrl }).GET('/pages/lookup', { params: { query: { url } } }));
    expect(after.data.has_record).toBe(true);
    const entry = after.data.contributors.fact_check?.[0];
    expect(entry).toMatchObject({ username: 'ada-story', verdict: { name: 'true', label: 'True' } });
    const v1 = createV1Client({ siteUrl: t.baseUrl });
    const record = ok(await v1.GET('/records/{id}', { params: { path: { id: pageId } } }));
    expect(record.contributors.fact_check?.[0]?.username).toBe('ada-story');
    const proof = ok(await v1.GET('/proofs/{id}', { params: { path: { id: `ctb_${contributionId}` } } }));
    expectTypeOf(proof.decision.decision).toEqualTypeOf<'accept' | 'named_by_publisher'>();
    expect(proof).toMatchObject({ id: `ctb_${contributionId}`, role: 'fact_check', decision: { decision: 'accept', note: 'Thanks' } });
    const pageRecord = ok(await v1.GET('/pages/record', { params: { query: { url } } }));
    expect(pageRecord.contributions.map((c) => c.role)).toEqual(['fact_check']);

    // The webhook got every event, signed; the delivery log says so.
    await relay.tick();
    await rx.waitFor(() => rx.requests.filter((r) => r.path === '/story').length >= 4);
    expect(rx.requests.filter((r) => r.path === '/story').every((r) => r.verified)).toBe(true);
    const deliveries = ok(await owner.GET('/account/webhooks/{id}/deliveries', { params: { path: { id: hook.data.id } } }));
    expectTypeOf(deliveries.data[0]!.event).toEqualTypeOf<
      | 'page.registered'
      | 'page.changed'
      | 'page.notice'
      | 'contribution.submitted'
      | 'contribution.accepted'
      | 'contribution.withdrawn'
      | 'request.taken'
      | 'submission.received'
      | 'panel.updated'
      | 'contributor.named'
      | 'contributor.credited'
      | 'contributor.uncredited'
    >();
    expect(deliveries.data.map((a) => a.event).sort()).toEqual(['contribution.accepted', 'page.registered', 'page.registered', 'submission.received']);
    expect(deliveries.data.every((a) => a.success && a.status_code === 200)).toBe(true);
    const health = ok(await owner.GET('/account/webhooks/{id}', { params: { path: { id: hook.data.id } } }));
    expect(health.data).toMatchObject({ status: 'enabled', consecutive_failures: 0, pending: 0 });
  });

  it('gives a refused call its typed error body', async () => {
    const anon = createApiClient({ siteUrl: t.baseUrl });
    const r = await anon.GET('/pages/lookup', { params: { query: { url: 'ftp://example.com/x' } } });
    expect(r.response.status).toBe(400);
    expect(r.error).toMatchObject({ success: false, error: { code: 'invalid_url' } });
    const unauthorised = await anon.GET('/whoami');
    expect(unauthorised.response.status).toBe(401);
  });
});
