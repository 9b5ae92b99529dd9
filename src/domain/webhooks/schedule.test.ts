import { describe, expect, it } from 'vitest';
import { disableForFailures, nextAttemptMs, RETRY_WINDOW_MS } from './schedule.js';

const S = 1000;
const H = 3_600_000;

describe('nextAttemptMs', () => {
  it('follows 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, then 8 h, without jitter at 0.5', () => {
    const plan = [30 * S, 120 * S, 600 * S, 1800 * S, H, 2 * H, 4 * H, 8 * H, 8 * H];
    let now = 0;
    plan.forEach((delay, i) => {
      const next = nextAttemptMs(0, i + 1, now, 0.5);
      expect(next, `after failure ${i + 1}`).toBe(now + delay);
      now = next!;
    });
    // 23 h 42 min 30 s after the first attempt, another 8 h would pass the 24 hours: given up.
    expect(now).toBe(23 * H + 42 * 60 * S + 30 * S);
    expect(nextAttemptMs(0, 10, now, 0.5)).toBeNull();
  });

  it('moves each wait by at most 10% either way', () => {
    expect(nextAttemptMs(0, 1, 0, 0)).toBe(27 * S);
    expect(nextAttemptMs(0, 1, 0, 0.9999999)).toBe(33 * S);
    for (let i = 0; i < 100; i++) {
      const next = nextAttemptMs(0, 3, 0, Math.random())!;
      expect(next).toBeGreaterThanOrEqual(540 * S);
      expect(next).toBeLessThanOrEqual(660 * S);
    }
  });

  it('never plans an attempt past the 24 hours, jitter included', () => {
    const now = RETRY_WINDOW_MS - 8 * H - 10 * S;
    expect(nextAttemptMs(0, 9, now, 0.9999)).toBe(RETRY_WINDOW_MS);
    expect(nextAttemptMs(0, 9, now + 20 * S, 0)).toBeNull();
  });

  it('counts the window from the first attempt, not from now', () => {
    // First attempt at 10 h: the window ends at 34 h, so an 8-hour wait from 26 h is the last that fits.
    expect(nextAttemptMs(10 * H, 9, 26 * H, 0.5)).toBe(34 * H);
    expect(nextAttemptMs(10 * H, 9, 26 * H + 1, 0.5)).toBeNull();
  });
});

describe('disableForFailures', () => {
  it('needs 20 failures in a row and 24 hours of failing, both', () => {
    expect(disableForFailures(20, 0, 24 * H)).toBe(true);
    expect(disableForFailures(500, 0, 24 * H - 1)).toBe(false); // a burst, however long
    expect(disableForFailures(19, 0, 72 * H)).toBe(false); // a slow trickle
    expect(disableForFailures(21, 10 * H, 34 * H)).toBe(true);
  });
});
