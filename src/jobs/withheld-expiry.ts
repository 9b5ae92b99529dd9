// Withheld text is kept only while it can still be restored: run by `credence serve`, every `pollMs` it deletes the
// text a decision withheld once that decision's appeal window has closed with no appeal waiting, and scrubs the freed
// space as erasure does (domain/moderation `forgetExpiredWithheld`; `credence withheld:forget` runs one pass by
// hand). Safe to run twice and in several processes at once: a pass deletes rows by id, and a second one finds none.
import type { Deps } from '../domain/deps.js';
import { forgetExpiredWithheld } from '../domain/moderation/moderation.service.js';
import { pollEvery } from './poll.js';

export interface WithheldExpiryLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface WithheldExpiry {
  /** One pass now; resolves with how many withheld texts it deleted (tests). */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

/** `pollMs`: how often to look. A window lasts six months, so an hour late is nothing; a pass that finds none is one read. */
export function startWithheldExpiry(deps: Deps, opts: { pollMs?: number; log?: WithheldExpiryLog } = {}): WithheldExpiry {
  const pollMs = opts.pollMs ?? 3_600_000;
  const log = opts.log ?? { error: (o, m) => console.error(m, o), info: () => {} };
  let running: Promise<number> | null = null;

  const pass = (): Promise<number> => {
    running ??= forgetExpiredWithheld(deps)
      .then((n) => {
        if (n > 0) log.info({ deleted: n }, 'withheld text past its appeal window deleted and its space scrubbed');
        return n;
      })
      .catch((err: unknown) => {
        log.error({ err }, 'deleting withheld text past its appeal window failed; retrying at the next pass');
        return 0;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  const poller = pollEvery(pollMs, pass);

  return {
    async tick() {
      while (running) await running;
      return pass();
    },
    async stop() {
      poller.stop();
      await running;
    },
  };
}
