// Witnesses: the sequencer's submitter sends each new checkpoint with its consistency proof to every
// witness (C2SP tlog-witness add-checkpoint), stores the Ed25519 cosignature/v1 lines, and GET /v1/log/checkpoint
// carries them. The witnesses here are independent ones written from the specs (./c2sp-witness.ts). A witness that
// is down delays nothing; a 409 resynchronises; `log:verify` enforces the served tlog-policy's quorum, names who
// vouched, and reports a fork (the same key signing two trees of one size), which the witness also refuses.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, createPrivateKey, randomBytes, sign, verify, createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { witnessSubmitter } from '../../src/jobs/witness-submit.js';
import { startLogSequencer } from '../../src/jobs/log-sequencer.js';
import { VerifyFailure, verifyLog } from '../../src/audit/log-verify.js';
import { startTestApp, type TestApp } from '../harness.js';
import { addChanges } from './changes.js';
import { startTestWitness, type TestWitness } from './c2sp-witness.js';

let t: TestApp;
let w1: TestWitness;
let w2: TestWitness;
let submitter: ReturnType<typeof witnessSubmitter>;
const seed = randomBytes(32);
const logKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-witness-'));

beforeAll(async () => {
  w1 = await startTestWitness('witness-one.test/w');
  w2 = await startTestWitness('witness-two.test/w');
  t = await startTestApp({
    rateLimitAllowlist: ['127.0.0.1'],
    logSigningKey: seed.toString('base64'),
    logWitnesses: [
      { name: 'one', vkey: w1.vkey, url: w1.url },
      { name: 'two', vkey: w2.vkey, url: w2.url },
    ],
    logWitnessQuorum: 'all',
  });
  const key = (await (await fetch(`${t.baseUrl}/v1/log/key`)).text()).trim();
  w1.trust(key);
  w2.trust(key);
  submitter = witnessSubmitter(t.runtime.deps, { log: { info: () => {}, error: () => {} } });
});
afterAll(async () => {
  await t?.close();
  await w1?.close();
  await w2?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const H = (...parts: (Buffer | string)[]) => parts.reduce((h: ReturnType<typeof createHash>, p) => h.update(p), createHash('sha256')).digest();

/** Checks a cosignature line as tlog-cosignature says, with the test's own code. */
function cosignedBy(note: string, w: TestWitness): boolean {
  const [, name, , b64] = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(w.vkey)!;
  const pub = Buffer.from(b64!, 'base64').subarray(1);
  const spki = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pub]), format: 'der', type: 'spki' });
  const cut = note.indexOf('\n\n');
  const text = note.slice(0, cut + 1);
  return note
    .slice(cut + 2)
    .split('\n')
    .some((l) => {
      if (!l.startsWith(`\u2014 ${name} `)) return false;
      const sig = Buffer.from(l.split(' ')[2]!, 'base64');
      if (sig.length !== 76) return false;
      const ts = sig.readBigUInt64BE(4);
      return verify(null, Buffer.from(`cosignature/v1\ntime ${ts}\n${text}`), spki, sig.subarray(12));
    });
}

const checkpoint = async () => (await fetch(`${t.baseUrl}/v1/log/checkpoint`)).text();
const size = (note: string) => Number(note.split('\n')[1]);

async function verifyQuietly(opts: Partial<Parameters<typeof verifyLog>[0]> = {}) {
  const lines: string[] = [];
  try {
    await verifyLog({ url: t.baseUrl, out: (l) => lines.push(l), ...opts });
    return { ok: true, out: lines.join('\n') };
  } catch (err) {
    if (!(err instanceof VerifyFailure)) throw err;
    return { ok: false, out: `${lines.join('\n')}\nFAILED: ${err.message}` };
  }
}

