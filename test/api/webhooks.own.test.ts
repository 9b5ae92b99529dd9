// A person's own webhook ("watching your own name"): a signed-in person registers an endpoint of their own
// (`format: contributor`, no publication) and hears, signed, in order, what names them: a publication asking them to
// confirm an authorship, the public record naming them (a confirmed authorship, accepted work), a notice on a page
// that names them, and the record no longer naming them. Nothing about anyone else; nothing of theirs reaches the
// publication's endpoints; replays, the export and erasure cover it.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseAccount } from '../../src/domain/privacy/erasure.service.js';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { Client } from '../client.js';
import { publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { accept, correction, type Hook, registerHook, registerPage, relayFor, submit } from './webhooks.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
let person: TestUser;
let bystander: TestUser;
let rx: WebhookReceiver;
let relay: WebhookRelay;
let own: Hook;
let publication: Hook;
let storyId: number;
let claimId: number;
let authorshipId: number;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
  pub = await publisher(t);
  person = await signup(t, { name: 'Grace Watcher' });
  bystander = await signup(t);
  publication = await registerHook(pub.owner, { url: rx.url('/publication') });
  rx.trust('/publication', publication.secret);
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  await t?.close();
});

const mine = () => rx.at('/own');

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;
const anon = () => new Client(t.baseUrl);

async function name(path: string, authors: string[]): Promise<number> {
  const res = await pub.api.post('/api/v1/pages', [{ url: `https://${pub.domain}/${path}`, title: `Page ${path}`, topic: 'health', authors }]);
  expect(res.status, res.text).toBe(200);
  return res.body.data.results[0].id as number;
}

