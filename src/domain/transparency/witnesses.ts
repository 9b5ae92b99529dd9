// This log's witnesses (C2SP tlog-witness / tlog-cosignature / tlog-policy): the policy document readers
// should enforce, the cosignatures stored for checkpoints, and the newest checkpoint that carries the policy's
// quorum of them. The HTTP side (submitting checkpoints to witnesses) is jobs/witness-submit.ts.
import type { Deps } from '../deps.js';
import { DomainError, invalid, notFound } from '../errors.js';
import { withheldBetween } from '../changes/change.store.js';
import { inclusionProof, inclusionProofs } from './log.service.js';
import { proofBundleText } from './proof-bundle.js';
import * as store from './log.store.js';
import { checkCosignatureLine, parseCosignerKey, splitNote } from './cosignature.js';

export interface ConfiguredWitness {
  name: string;
  vkey: string;
  url: string;
}

export const witnessesOf = (deps: Deps): ConfiguredWitness[] => deps.config.logWitnesses ?? [];

/** How many of the witnesses must cosign: 0 for `none`. */
export function quorumCount(deps: Deps): number {
  const q = deps.config.logWitnessQuorum ?? 'none';
  const n = witnessesOf(deps).length;
  return q === 'none' ? 0 : q === 'any' ? 1 : q === 'all' ? n : Number(q);
}

/** The log's tlog-policy document: its key, its witnesses, one group with the quorum's threshold. */
export function policyText(deps: Deps): string {
  const ws = witnessesOf(deps);
  const k = quorumCount(deps);
  const lines = [
    `# The C2SP tlog-policy of ${deps.transparency.origin}: a checkpoint counts when the log signed it and ${k === 0 ? 'no witness needs to' : `${k} of these witnesses cosigned it`}.`,
    `log ${deps.transparency.signer().verifierKey} ${deps.config.siteUrl}/v1/log`,
    ...ws.map((w) => `witness ${w.name} ${w.vkey} ${w.url}`),
  ];
  if (k === 0) lines.push('quorum none');
  else {
    lines.push(`group witnesses ${k} ${ws.map((w) => w.name).join(' ')}`);
    lines.push('quorum witnesses');
  }
  return `${lines.join('\n')}\n`;
}

/** Stores a witness's cosignature line after checking it against the witness's key and the checkpoint's text. */
export async function saveCosignature(deps: Deps, w: ConfiguredWitness, note: string, line: string): Promise<boolean> {
  const { text } = splitNote(note);
  const ts = checkCosignatureLine(line, parseCosignerKey(w.vkey), text);
  if (ts === null) return false;
  const [origin, size, root] = text.split('\n');
  await store.saveCosignature(deps.db, {
    origin: origin!,
    tree_size: Number(size),
    root_hash: Buffer.from(root!, 'base64'),
    witness_key: w.vkey,
    line,
    signed_at: ts,
    created_at: deps.clock.now().toISOString(),
  });
  return true;
}

/**
 * The checkpoint readers should take: the newest one that carries the policy's quorum of cosignatures (all of them
 * appended to the log's signature), or the newest one with whatever it has when none does yet.
 */
export async function witnessedCheckpoint(deps: Deps): Promise<{ note: string; size: number; cosigned: string[] }> {
  const latest = await store.latestCheckpoint(deps.db);
  if (!latest) throw notFound('Checkpoint');
  const origin = deps.transparency.origin;
  const keys = new Map(witnessesOf(deps).map((w) => [w.vkey, w.name]));
  const k = quorumCount(deps);
  let size = latest.tree_size;
  if (k > 0) {
    const sizes = await store.cosignedSizes(deps.db, origin, [...keys.keys()], k);
    if (sizes !== null && sizes < latest.tree_size) size = sizes;
  }
  const c = size === latest.tree_size ? latest : ((await store.checkpointOfSize(deps.db, size)) ?? latest);
  const cos = keys.size > 0 ? await store.cosignaturesOf(deps.db, origin, c.tree_size, c.root_hash) : [];
  const mine = cos.filter((x) => keys.has(x.witness_key));
  return { note: c.note + mine.map((x) => `${x.line}\n`).join(''), size: c.tree_size, cosigned: mine.map((x) => keys.get(x.witness_key)!) };
}

/**
 * A C2SP tlog-proof of one entry against the witnessed checkpoint (with its cosignatures): the entry's bytes on the
 * `extra` line, so it checks offline. 400 when the entry is not in that checkpoint yet.
 */
export async function proofBundle(deps: Deps, index: number): Promise<string> {
  const c = await witnessedCheckpoint(deps);
  if (index >= c.size) throw invalid('index', c.size === 0 ? 'the log has no entries yet' : `must be less than ${c.size}, the size of the witnessed checkpoint (a newer entry is in a bundle within seconds)`);
  const proof = await inclusionProof(deps, index, c.size);
  const [row] = await store.readChanges(deps.db, index, 1);
  if (!row || row.seq !== index + 1) throw notFound('Entry');
  // A tlog-proof carries the entry's bytes; an entry whose clear text a decision withheld cannot travel with them.
  const clear = (await withheldBetween(deps.db, row.seq, row.seq)).get(row.seq)?.clear;
  if (clear && clear.size > 0) {
    const [pointer, decision] = [...clear][0]!;
    throw new DomainError('not_found', `Entry ${index}'s text at ${pointer} is withheld by decision ${decision}: no proof carrying its bytes is served; /v1/log/proof/inclusion proves its leaf hash`);
  }
  return proofBundleText({ entry: row.body, index, proof: proof.hashes, checkpoint: c.note });
}

/**
 * Inclusion proofs of several entries (by index), all against the witnessed checkpoint, with each entry's bytes: the
 * extension's popup checks a bucket's records with them (docs/extension.md). Entries the checkpoint does not cover
 * yet are left out (a newer entry is in a checkpoint within seconds); the checkpoint is the one /v1/log/checkpoint
 * serves, with its cosignature lines.
 */
export async function proofsAgainstWitnessed(
  deps: Deps,
  indexes: number[],
): Promise<{ checkpoint: string; size: number; proofs: { index: number; entry: Buffer; hashes: Buffer[] }[] }> {
  const c = await witnessedCheckpoint(deps);
  const covered = [...new Set(indexes)].filter((i) => i >= 0 && i < c.size).sort((a, b) => a - b);
  if (covered.length === 0) return { checkpoint: c.note, size: c.size, proofs: [] };
  const [paths, rows] = await Promise.all([inclusionProofs(deps, covered, c.size), store.readChangesAt(deps.db, covered.map((i) => i + 1))]);
  const bodies = new Map(rows.map((r) => [r.seq - 1, r.body]));
  // A proof carries the entry's bytes: an entry whose clear text a decision withheld has none that travels.
  for (const [seq, w] of await withheldBetween(deps.db, covered[0]! + 1, covered.at(-1)! + 1)) if (w.clear.size > 0) bodies.delete(seq - 1);
  return {
    checkpoint: c.note,
    size: c.size,
    proofs: covered.filter((i) => bodies.has(i)).map((i) => ({ index: i, entry: bodies.get(i)!, hashes: paths.get(i)! })),
  };
}
