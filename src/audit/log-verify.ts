// `credence log:verify`: an auditor's check of a Credence transparency log from its public files alone: the signed
// checkpoint (with witnesses' cosignatures), the C2SP tlog-tiles hash tiles and entry bundles, the tlog-policy
// document, and the openings served beside entries. Proofs are computed from tiles, never taken from proof routes.
//
// - Whole log: every entry bundle is read, the Merkle root rebuilt from the entries' bytes (RFC 9162) and compared
//   with the signed one and with the tiles; every salted commitment is checked against its opening (an erased
//   opening is reported, not failed).
// - From a saved checkpoint (--checkpoint FILE): the log of today must extend the one you saw (a consistency proof
//   from tiles); the same size with another root is a fork, and is reported as one.
// - Either way the checkpoint must carry the cosignatures the policy's quorum asks for (--policy FILE pins the
//   policy; without it the log's own is used and printed), and the witnesses that vouched are named.
// - One proof (--proof FILE): a C2SP tlog-proof file checked offline (with --key and --policy, nothing fetched).
import fs from 'node:fs/promises';
import { appendLeaves, leafHash, rootOf, verifyConsistency, verifyInclusion } from '../domain/transparency/merkle.js';
import { type Checkpoint, NoteError, openNote, parseCheckpoint } from '../domain/transparency/note.js';
import { type Policy, parsePolicy, quorumMet, vouchers } from '../domain/transparency/cosignature.js';
import { type Opening, checkOpenings, withheldMarkersIn } from './openings.js';
import { TileReader } from './tile-reader.js';
import { parseProofBundle } from '../domain/transparency/proof-bundle.js';

export interface VerifyOptions {
  url?: string | undefined;
  checkpointFile?: string | undefined;
  saveFile?: string | undefined;
  key?: string | undefined;
  policyFile?: string | undefined;
  proofFile?: string | undefined;
  out?: (line: string) => void;
  fetch?: typeof fetch;
}

export class VerifyFailure extends Error {}

const PAGE = 1000;

/** Checks a checkpoint's cosignatures against a policy; answers the witnesses that vouched, or fails. */
export function enforceQuorum(policy: Policy, note: string): string[] {
  const vouched = vouchers(policy, note).map((v) => v.name);
  if (!quorumMet(policy, new Set(vouched))) {
    throw new VerifyFailure(
      `the checkpoint is short of the policy's quorum (${policy.quorum}): ${vouched.length === 0 ? 'no witness cosigned it' : `only ${vouched.join(', ')} cosigned it`}`,
    );
  }
  return vouched;
}

function openWith(note: string, key: string, what: string): Checkpoint {
  try {
    return parseCheckpoint(openNote(note, key));
  } catch (err) {
    throw new VerifyFailure(`${what} does not verify with key ${key}: ${(err as Error).message}`);
  }
}

function readPolicy(text: string, where: string): Policy {
  try {
    return parsePolicy(text);
  } catch (err) {
    throw new VerifyFailure(`the policy ${where} is malformed: ${(err as Error).message}`);
  }
}