describe('a person’s own webhook', () => {
  it('is registered by a person in no publication, with the contributor events by default', async () => {
    own = await registerHook(person, { url: rx.url('/own'), format: 'contributor' });
    rx.trust('/own', own.secret);
    expect(own.body).toMatchObject({
      format: 'contributor',
      publisher: null,
      events: ['contributor.named', 'contributor.credited', 'contributor.uncredited', 'page.notice'],
      status: 'enabled',
    });
    const listed = await person.client.get('/api/v1/account/webhooks');
    expect(listed.body.data.map((w: { id: number }) => w.id)).toEqual([own.id]);
  });

  it('hears a publication ask them to confirm an authorship, and answers it from the payload', async () => {
    storyId = await name('story', [person.username, bystander.username]);
    await relay.tick();
    const [named, ...more] = mine();
    expect(more).toHaveLength(0);
    expect(named!.verified).toBe(true);
    expect(named!.format).toBe('api_v1');
    expect(named!.event).toBe('contributor.named');
    expect(named!.json).toMatchObject({
      event: 'contributor.named',
      data: {
        claim: { role: 'author', confirm_url: 'https://credence.test/me/names' },
        page: { id: storyId, url: `https://${pub.domain}/story`, title: 'Page story', record_url: `https://credence.test/records/${storyId}` },
        publisher: { slug: pub.slug },
      },
    });
    // Nothing about the other person named on the same page, and nothing personal for the publication.
    expect(named!.raw.toString()).not.toContain(bystander.username);
    expect(rx.at('/publication').map((r) => r.event)).toEqual(['page.registered']);

    claimId = named!.json.data.claim.id;
    const confirmed = await person.client.post(`/api/v1/account/claims/${claimId}/confirm`);
    expect(confirmed.status, confirmed.text).toBe(200);
  });

  it('hears the public record name them, with the entry’s seq and log link', async () => {
    await relay.tick();
    const credited = mine().filter((r) => r.event === 'contributor.credited');
    expect(credited).toHaveLength(1);
    const data = credited[0]!.json.data;
    expect(data).toMatchObject({
      page: { id: storyId },
      publisher: { slug: pub.slug },
      contribution: { role: 'author', change: null, provenance: { asserted_by: 'publisher', consent: 'confirmed' } },
    });
    authorshipId = data.contribution.id;
    expect(data.contribution.proof_url).toBe(`https://credence.test/proofs/${authorshipId}`);
    expect(data.log).toEqual({
      index: data.seq - 1,
      proof_url: `https://credence.test/v1/log/proof/inclusion?index=${data.seq - 1}`,
      bundle_url: `https://credence.test/v1/log/proof/bundle?index=${data.seq - 1}`,
    });
    // The seq is the public entry that names them.
    const feed = await anon().get(`/api/v1/changes?after=${data.seq - 1}&limit=1`);
    expect(feed.body.data[0]).toMatchObject({ seq: data.seq, kind: 'contribution.accepted', contribution: { id: authorshipId } });
    expect(feed.body.data[0].openings['/contributor'].value.username).toBe(person.username);
  });

  it('hears accepted work the same way', async () => {
    const page = await registerPage(pub, 'fixed');
    const contributionId = await accept(pub, await submit(person, { url: page.url, role: 'correction', ...correction() }));
    await relay.tick();
    const last = mine().at(-1)!;
    expect(last.event).toBe('contributor.credited');
    expect(last.json.data.contribution).toMatchObject({
      id: contributionId,
      role: 'correction',
      change: { from: 'Rates fell to 70%.', to: 'Rates fell to 79%.' },
      provenance: { asserted_by: 'contributor', consent: 'submitted' },
    });
  });

  it('hears a notice on a page that names them, not on the others', async () => {
    const elsewhere = await registerPage(pub, 'unrelated');
    const notice = { type: 'expression_of_concern', date: t.clock.now().toISOString().slice(0, 10), reason: 'The survey is being checked.' };
    expect((await pub.api.post(`/api/v1/pages/${elsewhere.id}/notices`, notice)).status).toBe(201);
    expect((await pub.api.post(`/api/v1/pages/${storyId}/notices`, { ...notice, type: 'retraction', reason: 'The survey was wrong.' })).status).toBe(201);
    await relay.tick();
    const notices = mine().filter((r) => r.event === 'page.notice');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.json.data).toMatchObject({ page: { id: storyId }, notice: { type: 'retraction' }, standing: 'retracted' });
    // The same payload the publication's endpoint got for it.
    const theirs = rx.at('/publication').find((r) => r.event === 'page.notice' && r.json.data.page.id === storyId)!;
    expect(notices[0]!.json).toEqual(theirs.json);
  });

  it('hears the record stop naming them when they take their name back', async () => {
    const withdrawn = await person.client.post(`/api/v1/account/contributions/${authorshipId}/withdraw`);
    expect(withdrawn.status, withdrawn.text).toBe(200);
    await relay.tick();
    const last = mine().at(-1)!;
    expect(last.event).toBe('contributor.uncredited');
    expect(last.json.data).toMatchObject({ page: { id: storyId }, publisher: { slug: pub.slug }, contribution: { id: authorshipId, role: 'author', reason: 'withdrawn' } });
    expect(last.json.data.log.index).toBe(last.json.data.seq - 1);
    // In order, each once, every one signed; none of it went to the publication's endpoint.
    expect(mine().map((r) => r.event)).toEqual(['contributor.named', 'contributor.credited', 'contributor.credited', 'page.notice', 'contributor.uncredited']);
    expect(mine().every((r) => r.verified)).toBe(true);
    expect(new Set(mine().map((r) => r.delivery)).size).toBe(mine().length);
    expect(rx.at('/publication').some((r) => String(r.event).startsWith('contributor.'))).toBe(false);
  });

  it('sends what the /api/v1 document’s webhooks section describes, field by field', async () => {
    const doc = (await anon().get('/api/v1/openapi.json')).body;
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
    for (const r of mine()) {
      const schema = doc.webhooks[r.event!].post.requestBody.content['application/json'].schema;
      const valid = ajv.validate(schema, r.json);
      expect(valid, `${r.event}: ${ajv.errorsText()}`).toBe(true);
    }
    expect(new Set(mine().map((r) => r.event)).size).toBe(4);
  });

  it('takes a subset of its events, and replays them', async () => {
    const only = await registerHook(person, { url: rx.url('/only'), format: 'contributor', events: ['contributor.uncredited'] });
    rx.trust('/only', only.secret);
    const res = await person.client.post(`/api/v1/account/webhooks/${only.id}/replay`, { since: new Date(t.clock.now().getTime() - 86_400_000).toISOString() });
    expect(res.status, res.text).toBe(202);
    await relay.tick();
    // Registered after all of it: a replay sends nothing the endpoint was never owed.
    expect(rx.at('/only')).toHaveLength(0);
    const again = await person.client.post(`/api/v1/account/webhooks/${own.id}/replay`, { since: new Date(t.clock.now().getTime() - 86_400_000).toISOString() });
    expect(again.status, again.text).toBe(202);
    await relay.tick();
    const replayed = mine().filter((r) => r.headers['x-service-replay'] === 'true');
    expect(replayed.map((r) => r.event)).toEqual(['contributor.named', 'contributor.credited', 'contributor.credited', 'page.notice', 'contributor.uncredited']);
    expect(replayed.every((r) => r.verified)).toBe(true);
  });

  it('refuses a publisher or another format’s events, naming the field', async () => {
    const withPublisher = await person.client.post('/api/v1/account/webhooks', { url: rx.url('/x'), format: 'contributor', publisher: pub.slug });
    expect(withPublisher.status).toBe(400);
    expect(withPublisher.body.error).toMatchObject({ code: 'invalid_request', details: [{ field: 'publisher' }] });
    const wrongEvents = await person.client.post('/api/v1/account/webhooks', { url: rx.url('/x'), format: 'contributor', events: ['page.registered'] });
    expect(wrongEvents.status).toBe(400);
    expect(wrongEvents.body.error.details).toEqual([{ field: 'events.0', message: expect.stringContaining('contributor.named') }]);
    // A publication's endpoint cannot take the person events either.
    const onPublication = await pub.owner.client.post('/api/v1/account/webhooks', { url: rx.url('/x'), events: ['contributor.named'] });
    expect(onPublication.status).toBe(400);
  });

  it('is the person’s alone: not another account’s, not the publication owner’s, not a key’s', async () => {
    for (const other of [bystander, pub.owner]) {
      expect((await other.client.get(`/api/v1/account/webhooks/${own.id}`)).status).toBe(404);
      expect((await other.client.patch(`/api/v1/account/webhooks/${own.id}`, { enabled: false })).status).toBe(404);
      expect((await other.client.delete(`/api/v1/account/webhooks/${own.id}`)).status).toBe(404);
      const list = await other.client.get('/api/v1/account/webhooks');
      expect(list.body.data.map((w: { id: number }) => w.id)).not.toContain(own.id);
    }
    expect((await anon().post('/api/v1/account/webhooks', { url: rx.url('/x'), format: 'contributor' })).status).toBe(401);
    const byKey = await pub.api.post('/api/v1/account/webhooks', { url: rx.url('/x'), format: 'contributor' });
    expect([401, 403]).toContain(byKey.status);
  });

  it('is in the person’s export, and goes with them when they erase their account', async () => {
    const exported = await person.client.get('/api/v1/account/export');
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.data.webhooks.find((w: { id: number }) => w.id === own.id)).toMatchObject({ format: 'contributor', publisher: null });
    await eraseAccount(t.runtime.deps, person.id);
    const db = t.runtime.deps.db;
    expect(await db.selectFrom('webhooks').select('id').where('account_id', '=', person.id).execute()).toEqual([]);
    // No event is linked to them any more, and none carries their name.
    expect(await db.selectFrom('events').select('id').where('account_id', '=', person.id).execute()).toEqual([]);
    const payloads = await db.selectFrom('events').select('payload').execute();
    expect(payloads.some((e) => e.payload.includes(person.username) || e.payload.includes('Grace Watcher'))).toBe(false);
  });
});
