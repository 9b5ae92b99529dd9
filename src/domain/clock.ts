// Time is a dependency so tests can move it (key expiry, session expiry, rate-limit refill).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const isoNow = (clock: Clock): string => clock.now().toISOString();

export const addDays = (date: Date, days: number): Date => new Date(date.getTime() + days * 86_400_000);
