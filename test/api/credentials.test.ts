// Credit people can carry (issue 53): an accepted fact check's Open Badges 3.0 credential, verified by the Digital
// Bazaar library's own verifier in a separate process that has only the DID document, the pinned contexts and the
// status lists; withdrawing the work revokes the same credential within the change follower's second; erasure revokes
// every credential of the person. Runs on both databases.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { createAdmin } from '../../src/domain/accounts/account.service.js';
import * as moderation from '../../src/domain/moderation/moderation.service.js';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';

let t: TestApp;
let pub: TestPublisher;
let ada: TestUser;
let tmp: string;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-vc-'));
  t = await startTestApp();
  pub = await publisher(t);
  ada = await signup(t);
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const anon = () => new Client(t.baseUrl);
const site = () => t.runtime.deps.config.siteUrl;
let n = 0;
async function factCheck(user: TestUser): Promise<number> {
  const url = `https://${pub.domain}/story-${++n}`;
  expect((await pub.api.post('/api/v1/pages', { url, title: `Story ${n}`, topic: 'health' })).status).toBeLessThan(300);
  const key = await contributorKey(user);
  const s = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', { url, role: 'fact_check', summary: 'checked the figures', evidence: { reason: 'the report says so', sources: ['https://archive.example/r'] } });
  expect(s.status, s.text).toBe(201);
  const d = await pub.api.post('/api/v1/submissions/decide', { submission_id: s.body.data.id, decision: 'accept', note: 'thanks' });
  expect(d.status, d.text).toBe(200);
  return d.body.data.contribution_id as number;
}

// The published JSON Schemas, pinned (each says where it comes from and which version), each under the draft it
// declares: VC 2.0's 2020-12, Open Badges 3.0's 2019-09.
const pinned = (file: string) => JSON.parse(fs.readFileSync(path.resolve('test/fixtures/credentials', file), 'utf8'));
const SCHEMAS = [
  { name: 'VC 2.0', validate: addFormats.default(new Ajv2020({ allErrors: true, strictTuples: false })).compile(pinned('vc-2.0.schema.json')) },
  { name: 'Open Badges 3.0', validate: addFormats.default(new Ajv2019({ allErrors: true, strictTuples: false })).compile(pinned('ob-3.0.3-achievementcredential.schema.json')) },
];
/**
 * The one deviation known, and open: Open Badges 3.0 gives an AchievementCredential at most one `credentialStatus`
 * ([0..1], an object in its schema), and ours carries two entries (revocation, suspension), which VC 2.0 allows.
 * Anything else the schemas find fails the test.
 */
const KNOWN = ['Open Badges 3.0: /credentialStatus must be object'];
function schemaErrors(credential: unknown): string[] {
  return SCHEMAS.flatMap((s) => (s.validate(credential) ? [] : (s.validate.errors ?? []).map((e) => `${s.name}: ${e.instancePath} ${e.message}`)));
}

/** Verify in a separate process, with what a stranger can fetch: the DID document and the status lists. */
async function verifyElsewhere(credential: { credentialStatus: { statusListCredential: string }[] }) {
  const didDocument = JSON.parse((await anon().get('/.well-known/did.json')).text);
  const statusLists: Record<string, unknown> = {};
  for (const s of credential.credentialStatus) {
    const res = await anon().get(new URL(s.statusListCredential).pathname);
    expect(res.status, res.text).toBe(200);
    statusLists[s.statusListCredential] = JSON.parse(res.text);
  }
  const file = path.join(tmp, `in-${Math.random()}.json`);
  fs.writeFileSync(file, JSON.stringify({ credential, didDocument, statusLists }));
  const out = execFileSync(process.execPath, [path.resolve('test/fixtures/credentials/verify.mjs'), file], { encoding: 'utf8' });
  return JSON.parse(out) as { verified: boolean; revoked: boolean | null; suspended: boolean | null; error: string | null };
}

