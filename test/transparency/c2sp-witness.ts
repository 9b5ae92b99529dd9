// An independent witness for the tests, written from C2SP tlog-witness, tlog-cosignature and signed-note with
// Node's crypto and http only (and the tests' own RFC 9162 verifier), importing nothing from src/. It keeps the
// newest checkpoint it cosigned per origin and answers add-checkpoint as the spec says: 404 for an unknown origin,
// 403 for a missing or bad log signature, 409 (text/x.tlog.size) when `old` is not its size, 422 for a proof that
// does not verify (or the same size with another root: a fork), 200 with an Ed25519 cosignature/v1 line.
import http from 'node:http';
import { type KeyObject, createHash, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { checkConsistency } from './rfc9162.js';

const H = (...parts: Buffer[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
const SPKI = Buffer.from('302a300506032b6570032100', 'hex');

export interface TestWitness {
  name: string;
  /** The cosigner verifier key: name+hex(key ID)+base64(0x04 || public key). */
  vkey: string;
  url: string;
  /** Every request answered, as [status, origin size]. */
  answers: number[];
  latest: Map<string, { size: number; root: Buffer }>;
  down: boolean;
  /** Accept requests and never answer them. */
  hang: boolean;
  /** Witness this log from now on (its note verifier key). */
  trust(logVkey: string): void;
  close(): Promise<void>;
}

export async function startTestWitness(name: string): Promise<TestWitness> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pub = Buffer.from(publicKey.export({ format: 'der', type: 'spki' })).subarray(12);
  const keyId = H(Buffer.from(`${name}\n`), Buffer.from([0x04]), pub).subarray(0, 4);
  const vkey = `${name}+${keyId.toString('hex')}+${Buffer.concat([Buffer.from([0x04]), pub]).toString('base64')}`;
  // The logs it knows: origin → (key hash, public key), from their note verifier keys (type 0x01).
  const known = new Map<string, { hash: Buffer; key: KeyObject }>();
  const trust = (l: string) => {
    const [, origin, hash, b64] = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(l)!;
    const raw = Buffer.from(b64!, 'base64');
    known.set(origin!, { hash: Buffer.from(hash!, 'hex'), key: createPublicKey({ key: Buffer.concat([SPKI, raw.subarray(1)]), format: 'der', type: 'spki' }) });
  };
  const latest = new Map<string, { size: number; root: Buffer }>();
  const answers: number[] = [];
  const w = { down: false, hang: false };

  function handle(body: string): { status: number; type?: string; text: string } {
    const lines = body.split('\n');
    const old = /^old (0|[1-9][0-9]*)$/.exec(lines[0] ?? '');
    if (!old) return { status: 400, text: 'no old line\n' };
    let at = 1;
    const proof: Buffer[] = [];
    while (at < lines.length && lines[at] !== '') proof.push(Buffer.from(lines[at++]!, 'base64'));
    const note = lines.slice(at + 1).join('\n');
    const cut = note.indexOf('\n\n');
    if (cut < 0) return { status: 400, text: 'no checkpoint\n' };
    const text = note.slice(0, cut + 1);
    const [origin, sizeText, rootText] = text.split('\n');
    const log = known.get(origin!);
    if (!log) return { status: 404, text: 'unknown log\n' };
    let signed = false;
    for (const sl of note.slice(cut + 2).split('\n')) {
      const m = /^\u2014 (\S+) (\S+)$/.exec(sl);
      if (!m || m[1] !== origin) continue;
      const sig = Buffer.from(m[2]!, 'base64');
      if (sig.length !== 68 || !sig.subarray(0, 4).equals(log.hash)) continue;
      if (!verify(null, Buffer.from(text), log.key, sig.subarray(4))) return { status: 403, text: 'bad signature\n' };
      signed = true;
    }
    if (!signed) return { status: 403, text: 'not signed by the log\n' };
    const size = Number(sizeText);
    const root = Buffer.from(rootText!, 'base64');
    const oldSize = Number(old[1]);
    if (oldSize > size) return { status: 400, text: 'old is past the checkpoint\n' };
    const mine = latest.get(origin!) ?? { size: 0, root: H() };
    if (oldSize !== mine.size) return { status: 409, type: 'text/x.tlog.size', text: `${mine.size}\n` };
    if (size === 0 && !root.equals(H())) return { status: 422, text: 'the empty tree has another root\n' };
    if (oldSize === 0 && proof.length > 0) return { status: 422, text: 'a proof from the empty tree\n' };
    if (oldSize === size) {
      if (!root.equals(mine.root)) return { status: 422, text: 'another tree of the same size: a fork\n' };
    } else if (oldSize > 0 && !checkConsistency(oldSize, size, proof, mine.root, root)) {
      return { status: 422, text: 'the consistency proof does not verify\n' };
    }
    latest.set(origin!, { size, root });
    const ts = Math.floor(Date.now() / 1000);
    const tsBytes = Buffer.alloc(8);
    tsBytes.writeBigUInt64BE(BigInt(ts));
    const sig = sign(null, Buffer.from(`cosignature/v1\ntime ${ts}\n${text}`), privateKey);
    return { status: 200, text: `\u2014 ${name} ${Buffer.concat([keyId, tsBytes, sig]).toString('base64')}\n` };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (w.down) {
        res.destroy();
        return;
      }
      if (w.hang) return;
      if (req.method !== 'POST' || !req.url?.endsWith('/add-checkpoint')) {
        res.writeHead(404).end();
        return;
      }
      const r = handle(Buffer.concat(chunks).toString('utf8'));
      answers.push(r.status);
      res.writeHead(r.status, { 'content-type': r.type ?? 'text/plain' }).end(r.text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    name,
    vkey,
    url: `http://127.0.0.1:${port}/witness`,
    answers,
    latest,
    trust,
    get down() {
      return w.down;
    },
    set down(v: boolean) {
      w.down = v;
    },
    get hang() {
      return w.hang;
    },
    set hang(v: boolean) {
      w.hang = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
