// Submitting this log's newest checkpoint to each witness (C2SP tlog-witness add-checkpoint), run by the sequencer
// after it signs and again while a witness lacks the newest checkpoint. Each witness is asked on its own, with a
// timeout and a back-off when it fails, so a witness that is down delays nothing else: not the log, not the other
// witnesses. A 409 names the size the witness holds: the next request proves consistency from there.
import type { Deps } from '../domain/deps.js';
import * as store from '../domain/transparency/log.store.js';
import { consistencyProof } from '../domain/transparency/log.service.js';
import { type ConfiguredWitness, saveCosignature, witnessesOf } from '../domain/transparency/witnesses.js';

export interface WitnessLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const TIMEOUT_MS = 10_000;

export function witnessSubmitter(deps: Deps, opts: { log?: WitnessLog; fetch?: typeof fetch } = {}) {
  const doFetch = opts.fetch ?? fetch;
  const log = opts.log ?? { info: () => {}, error: (o, m) => console.error(m, o) };
  const running = new Map<string, Promise<void>>();
  const backoff = new Map<string, { until: number; failures: number }>();

  async function submit(w: ConfiguredWitness): Promise<void> {
    const latest = await store.latestCheckpoint(deps.db);
    if (!latest) return;
    const origin = deps.transparency.origin;
    const held = await store.witnessState(deps.db, w.vkey, origin);
    let old = held?.tree_size ?? 0;
    const done = await store.cosignaturesOf(deps.db, origin, latest.tree_size, latest.root_hash);
    if (done.some((c) => c.witness_key === w.vkey)) return;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (old > latest.tree_size) throw new Error(`the witness holds ${old} entries of this log, more than its ${latest.tree_size}`);
      const proof = await consistencyProof(deps, old, latest.tree_size);
      const body = `old ${old}\n${proof.hashes.map((h) => `${h.toString('base64')}\n`).join('')}\n${latest.note}`;
      const res = await doFetch(`${w.url}/add-checkpoint`, { method: 'POST', body, signal: AbortSignal.timeout(TIMEOUT_MS), headers: { 'content-type': 'text/plain' } });
      const text = await res.text();
      const now = deps.clock.now().toISOString();
      if (res.status === 409 && /^[0-9]+\n?$/.test(text)) {
        // The witness holds another size than we thought: resynchronise and prove consistency from there.
        old = Number(text.trim());
        await store.saveWitnessState(deps.db, { witness_key: w.vkey, origin, tree_size: old, last_error: null, updated_at: now });
        continue;
      }
      if (!res.ok) throw new Error(`add-checkpoint answered ${res.status}: ${text.slice(0, 200)}`);
      let saved = false;
      for (const line of text.split('\n').filter((l) => l !== '')) saved = (await saveCosignature(deps, w, latest.note, line)) || saved;
      if (!saved) throw new Error('add-checkpoint answered no cosignature by the witness’s key');
      await store.saveWitnessState(deps.db, { witness_key: w.vkey, origin, tree_size: latest.tree_size, last_error: null, updated_at: now });
      log.info({ witness: w.name, tree_size: latest.tree_size }, 'transparency log: witness cosigned');
      return;
    }
    throw new Error('the witness kept answering 409');
  }

  return {
    /** Asks every witness that lacks the newest checkpoint, each on its own; resolves when all have answered. */
    pass(): Promise<void> {
      const now = Date.now();
      const all = witnessesOf(deps).map((w) => {
        const b = backoff.get(w.vkey);
        if (b && b.until > now) return Promise.resolve();
        let p = running.get(w.vkey);
        if (!p) {
          p = submit(w)
            .then(() => void backoff.delete(w.vkey))
            .catch(async (err: unknown) => {
              const failures = (backoff.get(w.vkey)?.failures ?? 0) + 1;
              backoff.set(w.vkey, { failures, until: Date.now() + Math.min(60_000, 1000 * 2 ** failures) });
              log.error({ witness: w.name, err: (err as Error).message }, 'transparency log: witness did not cosign');
              const held = await store.witnessState(deps.db, w.vkey, deps.transparency.origin).catch(() => undefined);
              await store
                .saveWitnessState(deps.db, {
                  witness_key: w.vkey,
                  origin: deps.transparency.origin,
                  tree_size: held?.tree_size ?? 0,
                  last_error: String((err as Error).message).slice(0, 500),
                  updated_at: deps.clock.now().toISOString(),
                })
                .catch(() => {});
            })
            .finally(() => running.delete(w.vkey));
          running.set(w.vkey, p);
        }
        return p;
      });
      return Promise.all(all).then(() => {});
    },
    /** Forgets back-offs (tests). */
    reset() {
      backoff.clear();
    },
  };
}