describe('a contribution’s verifiable credential', () => {
  let id: number;
  let credential: Record<string, unknown> & { credentialStatus: { statusListCredential: string }[] };

  it('is an OpenBadgeCredential naming the achievement, the issuer and the evidence, and verifies elsewhere', async () => {
    id = await factCheck(ada);
    await integrate(t.runtime.deps);
    const res = await ada.client.get(`/api/v1/account/contributions/${id}/credential`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { format: 'ldp' } });
    credential = res.body.data.credential;
    expect(credential.type).toEqual(['VerifiableCredential', 'OpenBadgeCredential']);
    expect(credential['@context']).toEqual(['https://www.w3.org/ns/credentials/v2', 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json']);
    const did = (credential.issuer as { id: string }).id;
    expect(did).toMatch(/^did:web:/);
    const subject = credential.credentialSubject as { id: string; achievement: { name: string; description: string } };
    expect(subject.id).toBe(`${site()}/contributors/${ada.username}`);
    expect(subject.achievement.name).toMatch(/^Fact check of “Story \d+”$/);
    expect(subject.achievement.description).toContain(pub.domain);
    const evidence = credential.evidence as { id: string; narrative?: string }[];
    expect(evidence[0]!.id).toBe(`${site()}/proofs/${id}`);
    expect(evidence[1]!.narrative).toMatch(/^c2sp\.org\/tlog-proof@v1\n/);
    expect((credential.proof as { cryptosuite: string }).cryptosuite).toBe('eddsa-rdfc-2022');
    expect(JSON.stringify(credential)).not.toContain(ada.email);
    expect(schemaErrors(credential)).toEqual(KNOWN);
    const v = await verifyElsewhere(credential);
    expect(v).toEqual({ verified: true, revoked: false, suspended: false, error: null });
    // Asked again, the same credential: the same id and status index.
    const again = (await ada.client.get(`/api/v1/account/contributions/${id}/credential`)).body.data.credential;
    expect(again.id).toBe(credential.id);
    expect(again.credentialStatus).toEqual(credential.credentialStatus);
  });

  it('names the holder by a salted hash of their e-mail alone when they choose it, and comes as a VC-JWT', async () => {
    const res = await ada.client.get(`/api/v1/account/contributions/${id}/credential?holder=email_hash`);
    expect(res.status, res.text).toBe(200);
    const c = res.body.data.credential;
    expect(c.credentialSubject.id).toBeUndefined();
    expect(c.credentialSubject.identifier[0]).toMatchObject({ type: 'IdentityObject', identityType: 'emailAddress', hashed: true });
    expect(res.text).not.toContain(ada.email);
    expect(schemaErrors(c)).toEqual(KNOWN);
    expect((await verifyElsewhere(c)).verified).toBe(true);
    const jwt = await ada.client.get(`/api/v1/account/contributions/${id}/credential?format=jwt`);
    expect(jwt.status, jwt.text).toBe(200);
    expect(jwt.body.data.format).toBe('jwt');
    expect(decodeProtectedHeader(jwt.body.data.credential)).toMatchObject({ alg: 'EdDSA', typ: 'vc+jwt' });
    expect(decodeJwt(jwt.body.data.credential)).toMatchObject({ type: ['VerifiableCredential', 'OpenBadgeCredential'] });
    const { iss: _iss, iat: _iat, ...claims } = decodeJwt(jwt.body.data.credential);
    expect(schemaErrors(claims)).toEqual(KNOWN);
  });

  it('fails on its status within a second of the work being withdrawn', async () => {
    expect((await ada.client.post(`/api/v1/account/contributions/${id}/withdraw`)).status).toBe(200);
    // The follower's second: a status list cached before the withdrawal is not served after it.
    await new Promise((r) => setTimeout(r, 1000));
    const v = await verifyElsewhere(credential);
    expect(v.revoked).toBe(true);
    expect((await ada.client.get(`/api/v1/account/contributions/${id}/credential`)).status).toBe(404);
  });

  it('answers 404 to no credential, a publisher key, someone else, and a revoked key', async () => {
    const other = await factCheck(ada);
    expect((await anon().get(`/api/v1/account/contributions/${other}/credential`)).status).toBe(401);
    expect((await pub.api.get(`/api/v1/account/contributions/${other}/credential`)).status).toBe(403);
    const bob = await signup(t);
    expect((await bob.client.get(`/api/v1/account/contributions/${other}/credential`)).status).toBe(404);
    const made = await ada.client.post('/api/v1/account/api-keys', { name: 'gone', publisher: null });
    expect((await ada.client.req('DELETE', `/api/v1/account/api-keys/${made.body.data.id}`)).status).toBeLessThan(300);
    expect((await new Client(t.baseUrl).as(made.body.data.key).get(`/api/v1/account/contributions/${other}/credential`)).status).toBe(401);
  });

  it('is revoked, every one of the person’s, when they erase their account', async () => {
    const cleo = await signup(t);
    const ids = [await factCheck(cleo), await factCheck(cleo)];
    const creds = [];
    for (const i of ids) creds.push((await cleo.client.get(`/api/v1/account/contributions/${i}/credential`)).body.data.credential);
    for (const c of creds) expect((await verifyElsewhere(c)).revoked).toBe(false);
    const erased = await cleo.client.req('DELETE', '/api/v1/account', { body: { password: cleo.password } });
    expect(erased.status, erased.text).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    for (const c of creds) expect((await verifyElsewhere(c)).revoked).toBe(true);
    const rows = await t.runtime.deps.db.selectFrom('issued_credentials').selectAll().execute();
    expect(rows.every((r) => r.contribution_id !== ids[0] && r.contribution_id !== ids[1])).toBe(true);
  });

  it('is suspended within a second of its page’s retraction notice, and the suspension lifts with a reinstatement', async () => {
    const dee = await signup(t);
    const cid = await factCheck(dee);
    const c = (await dee.client.get(`/api/v1/account/contributions/${cid}/credential`)).body.data.credential;
    expect(await verifyElsewhere(c)).toMatchObject({ verified: true, revoked: false, suspended: false });
    const { page_id } = await t.runtime.deps.db.selectFrom('contributions').select('page_id').where('id', '=', cid).executeTakeFirstOrThrow();
    const retracted = await pub.api.post(`/api/v1/pages/${page_id}/notices`, { type: 'retraction', date: '2026-03-01', reason: 'The figures were wrong.' });
    expect(retracted.status, retracted.text).toBe(201);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await verifyElsewhere(c)).toMatchObject({ revoked: false, suspended: true });
    const reinstated = await pub.api.post(`/api/v1/pages/${page_id}/notices`, { type: 'reinstatement', date: '2026-03-02', reason: 'The figures were checked again and stand.' });
    expect(reinstated.status, reinstated.text).toBe(201);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await verifyElsewhere(c)).toMatchObject({ verified: true, revoked: false, suspended: false });
  });

  it('is revoked within a second of its contribution being removed after a report', async () => {
    const eve = await signup(t);
    const cid = await factCheck(eve);
    const c = (await eve.client.get(`/api/v1/account/contributions/${cid}/credential`)).body.data.credential;
    expect(await verifyElsewhere(c)).toMatchObject({ verified: true, revoked: false });
    const ops = await createAdmin(t.runtime.deps, { email: `ops-${cid}@vc.test`, password: 'a very long password', username: `vc-ops-${cid}`, name: 'Ops' });
    const report = await moderation.submitReport(t.runtime.deps, { item: { kind: 'contribution', id: cid, field: null }, category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH', explanation: 'It accuses a named person of a crime.', good_faith: true, locale: 'en' }, null);
    await moderation.decideReport(t.runtime.deps, ops.user_id, report.id, { type: 'remove_item', ground: 'incompatible', terms_clause: 't5', facts: 'The fact check accuses a named person of a crime.' });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await verifyElsewhere(c)).toMatchObject({ revoked: true });
  });
});

