// `credence log:verify`: an auditor's check of a Credence transparency log from its public HTTP API alone.
//
// - Whole log: fetch the signed checkpoint and every entry, rebuild the Merkle root from the entries' bytes
//   (RFC 9162), and compare it with the root the checkpoint signs.
// - From a saved checkpoint (--checkpoint FILE): check that the log of today extends the one you saw, with a
//   consistency proof between the two signed roots.
// The key is the one the log publishes, unless --key pins one (an auditor should pin the key they trust).
import fs from 'node:fs/promises';
import { appendLeaves, leafHash, rootOf, verifyConsistency } from '../domain/transparency/merkle.js';
import { type Checkpoint, NoteError, openNote, parseCheckpoint } from '../domain/transparency/note.js';

export interface VerifyOptions {
  url: string;
  checkpointFile?: string | undefined;
  saveFile?: string | undefined;
  key?: string | undefined;
  out?: (line: string) => void;
  fetch?: typeof fetch;
}

export class VerifyFailure extends Error {}

const PAGE = 1000;

export async function verifyLog(opts: VerifyOptions): Promise<{ checkpoint: Checkpoint; note: string }> {
  const out = opts.out ?? ((l: string) => console.log(l));
  const base = opts.url.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? fetch;

  async function get(path: string, accept: string): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      const res = await doFetch(`${base}${path}`, { headers: { accept } });
      if (res.status === 429 && attempt < 20) {
        // Public routes are rate limited: wait as told, then go on.
        const wait = Math.max(1, Number(res.headers.get('retry-after') ?? '1'));
        await new Promise((r) => setTimeout(r, wait * 1000));
        continue;
      }
      const text = await res.text();
      if (!res.ok) throw new VerifyFailure(`GET ${path} answered ${res.status}: ${text.slice(0, 200)}`);
      return text;
    }
  }
  const getJson = async <T>(path: string) => JSON.parse(await get(path, 'application/json')) as T;

  const published = (await get('/v1/log/key', 'text/plain')).trim();
  const key = opts.key?.trim() ?? published;
  if (opts.key && key !== published) out(`note: the log now publishes another key (${published}); checking with the pinned one`);
  const note = await get('/v1/log/checkpoint', 'text/plain');
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpoint(openNote(note, key));
  } catch (err) {
    throw new VerifyFailure(`the checkpoint does not verify with key ${key}: ${(err as Error).message}`);
  }
  out(`checkpoint: ${checkpoint.origin}, ${checkpoint.size} entries, root ${checkpoint.root.toString('base64')}, signature good (${key})`);

  if (opts.checkpointFile) {
    const savedNote = await fs.readFile(opts.checkpointFile, 'utf8');
    // Another origin is another log: a checkpoint saved before a log restarted (as Credence's did when its entries
    // moved to commitments, issue 32) cannot be checked against today's, and that is the answer to give.
    const savedOrigin = savedNote.split('\n', 1)[0];
    if (savedOrigin !== checkpoint.origin) {
      throw new VerifyFailure(`the saved checkpoint is of another log (${savedOrigin}); this log is ${checkpoint.origin}`);
    }
    let saved: Checkpoint | undefined;
    // A saved checkpoint may predate a key rotation: try the pinned or published key, then the log's earlier keys.
    const keys = [key, ...(await getJson<{ history: { verifier_key: string }[] }>('/v1/log/key')).history.map((h) => h.verifier_key)];
    for (const k of keys) {
      try {
        saved = parseCheckpoint(openNote(savedNote, k));
        break;
      } catch (err) {
        if (!(err instanceof NoteError)) throw err;
      }
    }
    if (!saved) throw new VerifyFailure(`the saved checkpoint ${opts.checkpointFile} is not signed by a key of this log`);
    if (saved.origin !== checkpoint.origin) throw new VerifyFailure(`the saved checkpoint is of another log (${saved.origin})`);
    if (saved.size > checkpoint.size) throw new VerifyFailure(`the log shrank: ${saved.size} entries then, ${checkpoint.size} now`);
    const proof = await getJson<{ hashes: string[] }>(`/v1/log/proof/consistency?first=${saved.size}&second=${checkpoint.size}`);
    const hashes = proof.hashes.map((h) => Buffer.from(h, 'base64'));
    if (!verifyConsistency(saved.size, checkpoint.size, hashes, saved.root, checkpoint.root)) {
      throw new VerifyFailure(`the log of ${checkpoint.size} entries is NOT an extension of the saved one of ${saved.size}: entries were changed or removed`);
    }
    out(`consistent: the saved checkpoint of ${saved.size} entries is a prefix of today's ${checkpoint.size} (${hashes.length} proof hashes)`);
  } else {
    let size = 0;
    let frontier: Buffer[] = [];
    while (size < checkpoint.size) {
      const page = await getJson<{ data: { index: number; body: string }[] }>(`/v1/log/entries?start=${size}&limit=${PAGE}`);
      if (page.data.length === 0) throw new VerifyFailure(`the log answered no entry at index ${size} of ${checkpoint.size}`);
      const leaves: Buffer[] = [];
      for (const e of page.data) {
        if (e.index !== size + leaves.length) throw new VerifyFailure(`entry ${size + leaves.length} is missing (the log answered ${e.index} in its place)`);
        leaves.push(leafHash(Buffer.from(e.body, 'utf8')));
      }
      const grown = appendLeaves(size, frontier, leaves);
      size = grown.size;
      frontier = grown.frontier;
    }
    const root = rootOf(frontier);
    if (!root.equals(checkpoint.root)) {
      throw new VerifyFailure(`the entries do NOT match the signed root: rebuilt ${root.toString('base64')}, signed ${checkpoint.root.toString('base64')}`);
    }
    out(`whole log: ${size} entries rebuild the signed root`);
  }
  if (opts.saveFile) {
    await fs.writeFile(opts.saveFile, note);
    out(`saved the checkpoint to ${opts.saveFile}`);
  }
  return { checkpoint, note };
}
