// The proof page's browser check against a witnessed log: it reads the entry from its bundle and the
// proof from hash tiles, checks the witnesses' cosignatures against the served tlog-policy and names who vouched,
// refuses a checkpoint short of the quorum, offers the checked proof as a C2SP tlog-proof download that
// `log:verify --proof` accepts offline, and reports a fork: a checkpoint the log's key signed over another tree of a
// size this browser already saw. The witness is the independent one written from the specs (test/transparency).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { witnessSubmitter } from '../../src/jobs/witness-submit.js';
import { VerifyFailure, verifyLog } from '../../src/audit/log-verify.js';
import { confirmClaims, publisher, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { startTestWitness, type TestWitness } from '../transparency/c2sp-witness.js';
import { cspViolations, hasChromium, launch } from './chromium.js';

let t: TestApp;
let u: TestApp;
let w: TestWitness;
let browser: Browser;
const seed = randomBytes(32);
const logKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-proof-'));

async function proofPageOf(app: TestApp, slug: string): Promise<{ path: string; index: number }> {
  const pub = await publisher(app);
  const author = await signup(app);
  const url = `https://${pub.domain}/news/${slug}`;
  const reg = await pub.api.post('/api/v1/pages', { url, title: 'Witnessed', authors: [author.username] });
  expect(reg.status, reg.text).toBe(201);
  await confirmClaims(author);
  await integrate(app.runtime.deps);
  const record = await pub.api.get(`/v1/pages/record?url=${encodeURIComponent(url)}`);
  const c = record.body.contributions[0] as { id: string; log: { index: number } };
  return { path: `/proofs/${c.id.replace('ctb_', '')}`, index: c.log.index };
}

beforeAll(async () => {
  if (!hasChromium) return;
  w = await startTestWitness('witness-one.test/w');
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'], logWitnesses: [{ name: 'one', vkey: w.vkey, url: w.url }], logWitnessQuorum: 'any' });
  w.trust((await (await fetch(`${t.baseUrl}/v1/log/key`)).text()).trim());
  // A second log without witnesses, whose key the test holds, to sign a fork with.
  u = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'], logSigningKey: seed.toString('base64') });
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await u?.close();
  await w?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasChromium)('the proof page’s check of a witnessed log', () => {
  it('refuses a checkpoint short of the quorum, then verifies once the witness cosigned, naming it, and offers the proof file', async () => {
    const { path: proofPath, index } = await proofPageOf(t, 'witnessed');
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(t.baseUrl + proofPath);
    const status = page.locator('[data-log-status]');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/^NOT verified/);
    expect(await status.textContent()).toContain('short of the witness policy’s quorum (no witness cosigned it)');

    await witnessSubmitter(t.runtime.deps).pass();
    await page.reload();
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/^Verified in your browser/);
    expect(await status.textContent()).toContain(`entry ${index}`);
    expect(await status.textContent()).toContain('cosigned by the witnesses one');

    // The download is the proof the page checked: a tlog-proof that log:verify checks offline.
    const link = page.locator('[data-log-download]');
    expect(await link.getAttribute('data-log-checked')).toBe('true');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const file = path.join(dir, 'entry.tlog-proof');
    await download.saveAs(file);
    const policy = path.join(dir, 'policy.txt');
    fs.writeFileSync(policy, await (await fetch(`${t.baseUrl}/v1/log/policy`)).text());
    const key = (await (await fetch(`${t.baseUrl}/v1/log/key`)).text()).trim();
    const lines: string[] = [];
    const noFetch = (() => {
      throw new Error('an offline check fetched');
    }) as unknown as typeof fetch;
    await verifyLog({ proofFile: file, key, policyFile: policy, out: (l) => lines.push(l), fetch: noFetch });
    expect(lines.join('\n')).toContain(`entry ${index} is in`);
    expect(lines.join('\n')).toContain('cosigned by one');
    // The server's own bundle route answers the same proof.
    const served = await (await fetch(`${t.baseUrl}/v1/log/proof/bundle?index=${index}`)).text();
    expect(served).toBe(fs.readFileSync(file, 'utf8'));
    // A tampered entry in the file is refused.
    const text = fs.readFileSync(file, 'utf8').split('\n');
    text[1] = `extra ${Buffer.from('{"forged":true}').toString('base64')}`;
    fs.writeFileSync(file, text.join('\n'));
    await expect(verifyLog({ proofFile: file, key, policyFile: policy, out: () => {}, fetch: noFetch })).rejects.toThrow(VerifyFailure);
    await context.close();
  });

  it('reports a fork: the log’s key signed another tree of a size this browser saw', async () => {
    const { path: proofPath } = await proofPageOf(u, 'forked');
    await integrate(u.runtime.deps);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(u.baseUrl + proofPath);
    const status = page.locator('[data-log-status]');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/^Verified in your browser/);
    // The same key signs another root for the same size; this browser is shown it next.
    const real = await (await fetch(`${u.baseUrl}/v1/log/checkpoint`)).text();
    const [origin, n] = real.split('\n');
    const text = `${origin}\n${n}\n${createHash('sha256').update('another tree').digest('base64')}\n`;
    const pub = Buffer.from(createPublicKey(logKey).export({ format: 'der', type: 'spki' })).subarray(12);
    const keyHash = createHash('sha256').update(`${origin}\n`).update(Buffer.from([1])).update(pub).digest().subarray(0, 4);
    const forked = `${text}\n\u2014 ${origin} ${Buffer.concat([keyHash, sign(null, Buffer.from(text), logKey)]).toString('base64')}\n`;
    await page.route('**/v1/log/checkpoint', (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: forked }));
    await page.reload();
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/^NOT verified/);
    expect(await status.textContent()).toContain('the log is FORKED');
    await context.close();
  });

  it('broke no Content-Security-Policy', () => {
    expect(cspViolations).toEqual([]);
  });
});
