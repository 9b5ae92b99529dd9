// The hashing gate: a few hashes at once, lanes served in turn, and an imitated verification that does no work.
import { describe, expect, it } from 'vitest';
import { hashPassword, Passwords } from './password.js';

describe('Passwords', () => {
  it('serves lanes in turn, so one lane queueing many hashes does not keep another waiting behind all of them', async () => {
    const passwords = new Passwords(10, { concurrency: 1 });
    const done: string[] = [];
    const flood = Array.from({ length: 6 }, (_, i) => passwords.hash(`p${i}`, 'ip:flood').then(() => done.push(`flood${i}`)));
    const other = passwords.hash('mine', 'ip:other').then(() => done.push('other'));
    await Promise.all([...flood, other]);
    // The first flood hash had the slot; the other lane's one hash comes right after it.
    expect(done.indexOf('other')).toBeLessThanOrEqual(2);
  });

  it('verifies as before and imitates a verification as long as the median one took', async () => {
    const passwords = new Passwords(10, { random: () => 0.5 });
    const stored = await hashPassword('right', 10);
    expect(await passwords.verify('right', stored, 'a')).toBe(true);
    expect(await passwords.verify('wrong', stored, 'a')).toBe(false);
    const median = passwords.median();
    expect(median).toBeGreaterThan(0);
    const started = performance.now();
    await passwords.imitate();
    expect(performance.now() - started).toBeGreaterThanOrEqual(median - 2);
  });

  it('times one hash before any verification, once', async () => {
    const passwords = new Passwords(10);
    await Promise.all([passwords.imitate(), passwords.imitate()]);
    expect(passwords.median()).toBeGreaterThan(0);
  });
});
