// Credence as a witness for other logs (C2SP tlog-witness): `add-checkpoint` for the logs its operator
// lists in WITNESS_LOGS (their note verifier keys; the key name is the log's origin). It keeps the newest checkpoint
// it cosigned for each log (witnessed_logs) and cosigns a new one only when it extends that one, checked with the
// consistency proof the log sends; the check and the update happen under one lock on the log's row, so two
// requests cannot roll it back. The answers are the spec's status codes with plain-text bodies.
import { sql } from 'kysely';
import type { Deps } from '../deps.js';
import { EMPTY_ROOT, verifyConsistency } from './merkle.js';
import { NoteError, openNote, parseCheckpoint, parseVerifierKey } from './note.js';
import { cosign } from './cosignature.js';

export interface WitnessAnswer {
  status: 200 | 400 | 403 | 404 | 409 | 422;
  type: 'text/plain' | 'text/x.tlog.size';
  body: string;
}

const plain = (status: WitnessAnswer['status'], body: string): WitnessAnswer => ({ status, type: 'text/plain', body: `${body}\n` });

/** The logs this service witnesses, by origin. */
function knownLogs(deps: Deps): Map<string, string> {
  const out = new Map<string, string>();
  for (const vkey of deps.config.witnessLogs ?? []) out.set(parseVerifierKey(vkey).name, vkey);
  return out;
}

export async function addCheckpoint(deps: Deps, body: string): Promise<WitnessAnswer> {
  const lines = body.split('\n');
  const old = /^old (0|[1-9][0-9]{0,15})$/.exec(lines[0] ?? '');
  if (!old) return plain(400, 'the first line is "old <size>"');
  let at = 1;
  const proof: Buffer[] = [];
  while (at < lines.length && lines[at] !== '') {
    const h = Buffer.from(lines[at]!, 'base64');
    if (h.length !== 32 || !/^[A-Za-z0-9+/]{43}=$/.test(lines[at]!)) return plain(400, `line ${at + 1} is not a base64 SHA-256 hash`);
    proof.push(h);
    at++;
  }
  if (proof.length > 63) return plain(400, 'more than 63 consistency proof lines');
  if (at >= lines.length) return plain(400, 'no blank line before the checkpoint');
  const note = lines.slice(at + 1).join('\n');
  const origin = note.split('\n', 1)[0] ?? '';
  const vkey = knownLogs(deps).get(origin);
  if (!vkey) return plain(404, 'this witness does not witness that log');
  let text: string;
  try {
    text = openNote(note, vkey);
  } catch (err) {
    if (err instanceof NoteError) return plain(403, `the checkpoint is not signed by the log's key: ${err.message}`);
    throw err;
  }
  let c;
  try {
    c = parseCheckpoint(text);
  } catch {
    return plain(400, 'malformed checkpoint');
  }
  const oldSize = Number(old[1]);
  if (oldSize > c.size) return plain(400, 'the old size is past the checkpoint’s size');
  if (c.size === 0 && !c.root.equals(EMPTY_ROOT)) return plain(422, 'a tree of size 0 has the empty tree’s root');
  if (oldSize === 0 && proof.length > 0) return plain(422, 'no proof is sent from the empty tree');

  return deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    // The lock first: SQLite's write lock, PostgreSQL's row lock (inserted when the log is new).
    await trx
      .insertInto('witnessed_logs')
      .values({ origin, tree_size: 0, root_hash: EMPTY_ROOT, note: '', updated_at: now.toISOString() })
      .onConflict((oc) => oc.column('origin').doNothing())
      .execute();
    await sql`update witnessed_logs set updated_at = updated_at where origin = ${origin}`.execute(trx);
    const row = await trx.selectFrom('witnessed_logs').select(['tree_size', 'root_hash']).where('origin', '=', origin).executeTakeFirstOrThrow();
    const held = { size: Number(row.tree_size), root: Buffer.from(row.root_hash as Uint8Array) };
    if (oldSize !== held.size) return { status: 409 as const, type: 'text/x.tlog.size' as const, body: `${held.size}\n` };
    if (oldSize === c.size) {
      if (!c.root.equals(held.root)) return plain(422, 'another tree of the size this witness holds: the log is forked');
    } else if (oldSize > 0 && !verifyConsistency(oldSize, c.size, proof, held.root, c.root)) {
      return plain(422, 'the consistency proof does not verify: the checkpoint does not extend the one this witness holds');
    }
    await trx
      .updateTable('witnessed_logs')
      .set({ tree_size: c.size, root_hash: c.root, note, updated_at: now.toISOString() })
      .where('origin', '=', origin)
      .execute();
    const w = deps.transparency.witness();
    return { status: 200 as const, type: 'text/plain' as const, body: cosign(w.name, w.key, text, Math.floor(now.getTime() / 1000)) };
  });
}

/** What this witness holds of each log it witnesses (for its operator and monitors). */
export async function witnessedLogs(deps: Deps): Promise<{ origin: string; verifierKey: string; size: number; updatedAt: string | null }[]> {
  const known = knownLogs(deps);
  const rows = await deps.db.selectFrom('witnessed_logs').select(['origin', 'tree_size', 'updated_at']).execute();
  const byOrigin = new Map(rows.map((r) => [r.origin, r]));
  return [...known].map(([origin, verifierKey]) => {
    const r = byOrigin.get(origin);
    return { origin, verifierKey, size: r ? Number(r.tree_size) : 0, updatedAt: r ? r.updated_at : null };
  });
}
