// When a failed delivery is tried again (SPEC §10): after 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, then every
// 8 h, each delay stretched or shrunk by up to 10% so that endpoints that failed together do not retry together,
// and never later than 24 h after the first attempt. Pure: the caller passes the time and the randomness.

export const RETRY_DELAYS_MS = [30e3, 120e3, 600e3, 1_800e3, 3_600e3, 7_200e3, 14_400e3, 28_800e3] as const;
export const RETRY_WINDOW_MS = 24 * 3_600e3;
export const JITTER = 0.1;
/** Failed attempts in a row that disable an endpoint… */
export const DISABLE_AFTER = 20;
/** …when they also span at least this long: failing over time, not a burst. */
export const DISABLE_AFTER_FAILING_MS = 24 * 3_600e3;

/**
 * Whether an endpoint is disabled for failures: `failures` scheduled attempts in a row have failed, the first of them
 * at `failingSinceMs`, and it has been failing for the whole span since. Both, so that neither a burst of attempts
 * (however they were caused) nor one slow failure disables a receiver that is only briefly down.
 */
export function disableForFailures(failures: number, failingSinceMs: number, nowMs: number): boolean {
  return failures >= DISABLE_AFTER && nowMs - failingSinceMs >= DISABLE_AFTER_FAILING_MS;
}

/**
 * The time of the next attempt after failed attempt number `failures` (1 for the first failure) of a delivery
 * first attempted at `firstAttemptMs`; null when the retry window is over and the delivery is given up.
 * `random` is in [0, 1); 0.5 means no jitter.
 */
export function nextAttemptMs(firstAttemptMs: number, failures: number, nowMs: number, random: number): number | null {
  const base = RETRY_DELAYS_MS[Math.min(failures, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[RETRY_DELAYS_MS.length - 1]!;
  const deadline = firstAttemptMs + RETRY_WINDOW_MS;
  // The plan decides whether there is another attempt; the jitter only moves it, and never past the window.
  if (nowMs + base > deadline) return null;
  const jittered = nowMs + Math.round(base * (1 + JITTER * (2 * random - 1)));
  return Math.min(jittered, deadline);
}

/** The clock minute a send is counted in (WEBHOOK_HOST_DELIVERIES_PER_MINUTE), and when the next one starts. */
export function minuteOf(now: Date): { start: string; end: string } {
  const start = Math.floor(now.getTime() / 60_000) * 60_000;
  return { start: new Date(start).toISOString(), end: new Date(start + 60_000).toISOString() };
}
