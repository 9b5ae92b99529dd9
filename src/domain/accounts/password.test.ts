// The hashing gate: a few hashes at once, the least suspect waiter first (the newest of a rank), waiters whose
// caller has gone dropped, and an imitated verification that does no work.
import { describe, expect, it } from 'vitest';
import { hashPassword, Passwords } from './password.js';

describe('Passwords', () => {
  it('serves a lane\'s first hash before another lane\'s second, so one lane queueing many does not keep another waiting behind all of them', async () => {
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
  it('serves the lowest rank first, and the newest of a rank before the older ones', async () => {
    const passwords = new Passwords(10, { concurrency: 1 });
    const done: string[] = [];
    const first = passwords.hash('p', 'ip:first').then(() => done.push('first'));
    // An address that failed three times before, then a burst of first tries, then a real person's first try.
    const suspect = passwords.hash('p', 'ip:suspect', { rank: 3 }).then(() => done.push('suspect'));
    const burst = Array.from({ length: 5 }, (_, i) => passwords.hash('p', `ip:burst${i}`).then(() => done.push(`burst${i}`)));
    const person = passwords.hash('p', 'ip:person').then(() => done.push('person'));
    await Promise.all([first, suspect, ...burst, person]);
    expect(done).toEqual(['first', 'person', 'burst4', 'burst3', 'burst2', 'burst1', 'burst0', 'suspect']);
  });

  it('drops a waiter whose caller has gone, without hashing, and never starts one that has gone already', async () => {
    const passwords = new Passwords(10, { concurrency: 1 });
    const stored = await hashPassword('right', 10);
    const running = passwords.verify('wrong', stored, 'ip:a');
    const gone = new AbortController();
    const waiting = passwords.verify('right', stored, 'ip:b', { signal: gone.signal });
    expect(passwords.waiting).toBe(1);
    gone.abort();
    expect(passwords.waiting).toBe(0);
    await expect(waiting).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(passwords.verify('right', stored, 'ip:c', { signal: gone.signal })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(passwords.imitate('ip:c', { signal: gone.signal })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await running).toBe(false);
    expect(passwords.hashesStarted).toBe(1);
    // The slot went back: the next one runs at once.
    expect(await passwords.verify('right', stored, 'ip:d')).toBe(true);
  });

  it('holds at most so many places in a lane, and a hold ranks the lane\'s other work behind it', async () => {
    const passwords = new Passwords(10, { concurrency: 1 });
    const holds = [passwords.hold('ip:x', 2), passwords.hold('ip:x', 2)];
    expect(passwords.hold('ip:x', 2)).toBeNull();
    holds[0]!.release();
    holds[0]!.release();
    const again = passwords.hold('ip:x', 2);
    expect(again).not.toBeNull();
    const done: string[] = [];
    const first = passwords.hash('p', 'ip:first').then(() => done.push('first'));
    const x = passwords.hash('p', again!).then(() => done.push('x'));
    const fresh = passwords.hash('p', 'ip:fresh').then(() => done.push('fresh'));
    await Promise.all([first, x, fresh]);
    // ip:x has another place held (holds[1]), so its hash ranks 1; the fresh address's ranks 0.
    expect(done).toEqual(['first', 'fresh', 'x']);
  });
  it('serves a log-in at an account nobody else is at before those at an account others are at, within a rank', async () => {
    const passwords = new Passwords(10, { concurrency: 1 });
    const done: string[] = [];
    const first = passwords.hash('p', 'ip:first').then(() => done.push('first'));
    const guesses = Array.from({ length: 3 }, (_, i) => passwords.hash('p', `ip:guess${i}`, { account: 'known@mail.test' }).then(() => done.push(`guess${i}`)));
    const other = passwords.hash('p', 'ip:other', { account: 'other@mail.test' }).then(() => done.push('other'));
    const owner = passwords.hash('p', 'ip:owner', { account: 'known@mail.test' }).then(() => done.push('owner'));
    const later = passwords.hash('p', 'ip:later', { account: 'known@mail.test', rank: 1 }).then(() => done.push('later'));
    await Promise.all([first, ...guesses, other, owner, later]);
    // Its owner, as fresh as the guesses, comes first among them (the newest); an address that failed before, last.
    expect(done).toEqual(['first', 'other', 'owner', 'guess2', 'guess1', 'guess0', 'later']);
  });
  it('lets an imitation take its turn by rank and hand the slot straight on', async () => {
    const passwords = new Passwords(14, { concurrency: 1 });
    const stored = await hashPassword('right', 14);
    await passwords.verify('right', stored, 'ip:timing');
    const running = passwords.verify('wrong', stored, 'ip:a');
    let imitated = false;
    const imitation = passwords.imitate('ip:unknown').then(() => (imitated = true));
    const behind = passwords.verify('right', stored, 'ip:b', { rank: 1 });
    expect(passwords.waiting).toBe(2);
    await running;
    await new Promise((resolve) => setImmediate(resolve));
    // The imitation had its turn first (rank 0) and is still waiting out a hash's time; the slot went on at once.
    expect(imitated).toBe(false);
    expect(passwords.waiting).toBe(0);
    expect(passwords.hashesStarted).toBe(3);
    await Promise.all([imitation, behind]);
  });
  it('keeps one slot for first tries: guesses hash one at a time, and a first try starts at once beside them', async () => {
    const passwords = new Passwords(12, { concurrency: 2 });
    const flood = Array.from({ length: 4 }, (_, i) => passwords.hash(`p${i}`, 'ip:flood'));
    await Promise.resolve();
    // The address's first started; the other three rank behind it and leave the second slot alone.
    expect(passwords.hashesStarted).toBe(1);
    expect(passwords.waiting).toBe(3);
    const person = passwords.hash('mine', 'ip:person');
    await Promise.resolve();
    expect(passwords.hashesStarted).toBe(2);
    await Promise.all([...flood, person]);
    expect(passwords.hashesStarted).toBe(5);
  });
});
