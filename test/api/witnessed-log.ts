// A transparency log that the route table's world may witness: an app started with `witnessLogs: [witnessedLog.vkey]`
// cosigns its checkpoints, so `POST /v1/witness/add-checkpoint` has a valid call (its success path) for the suites
// that fuzz every operation. The log is made of fixed leaves, one per index, so whatever size the witness holds, the
// next checkpoint extends it with an honest consistency proof (test/transparency/rfc9162.ts, written from the RFC).
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { Client } from '../client.js';
import * as rfc from '../transparency/rfc9162.js';

const ORIGIN = 'fixture.test/log';
const seed = createHash('sha256').update('the route table’s witnessed log').digest();
const key = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
const pub = Buffer.from(createPublicKey(key).export({ format: 'der', type: 'spki' })).subarray(12);
const keyHash = createHash('sha256').update(`${ORIGIN}\n`).update(Buffer.from([1])).update(pub).digest().subarray(0, 4);
const leaves = (n: number) => Array.from({ length: n }, (_, i) => rfc.leaf(Buffer.from(`entry ${i}`)));

/** A checkpoint of the first `size` leaves, signed with the log's key (C2SP signed note). */
function checkpoint(size: number): string {
  const text = `${ORIGIN}\n${size}\n${rfc.mth(leaves(size)).toString('base64')}\n`;
  return `${text}\n\u2014 ${ORIGIN} ${Buffer.concat([keyHash, sign(null, Buffer.from(text), key)]).toString('base64')}\n`;
}

export const witnessedLog = {
  origin: ORIGIN,
  /** The log's verifier key, for the witnessing app's `witnessLogs`. */
  vkey: `${ORIGIN}+${keyHash.toString('hex')}+${Buffer.concat([Buffer.from([1]), pub]).toString('base64')}`,
  /**
   * A valid add-checkpoint body for the witness at `baseUrl`: from the size it holds now to one leaf more. A witness
   * that does not witness this log answers it 404.
   */
  async nextBody(baseUrl: string): Promise<string> {
    const info = await new Client(baseUrl).get('/v1/witness');
    const held = (info.body?.logs as { origin: string; tree_size: number }[] | undefined)?.find((l) => l.origin === ORIGIN)?.tree_size ?? 0;
    const proof = rfc.proof(held, leaves(held + 1));
    return `old ${held}\n${proof.map((h) => `${h.toString('base64')}\n`).join('')}\n${checkpoint(held + 1)}`;
  },
};
