// C2SP tlog-proof (https://c2sp.org/tlog-proof): an offline-checkable proof that an entry is in the log. The
// `extra` line carries the entry's bytes (base64), so the file alone holds everything a verifier hashes; it is not
// trusted as such: the verifier hashes it and walks the inclusion proof to the checkpoint's signed root.
//
//   c2sp.org/tlog-proof@v1
//   extra <base64 entry bytes>
//   index <i>
//   <base64 proof hash>…
//   (blank line)
//   <checkpoint, with its signature and cosignature lines>
export const PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

export interface ProofBundle {
  entry: Buffer;
  index: number;
  proof: Buffer[];
  checkpoint: string;
}

export const proofBundleText = (b: ProofBundle): string =>
  `${PROOF_HEADER}\nextra ${b.entry.toString('base64')}\nindex ${b.index}\n${b.proof.map((h) => `${h.toString('base64')}\n`).join('')}\n${b.checkpoint}`;

const B64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function parseProofBundle(text: string): ProofBundle {
  const lines = text.split('\n');
  if (lines[0] !== PROOF_HEADER) throw new Error(`the first line is not ${PROOF_HEADER}`);
  let at = 1;
  const extra = /^extra (\S+)$/.exec(lines[at] ?? '');
  if (!extra || !B64.test(extra[1]!)) throw new Error('no extra line with the entry’s bytes');
  at++;
  const index = /^index (0|[1-9][0-9]{0,15})$/.exec(lines[at] ?? '');
  if (!index) throw new Error('no index line');
  at++;
  const proof: Buffer[] = [];
  while (at < lines.length && lines[at] !== '') {
    const h = Buffer.from(lines[at]!, 'base64');
    if (!B64.test(lines[at]!) || h.length !== 32) throw new Error(`line ${at + 1} is not a base64 SHA-256 hash`);
    proof.push(h);
    at++;
  }
  if (at >= lines.length) throw new Error('no checkpoint after the proof');
  return { entry: Buffer.from(extra[1]!, 'base64'), index: Number(index[1]), proof, checkpoint: lines.slice(at + 1).join('\n') };
}
