// The marketplace's clock, run by `credence serve`: every `pollMs` it reopens requests whose take ran out without
// work (REQUEST_TAKE_HOURS; domain/requests `expireStaleTakes`), recording each expiry for the specialist's /me and
// the publisher's dashboard. Safe to run twice and in several processes at once: each reopening names the take it
// ends, so only one pass moves it. The time is the service's clock, so tests drive it with theirs (`tick`).
import type { Deps } from '../domain/deps.js';
import { expireStaleTakes } from '../domain/requests/request.service.js';
import { pollEvery } from './poll.js';
import { flagDueRevisits } from '../domain/panels/review-flags.js';

export interface TakeExpiryLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface TakeExpiry {
  /** One pass now; resolves with how many takes it expired (tests). */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

/** `pollMs`: how often to look. A take lasts hours, so a minute late is nothing; a pass that finds none is one read. */
export function startTakeExpiry(deps: Deps, opts: { pollMs?: number; log?: TakeExpiryLog } = {}): TakeExpiry {
  const pollMs = opts.pollMs ?? 60_000;
  const log = opts.log ?? { error: (o, m) => console.error(m, o), info: () => {} };
  let running: Promise<number> | null = null;

  const pass = (): Promise<number> => {
    running ??= expireStaleTakes(deps)
      // The same clock tells panels whose revisit date passed; its count is not the takes'.
      .then(async (n) => {
        const revisits = await flagDueRevisits(deps);
        if (revisits > 0) log.info({ revisits }, 'panel statements past their revisit date flagged for review');
        if (n > 0) log.info({ expired: n }, 'request takes expired; the requests are open again');
        return n;
      })
      .catch((err: unknown) => {
        log.error({ err }, 'request take expiry failed; retrying at the next pass');
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