describe('witnesses', () => {
  it('publishes a tlog-policy naming the witnesses and the quorum', async () => {
    const res = await fetch(`${t.baseUrl}/v1/log/policy`);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain(`witness one ${w1.vkey} ${w1.url}`);
    expect(text).toContain(`witness two ${w2.vkey} ${w2.url}`);
    expect(text).toContain('group witnesses 2 one two');
    expect(text).toMatch(/\nquorum witnesses\n$/);
  });

  it('submits each checkpoint to every witness; the checkpoint carries their cosignatures; log:verify names them', async () => {
    await addChanges(t.runtime.deps.db, 10);
    await integrate(t.runtime.deps);
    // Before any witness answered, the checkpoint is short of the quorum and the verifier says so.
    const bare = await verifyQuietly();
    expect(bare.ok).toBe(false);
    expect(bare.out).toContain('short of the policy\'s quorum');
    await submitter.pass();
    expect(w1.answers).toEqual([200]);
    expect(w2.answers).toEqual([200]);
    const note = await checkpoint();
    expect(size(note)).toBe(10);
    expect(cosignedBy(note, w1)).toBe(true);
    expect(cosignedBy(note, w2)).toBe(true);
    const v = await verifyQuietly({ saveFile: path.join(dir, 'saved.txt') });
    expect(v.out).toContain('cosigned by one, two');
    expect(v.ok).toBe(true);
    // Nothing new: no witness is asked again.
    await submitter.pass();
    expect(w1.answers).toEqual([200]);
  });

  it('a witness that is down delays nothing: the log grows, the other witness cosigns, and it catches up later', async () => {
    w2.down = true;
    await addChanges(t.runtime.deps.db, 5);
    const r = await integrate(t.runtime.deps);
    expect(r.size).toBe(15);
    await submitter.pass();
    expect(w1.answers.at(-1)).toBe(200);
    // The quorum (both) holds for 10 only: readers get that checkpoint, with both cosignatures, until two answers.
    expect(size(await checkpoint())).toBe(10);
    const proof = await fetch(`${t.baseUrl}/v1/log/proof/inclusion?index=12`);
    expect(proof.status).toBe(200);
    w2.down = false;
    submitter.reset();
    await submitter.pass();
    expect(w2.answers.at(-1)).toBe(200);
    const note = await checkpoint();
    expect(size(note)).toBe(15);
    expect(cosignedBy(note, w1) && cosignedBy(note, w2)).toBe(true);
    // From the saved checkpoint: consistency from tiles, still witnessed.
    const v = await verifyQuietly({ checkpointFile: path.join(dir, 'saved.txt') });
    expect(v.out).toContain('consistent: the saved checkpoint of 10 entries is a prefix of today\'s 15');
    expect(v.ok).toBe(true);
  });

  it('resynchronises when a witness answers 409 with the size it holds', async () => {
    await t.runtime.deps.db.deleteFrom('log_witness_state').execute();
    await addChanges(t.runtime.deps.db, 3);
    await integrate(t.runtime.deps);
    await submitter.pass();
    // old 0 → 409 "15", then old 15 with a proof → 200.
    expect(w1.answers.slice(-2)).toEqual([409, 200]);
    expect(w2.answers.slice(-2)).toEqual([409, 200]);
    expect(size(await checkpoint())).toBe(18);
  });

  it('verifiers refuse a checkpoint short of the policy’s quorum', async () => {
    const w3 = await startTestWitness('witness-three.test/w');
    const policy = path.join(dir, 'strict.policy');
    fs.writeFileSync(policy, `witness one ${w1.vkey}\nwitness two ${w2.vkey}\nwitness three ${w3.vkey}\ngroup all-three all one two three\nquorum all-three\n`);
    const v = await verifyQuietly({ policyFile: policy });
    expect(v.ok).toBe(false);
    expect(v.out).toContain('short of the policy\'s quorum (all-three): only one, two cosigned it');
    await w3.close();
  });

  it('a fork (the same key signs another tree of the same size) is refused by the witness and reported by log:verify', async () => {
    const real = await checkpoint();
    const [origin, n] = real.split('\n');
    const text = `${origin}\n${n}\n${H('another tree').toString('base64')}\n`;
    const keyHash = H(`${origin}\n`, Buffer.from([1]), Buffer.from(createPublicKey(logKey).export({ format: 'der', type: 'spki' })).subarray(12)).subarray(0, 4);
    const forked = `${text}\n\u2014 ${origin} ${Buffer.concat([keyHash, sign(null, Buffer.from(text), logKey)]).toString('base64')}\n`;
    // The witness holds size n: the same size with another root is refused.
    const res = await fetch(`${w1.url}/add-checkpoint`, { method: 'POST', body: `old ${n}\n\n${forked}` });
    expect(res.status).toBe(422);
    // A reader shown the fork: it carries no cosignature, so it is short of the quorum.
    const forkedFetch: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/v1/log/checkpoint')) return new Response(forked, { headers: { 'content-type': 'text/plain' } });
      return fetch(input, init);
    };
    const shown = await verifyQuietly({ fetch: forkedFetch });
    expect(shown.ok).toBe(false);
    expect(shown.out).toContain('short of the policy\'s quorum');
    // A reader who saved the fork and now sees the real log: reported as a fork.
    fs.writeFileSync(path.join(dir, 'fork.txt'), forked);
    const later = await verifyQuietly({ checkpointFile: path.join(dir, 'fork.txt') });
    expect(later.ok).toBe(false);
    expect(later.out).toContain('the log is FORKED');
  });

  it('the sequencer `serve` runs submits by itself, and a witness that hangs delays neither the log nor the other', async () => {
    const seq = startLogSequencer(t.runtime.deps, { pollMs: 50, log: { info: () => {}, error: () => {} } });
    try {
      const before = size(await checkpoint());
      await addChanges(t.runtime.deps.db, 4);
      const until = async (ok: () => Promise<boolean> | boolean) => {
        const deadline = Date.now() + 5_000;
        while (!(await ok()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      };
      await until(async () => cosignedBy(await checkpoint(), w2) && size(await checkpoint()) === before + 4);
      const note = await checkpoint();
      expect(size(note)).toBe(before + 4);
      expect(cosignedBy(note, w1) && cosignedBy(note, w2)).toBe(true);
      // Now the second witness takes requests and never answers (its client waits out a 10-second timeout).
      w2.hang = true;
      const started = Date.now();
      await addChanges(t.runtime.deps.db, 3);
      await until(() => w1.latest.get('credence.test/log/v2')?.size === before + 7);
      expect(w1.latest.get('credence.test/log/v2')?.size).toBe(before + 7);
      expect(Date.now() - started).toBeLessThan(3_000);
      // The log grew and proves the new entries at once; readers keep the last checkpoint both witnesses cosigned.
      const proof = await fetch(`${t.baseUrl}/v1/log/proof/inclusion?index=${before + 6}`);
      expect(proof.status).toBe(200);
      expect(size(await checkpoint())).toBe(before + 4);
    } finally {
      await seq.stop();
      w2.hang = false;
    }
  });
});