export async function verifyLog(opts: VerifyOptions): Promise<{ checkpoint: Checkpoint; note: string; vouched: string[] }> {
  const out = opts.out ?? ((l: string) => console.log(l));
  const doFetch = opts.fetch ?? fetch;

  if (opts.proofFile) return verifyProof(opts, out);
  const base = (opts.url ?? '').replace(/\/+$/, '');

  async function getRaw(path: string, accept: string): Promise<Buffer> {
    for (let attempt = 0; ; attempt++) {
      const res = await doFetch(`${base}${path}`, { headers: { accept, 'accept-encoding': 'gzip, identity' } });
      if (res.status === 429 && attempt < 20) {
        // Public routes are rate limited: wait as told, then go on.
        const wait = Math.max(1, Number(res.headers.get('retry-after') ?? '1'));
        await new Promise((r) => setTimeout(r, wait * 1000));
        continue;
      }
      const bytes = Buffer.from(await res.arrayBuffer());
      if (!res.ok) throw new VerifyFailure(`GET ${path} answered ${res.status}: ${bytes.toString('utf8').slice(0, 200)}`);
      return bytes;
    }
  }
  const get = async (path: string, accept: string) => (await getRaw(path, accept)).toString('utf8');
  const getJson = async <T>(path: string) => JSON.parse(await get(path, 'application/json')) as T;

  const published = (await get('/v1/log/key', 'text/plain')).trim();
  const key = opts.key?.trim() ?? published;
  if (opts.key && key !== published) out(`note: the log now publishes another key (${published}); checking with the pinned one`);
  const policyText = opts.policyFile ? await fs.readFile(opts.policyFile, 'utf8') : await get('/v1/log/policy', 'text/plain');
  const policy = readPolicy(policyText, opts.policyFile ?? 'the log publishes');
  if (!opts.policyFile) out(`policy (the log's own; pin one with --policy): quorum ${policy.quorum}, witnesses ${policy.witnesses.map((w) => w.name).join(', ') || 'none'}`);
  if (policy.logs.length > 0 && !policy.logs.some((l) => l.vkey === key)) throw new VerifyFailure(`the policy does not list the log's key ${key}`);

  const note = await get('/v1/log/checkpoint', 'text/plain');
  const checkpoint = openWith(note, key, 'the checkpoint');
  out(`checkpoint: ${checkpoint.origin}, ${checkpoint.size} entries, root ${checkpoint.root.toString('base64')}, signature good (${key})`);
  const vouched = enforceQuorum(policy, note);
  out(`witnessed: ${vouched.length > 0 ? `cosigned by ${vouched.join(', ')}` : 'no witness cosigned it'}; the policy's quorum (${policy.quorum}) is met`);

  const tiles = new TileReader((p) => getRaw(`/v1/log/${p}`, 'application/octet-stream'), checkpoint.size);

  if (opts.checkpointFile) {
    const savedNote = await fs.readFile(opts.checkpointFile, 'utf8');
    // Another origin is another log: a checkpoint saved before a log restarted (as Credence's did when its entries
    // moved to commitments) cannot be checked against today's, and that is the answer to give.
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
    if (saved.size === checkpoint.size && !saved.root.equals(checkpoint.root)) {
      throw new VerifyFailure(`the log is FORKED: its key signed two different trees of ${saved.size} entries (the saved one and today's)`);
    }
    if (saved.size > checkpoint.size) throw new VerifyFailure(`the log shrank: ${saved.size} entries then, ${checkpoint.size} now`);
    const hashes = await tiles.consistencyProof(saved.size);
    if (!verifyConsistency(saved.size, checkpoint.size, hashes, saved.root, checkpoint.root)) {
      throw new VerifyFailure(`the log of ${checkpoint.size} entries is NOT an extension of the saved one of ${saved.size} (a fork, or entries changed or removed)`);
    }
    out(`consistent: the saved checkpoint of ${saved.size} entries is a prefix of today's ${checkpoint.size} (${hashes.length} proof hashes, from tiles)`);
  } else {
    let size = 0;
    let frontier: Buffer[] = [];
    let opened = 0;
    const erased: string[] = [];
    // Text a decision withheld: `index/pointer` → the decision the log names beside the entry.
    const withheld = new Map<string, number>();
    // What the log's decision entries (`moderation.decided`) say they withheld: `seq/pointer` → decision id, entry index.
    const decided = new Map<string, { decision: unknown; index: number }>();
    while (size < checkpoint.size) {
      // A page of openings (1,000 entries) and the bundles (256 entries each) that cover it.
      const page = await getJson<{
        data: { index: number; kind?: string; body: string; openings?: Record<string, Opening>; withheld?: Record<string, number>; leaf_hash?: string }[];
      }>(`/v1/log/entries?start=${size}&limit=${PAGE}`);
      if (page.data.length === 0) throw new VerifyFailure(`the log answered no entry at index ${size} of ${checkpoint.size}`);
      const end = size + page.data.length;
      for (const [i, e] of page.data.entries()) {
        if (e.index !== size + i) throw new VerifyFailure(`entry ${size + i} is missing (the log answered ${e.index} in its place)`);
      }
      const entries: Buffer[] = [];
      for (let b = Math.floor(size / 256); b * 256 < end; b++) {
        const bundle = await tiles.bundle(b).catch((err: unknown) => {
          throw new VerifyFailure(`entry bundle ${b}: ${(err as Error).message}`);
        });
        entries.push(...bundle.slice(Math.max(0, size - b * 256), end - b * 256));
      }
      const leaves: Buffer[] = [];
      for (const [i, e] of page.data.entries()) {
        const at = size + i;
        const bytes = entries[i]!;
        if (!bytes.equals(Buffer.from(e.body, 'utf8'))) throw new VerifyFailure(`entry ${at}: its bundle and /v1/log/entries disagree on its bytes`);
        for (const c of checkOpenings(bytes, e.openings, e.withheld)) {
          if (c.state === 'mismatch') throw new VerifyFailure(`entry ${at}: the opening of ${c.pointer} does NOT match its commitment`);
          if (c.state === 'erased') erased.push(`${at}${c.pointer}`);
          else if (c.state === 'withheld') withheld.set(`${at}${c.pointer}`, c.decision!);
          else opened++;
        }
        const parsed = parseJson(bytes);
        if (e.leaf_hash !== undefined) {
          // Clear text withheld from an entry written before free text was committed to: the bytes served are not the
          // entry's, so its leaf is taken from the hash tiles (which the signed root vouches for, checked below).
          const markers = withheldMarkersIn(parsed);
          if (markers.length === 0) throw new VerifyFailure(`entry ${at}: the log serves it with a leaf hash but withholds nothing in it`);
          for (const m of markers) {
            if (e.withheld?.[m.pointer] !== m.decision) throw new VerifyFailure(`entry ${at}: ${m.pointer} is withheld in its bytes but not named beside them`);
            withheld.set(`${at}${m.pointer}`, m.decision);
          }
          const leaf = await tiles.node({ level: 0, index: at });
          if (leaf.toString('base64') !== e.leaf_hash) throw new VerifyFailure(`entry ${at}: the leaf hash served beside it is NOT the hash tiles' one`);
          leaves.push(leaf);
        } else {
          leaves.push(leafHash(bytes));
        }
        if (e.kind === 'moderation.decided' || (parsed as { kind?: unknown } | null)?.kind === 'moderation.decided') {
          const d = parsed as { decision?: { id?: unknown }; withheld?: { seq?: unknown; pointer?: unknown }[] };
          for (const w of d.withheld ?? []) if (typeof w.seq === 'number' && typeof w.pointer === 'string') decided.set(`${w.seq - 1}${w.pointer}`, { decision: d.decision?.id, index: at });
        }
      }
      const grown = appendLeaves(size, frontier, leaves);
      size = grown.size;
      frontier = grown.frontier;
    }
    const root = rootOf(frontier);
    if (!root.equals(checkpoint.root)) {
      throw new VerifyFailure(`the entries do NOT match the signed root: rebuilt ${root.toString('base64')}, signed ${checkpoint.root.toString('base64')}`);
    }
    if (size > 0 && !(await tiles.range(0, size)).equals(root)) throw new VerifyFailure('the hash tiles do NOT match the signed root');
    out(`whole log: ${size} entries rebuild the signed root (read from the entry bundles; the hash tiles agree)`);
    out(`commitments: ${opened} opened and matching${erased.length > 0 ? `; ${erased.length} erased (the person asked to be forgotten; their entries still verify): ${erased.slice(0, 10).join(', ')}${erased.length > 10 ? ', …' : ''}` : ''}`);
    if (withheld.size > 0) {
      // Withheld text is reported, not failed: every proof still holds. A withholding no decision entry names is
      // said plainly (the decision may be past this checkpoint, or the operator withheld text without one).
      const named = [...withheld].map(([at, decision]) => {
        const d = decided.get(at);
        return d ? `${at} (decision ${String(d.decision)}, log entry ${d.index})` : `${at} (decision ${decision}; NO decision entry in this checkpoint names it)`;
      });
      out(`removed: ${withheld.size} field${withheld.size === 1 ? '' : 's'} withheld by a decision (the entries and every proof still verify): ${named.slice(0, 20).join(', ')}${named.length > 20 ? ', …' : ''}`);
    }
  }
  if (opts.saveFile) {
    await fs.writeFile(opts.saveFile, note);
    out(`saved the checkpoint to ${opts.saveFile}`);
  }
  return { checkpoint, note, vouched };
}

