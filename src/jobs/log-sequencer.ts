// The transparency log's sequencer, run by `credence serve`: after commit, it appends new `changes` entries to the
// Merkle tree and signs a checkpoint (domain/transparency/log.service.ts `integrate`). Writes never wait for it:
// an accept decision commits its change entry and answers; the tree catches up within one poll (a write answered
// by this process wakes it at once). Several processes may run it: the log's state row makes them take turns, and
// a turn that finds nothing new writes nothing.
import type { Deps } from '../domain/deps.js';
import { type IntegrateResult, integrate } from '../domain/transparency/log.service.js';
import { pollEvery } from './poll.js';
import { witnessSubmitter } from './witness-submit.js';

export interface SequencerLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface LogSequencer {
  /** Run a pass soon (coalesced with one already due). */
  wake(): void;
  /** One pass now; resolves when it is done (tests). */
  tick(): Promise<IntegrateResult>;
  /** Submits the newest checkpoint to the witnesses that lack it; resolves when each answered (tests). */
  witness(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `pollMs`: how often `changes` is read when nothing wakes the sequencer (writes by other processes, the CLI).
 * `wakeDelayMs`: a wake runs a pass this long after it, and wakes meanwhile join it, so a burst of writes costs one
 * pass (one transaction, one signature) instead of one each; the log still grows within a second of a commit.
 */
export function startLogSequencer(deps: Deps, opts: { pollMs?: number; wakeDelayMs?: number; log?: SequencerLog } = {}): LogSequencer {
  const pollMs = opts.pollMs ?? 1_000;
  const wakeDelayMs = opts.wakeDelayMs ?? 200;
  let wakeTimer: NodeJS.Timeout | null = null;
  const log = opts.log ?? { error: (o, m) => console.error(m, o), info: () => {} };
  let running: Promise<IntegrateResult> | null = null;
  let lastGap: number | undefined;
  let gapPasses = 0;
  let again = false;
  const witnesses = witnessSubmitter(deps, { log });

  const pass = (): Promise<IntegrateResult> => {
    if (running) {
      again = true;
      return running;
    }
    running = integrate(deps)
      .then((r) => {
        if (r.appended > 0 || r.signed) log.info({ tree_size: r.size, appended: r.appended }, 'transparency log checkpoint');
        // A missing seq for several passes is no slow commit: a change entry was deleted, and the log stops there.
        gapPasses = r.waitingFor !== undefined && r.waitingFor === lastGap ? gapPasses + 1 : 0;
        lastGap = r.waitingFor;
        if (gapPasses === 10) log.error({ seq: r.waitingFor }, 'transparency log: change entry missing; the log cannot grow past it');
        // Never awaited: each witness answers in its own time (or not), and the log goes on meanwhile.
        void witnesses.pass();
        return r;
      })
      .catch((err: unknown) => {
        log.error({ err }, 'transparency log: append failed; retrying at the next pass');
        return { size: -1, appended: 0, signed: false };
      })
      .finally(() => {
        running = null;
        if (again && !poller.stopped) {
          again = false;
          void pass();
        }
      });
    return running;
  };

  const poller = pollEvery(pollMs, pass);

  return {
    wake() {
      if (wakeTimer || poller.stopped) return;
      wakeTimer = setTimeout(() => {
        wakeTimer = null;
        void pass();
      }, wakeDelayMs);
      wakeTimer.unref();
    },
    async tick() {
      while (running) await running;
      return pass();
    },
    witness() {
      witnesses.reset();
      return witnesses.pass();
    },
    async stop() {
      poller.stop();
      if (wakeTimer) clearTimeout(wakeTimer);
      await running;
    },
  };
}
