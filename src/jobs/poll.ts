// The rhythm of a background job: one pass now, then the next `pollMs` after each one ends, until stopped. Passes
// never overlap on this timer (the next is scheduled when one ends), and the timer never keeps the process alive.
export interface Poller {
  stop(): void;
  readonly stopped: boolean;
}

export function pollEvery(pollMs: number, pass: () => Promise<unknown>): Poller {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void pass().finally(schedule), pollMs);
    timer.unref();
  };
  void pass().finally(schedule);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    get stopped() {
      return stopped;
    },
  };
}