async function verifyProof(opts: VerifyOptions, out: (l: string) => void): Promise<{ checkpoint: Checkpoint; note: string; vouched: string[] }> {
  if (!opts.key) throw new VerifyFailure('--proof needs --key (the log key you trust)');
  if (!opts.policyFile) throw new VerifyFailure('--proof needs --policy (the witnesses and quorum you trust)');
  const policy = readPolicy(await fs.readFile(opts.policyFile, 'utf8'), opts.policyFile);
  let bundle;
  try {
    bundle = parseProofBundle(await fs.readFile(opts.proofFile!, 'utf8'));
  } catch (err) {
    throw new VerifyFailure(`${opts.proofFile} is not a tlog-proof: ${(err as Error).message}`);
  }
  const checkpoint = openWith(bundle.checkpoint, opts.key, 'the proof’s checkpoint');
  const vouched = enforceQuorum(policy, bundle.checkpoint);
  if (!verifyInclusion(bundle.index, checkpoint.size, leafHash(bundle.entry), bundle.proof, checkpoint.root)) {
    throw new VerifyFailure(`entry ${bundle.index} and its inclusion proof do NOT lead to the signed root`);
  }
  out(`entry ${bundle.index} is in ${checkpoint.origin}'s signed checkpoint of ${checkpoint.size} entries`);
  out(`witnessed: ${vouched.length > 0 ? `cosigned by ${vouched.join(', ')}` : 'no witness cosigned it'}; the policy's quorum (${policy.quorum}) is met`);
  out(`entry: ${bundle.entry.toString('utf8')}`);
  return { checkpoint, note: bundle.checkpoint, vouched };
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
}
