// Credence as a witness: one Credence (the log) lists another (the witness) in LOG_WITNESSES; the other
// lists the first's key in WITNESS_LOGS. The witness cosigns each checkpoint that extends the one it holds (checked
// here with the tests' own tlog-cosignature code), refuses one that does not (a fork, a bad proof), answers 409 with
// its size, 404 for a log it does not witness and 403 for a signature that is not the log's.
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { witnessSubmitter } from '../../src/jobs/witness-submit.js';
import { startTestApp, type TestApp } from '../harness.js';
import { addChanges } from './changes.js';
import * as rfc from './rfc9162.js';

let log: TestApp;
let witness: TestApp;
let witnessKey: string;
const seed = randomBytes(32);
const logKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
const pub = Buffer.from(createPublicKey(logKey).export({ format: 'der', type: 'spki' })).subarray(12);
const ORIGIN = 'log.test/log';
const H = (...parts: (Buffer | string)[]) => parts.reduce((h: ReturnType<typeof createHash>, p) => h.update(p), createHash('sha256')).digest();
const logVkey = `${ORIGIN}+${H(`${ORIGIN}\n`, Buffer.from([1]), pub).subarray(0, 4).toString('hex')}+${Buffer.concat([Buffer.from([1]), pub]).toString('base64')}`;

/** A checkpoint signed with the log's key, as the test wants it. */
function signed(size: number, root: Buffer): string {
  const text = `${ORIGIN}\n${size}\n${root.toString('base64')}\n`;
  return `${text}\n\u2014 ${ORIGIN} ${Buffer.concat([H(`${ORIGIN}\n`, Buffer.from([1]), pub).subarray(0, 4), sign(null, Buffer.from(text), logKey)]).toString('base64')}\n`;
}

function cosignedBy(note: string, vkey: string): boolean {
  const [, name, , b64] = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(vkey)!;
  const raw = Buffer.from(b64!, 'base64');
  expect(raw[0]).toBe(4);
  const spki = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw.subarray(1)]), format: 'der', type: 'spki' });
  const cut = note.indexOf('\n\n');
  const text = note.slice(0, cut + 1);
  return note
    .slice(cut + 2)
    .split('\n')
    .some((l) => {
      if (!l.startsWith(`\u2014 ${name} `)) return false;
      const sig = Buffer.from(l.split(' ')[2]!, 'base64');
      return sig.length === 76 && verify(null, Buffer.from(`cosignature/v1\ntime ${sig.readBigUInt64BE(4)}\n${text}`), spki, sig.subarray(12));
    });
}

const post = (body: string) => fetch(`${witness.baseUrl}/v1/witness/add-checkpoint`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });

beforeAll(async () => {
  witness = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'], siteUrl: 'https://witness.test', witnessLogs: [logVkey] });
  const info = (await (await fetch(`${witness.baseUrl}/v1/witness`)).json()) as { name: string; verifier_key: string; logs: { origin: string; tree_size: number }[] };
  expect(info.name).toBe('witness.test/witness');
  expect(info.logs).toEqual([expect.objectContaining({ origin: ORIGIN, tree_size: 0 })]);
  witnessKey = info.verifier_key;
  log = await startTestApp({
    rateLimitAllowlist: ['127.0.0.1'],
    logOrigin: ORIGIN,
    logSigningKey: seed.toString('base64'),
    logWitnesses: [{ name: 'peer', vkey: witnessKey, url: `${witness.baseUrl}/v1/witness` }],
    logWitnessQuorum: 'any',
  });
});
afterAll(async () => {
  await log?.close();
  await witness?.close();
});

describe('credence as a witness', () => {
  let leaves: Buffer[] = [];

  it('cosigns each checkpoint that extends the one it holds', async () => {
    const submitter = witnessSubmitter(log.runtime.deps, { log: { info: () => {}, error: () => {} } });
    for (const n of [4, 9]) {
      await addChanges(log.runtime.deps.db, n);
      await integrate(log.runtime.deps);
      await submitter.pass();
      const note = await (await fetch(`${log.baseUrl}/v1/log/checkpoint`)).text();
      expect(cosignedBy(note, witnessKey)).toBe(true);
    }
    const info = (await (await fetch(`${witness.baseUrl}/v1/witness`)).json()) as { logs: { tree_size: number }[] };
    expect(info.logs[0]!.tree_size).toBe(13);
    const entries = (await (await fetch(`${log.baseUrl}/v1/log/entries?start=0&limit=100`)).json()) as { data: { body: string }[] };
    leaves = entries.data.map((e) => rfc.leaf(Buffer.from(e.body)));
  });

  it('refuses a checkpoint that does not extend the one it holds, and one of a forked tree', async () => {
    // Same size, another root: a fork.
    const fork = await post(`old 13\n\n${signed(13, H('another'))}`);
    expect(fork.status).toBe(422);
    expect(await fork.text()).toContain('forked');
    // A bigger tree that rewrote entry 3, with a proof built honestly over the rewritten leaves.
    const rewritten = [...leaves.slice(0, 3), rfc.leaf(Buffer.from('rewritten')), ...leaves.slice(4), rfc.leaf(Buffer.from('new'))];
    const bad = await post(`old 13\n${rfc.proof(13, rewritten).map((h) => `${h.toString('base64')}\n`).join('')}\n${signed(14, rfc.mth(rewritten))}`);
    expect(bad.status).toBe(422);
    // The honest extension is cosigned.
    const grown = [...leaves, rfc.leaf(Buffer.from('new'))];
    const good = await post(`old 13\n${rfc.proof(13, grown).map((h) => `${h.toString('base64')}\n`).join('')}\n${signed(14, rfc.mth(grown))}`);
    expect(good.status).toBe(200);
    expect(cosignedBy(`${signed(14, rfc.mth(grown))}${await good.text()}`, witnessKey)).toBe(true);
  });

  it('answers 409 with its size, 404 for another log, 403 for another key, 400 for nonsense', async () => {
    const stale = await post(`old 13\n\n${signed(13, rfc.mth(leaves))}`);
    expect(stale.status).toBe(409);
    expect(stale.headers.get('content-type')).toContain('text/x.tlog.size');
    expect(await stale.text()).toBe('14\n');
    const other = await post(`old 0\n\nother.test/log\n1\n${H('x').toString('base64')}\n\n\u2014 other.test/log AAAA\n`);
    expect(other.status).toBe(404);
    const { privateKey } = await import('node:crypto').then((c) => c.generateKeyPairSync('ed25519'));
    const text = `${ORIGIN}\n15\n${H('y').toString('base64')}\n`;
    const keyHash = H(`${ORIGIN}\n`, Buffer.from([1]), pub).subarray(0, 4);
    const forged = await post(`old 14\n\n${text}\n\u2014 ${ORIGIN} ${Buffer.concat([keyHash, sign(null, Buffer.from(text), privateKey)]).toString('base64')}\n`);
    expect(forged.status).toBe(403);
    expect((await post('hello')).status).toBe(400);
    expect((await post(`old 20\n\n${signed(14, H('z'))}`)).status).toBe(400);
  });
});