// `credence credential:verify FILE`, run as a real process (as test/cli.test.ts runs the command) against the
// running service: what it says in words, and its exit code.
describe('credence credential:verify', () => {
  const run = promisify(execFile);
  const verify = async (file: string) =>
    run(path.resolve('node_modules/.bin/tsx'), [path.resolve('src/main.ts'), 'credential:verify', file, '--url', t.baseUrl], { timeout: 60_000 }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );
  const save = (name: string, body: string) => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, body);
    return file;
  };

  it('verifies a credential and its VC-JWT, says what it checked, and fails a tampered one and a withdrawn one', async () => {
    const fay = await signup(t);
    const cid = await factCheck(fay);
    await integrate(t.runtime.deps);
    const c = (await fay.client.get(`/api/v1/account/contributions/${cid}/credential`)).body.data.credential;
    const jwt = (await fay.client.get(`/api/v1/account/contributions/${cid}/credential?format=jwt`)).body.data.credential as string;
    const good = await verify(save('good.json', JSON.stringify(c)));
    expect(good.code, good.out).toBe(0);
    expect(good.out).toContain('proof: good (eddsa-rdfc-2022)');
    expect(good.out).toContain('revocation: not set');
    expect(good.out).toContain('suspension: not set');
    expect(good.out).toMatch(/log: entry \d+ is in .* checkpoint of \d+ entries/);
    expect(good.out).toMatch(/published checkpoint \(\d+ entries\) extends it/);
    expect(good.out).toContain('verified: the proof, the status and the log inclusion all hold');
    expect(good.out).not.toContain('NOT verified');
    const asJwt = await verify(save('good.jwt', jwt));
    expect(asJwt.code, asJwt.out).toBe(0);
    expect(asJwt.out).toContain('signature: good');

    const tampered = await verify(save('tampered.json', JSON.stringify({ ...c, name: 'Review of something else' })));
    expect(tampered.code, tampered.out).toBe(1);
    expect(tampered.out).toContain('FAILED: the proof does not verify');
    expect(tampered.out).toContain('NOT verified');

    expect((await fay.client.post(`/api/v1/account/contributions/${cid}/withdraw`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    const withdrawn = await verify(save('withdrawn.json', JSON.stringify(c)));
    expect(withdrawn.code, withdrawn.out).toBe(1);
    expect(withdrawn.out).toContain('the credential is REVOKED');
    expect(withdrawn.out).toContain('proof: good');

    const junk = await verify(save('junk.txt', 'not a credential'));
    expect(junk.code, junk.out).toBe(1);
    expect(junk.out).toContain('neither a credential (JSON) nor a VC-JWT');
    expect(junk.out).toContain('could not check it');
    expect(junk.out).not.toContain('NOT verified');
  }, 120_000);
});
