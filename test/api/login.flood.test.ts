// A correct log-in under a flood of wrong ones from forty addresses, as an attacker sends them: each address a few at
// once, rotating known accounts to stay within the free failures of each pair. The flood's guesses rank behind a
// person's first try (Passwords), so the correct log-in waits for about one hash, not one per attacking address; and
// a request whose client has gone leaves the queue without hashing. Times are in units of this run's own hash
// (N = 2^16 here, about 0.2 s, so that the hash outweighs handling the flood's requests) and compared with the same
// log-in made alone moments before, so a slower or busier machine stretches both sides.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { signup, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let users: TestUser[];
const ADDRESSES = 40;
const PER_ADDRESS = 8;

beforeAll(async () => {
  t = await startTestApp({ scryptLogN: 16 });
  users = [];
  for (let i = 0; i < 5; i++) users.push(await signup(t));
});
afterAll(async () => t?.close());

const passwords = () => t.runtime.deps.passwords;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
let network = 0;
/** Addresses no earlier request of this file used: each wave and each correct log-in from a fresh one. */
const freshIp = () => `10.77.${Math.floor(++network / 250)}.${(network % 250) + 1}`;

async function timedLogin(user: TestUser): Promise<number> {
  const started = performance.now();
  const res = await new Client(t.baseUrl, freshIp()).post('/api/v1/auth/login', { email: user.email, password: user.password });
  expect(res.status, res.text).toBe(200);
  return performance.now() - started;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A log-in on a connection of its own (no pool keeping sockets open after the test), so the test can hang up on it:
 * its status, or 0 when the test hung up.
 */
function attempt(ip: string, email: string, password: string, signal: AbortSignal): Promise<number> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ email, password });
    const req = http.request(
      `${t.baseUrl}/api/v1/auth/login`,
      { method: 'POST', agent: false, signal, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-forwarded-for': ip } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/**
 * Forty addresses, eight log-ins each at once, `email(address, i)` each; `measure` runs once the flood has begun to
 * queue and may wait for all of it to have arrived; then the client hangs up on the whole flood.
 */
async function underFlood<T>(email: (address: number, i: number) => string, measure: (arrived: () => Promise<void>) => Promise<T>): Promise<{ measured: T; statuses: number[]; hashedAfterHangUp: number }> {
  const hangUp = new AbortController();
  const turnsBefore = passwords().turns;
  const flood: Promise<number>[] = [];
  for (let a = 0; a < ADDRESSES; a++) {
    const ip = freshIp();
    for (let i = 0; i < PER_ADDRESS; i++) flood.push(attempt(ip, email(a, i), `wrong password ${a}-${i}`, hangUp.signal));
  }
  // Each log-in of the flood is waiting or has had its turn (imitations hand their slot straight on, so log-ins for
  // unknown addresses never wait for each other).
  const reached = () => passwords().waiting + passwords().turns - turnsBefore;
  await until(() => reached() >= ADDRESSES, 'the flood to begin');
  // Every address holds its four places (the rest were 429 at once).
  const arrived = () => until(() => reached() >= ADDRESSES * 4, 'the whole flood to arrive');
  const measured = await measure(arrived);
  const hashedAtHangUp = passwords().hashesStarted;
  hangUp.abort();
  const statuses = await Promise.all(flood);
  await until(() => passwords().waiting === 0, 'the queue to empty');
  // What was hashing when the clients left finishes; nothing queued behind it starts.
  await new Promise((resolve) => setTimeout(resolve, passwords().median() * 3));
  return { measured, statuses, hashedAfterHangUp: passwords().hashesStarted - hashedAtHangUp };
}

describe('a correct log-in under a flood of wrong ones from forty addresses', () => {
  it('waits about one hash, not one per attacking address, when the flood guesses at known accounts', async () => {
    const [target, bystander] = [users[0]!, users[4]!];
    const alone = median([await timedLogin(target), await timedLogin(bystander), await timedLogin(target)]);
    const hash = passwords().median();
    // Each address rotates four accounts, so no pair fails more than twice: inside the free failures. The fifth
    // account is nobody's target: its owner logs in while the flood is still arriving. The target's owner logs in
    // from a fresh address too, once the flood has arrived: every guess then ranks behind a first try.
    const run = await underFlood(
      (a, i) => users[(a + i) % 4]!.email,
      async (arrived) => {
        const untouched = await timedLogin(bystander);
        await arrived();
        return { untouched, targeted: await timedLogin(target) };
      },
    );
    // Lanes served in turn made each wait for one hash per attacking address: about twenty hashes on two slots.
    const why = `alone ${alone.toFixed(0)} ms, one hash ${hash.toFixed(0)} ms`;
    expect(run.measured.untouched, why).toBeLessThan(alone + 4 * hash);
    expect(run.measured.targeted, why).toBeLessThan(alone + 4 * hash);
    // Past four at once an address is refused before any work; nothing else was answered but hang-ups.
    expect(run.statuses.filter((s) => s === 429).length).toBe(ADDRESSES * (PER_ADDRESS - 4));
    expect(run.statuses.filter((s) => s !== 429 && s !== 401 && s !== 0)).toEqual([]);
    expect(run.hashedAfterHangUp).toBeLessThanOrEqual(2);
  });

  it('waits about one hash too when the flood guesses at addresses no account has', async () => {
    const alone = median([await timedLogin(users[1]!), await timedLogin(users[1]!), await timedLogin(users[1]!)]);
    const hash = passwords().median();
    const run = await underFlood(
      (a, i) => `nobody-${a}-${i}@mail.test`,
      async (arrived) => {
        await arrived();
        return timedLogin(users[1]!);
      },
    );
    expect(run.measured, `alone ${alone.toFixed(0)} ms, one hash ${hash.toFixed(0)} ms`).toBeLessThan(alone + 4 * hash);
    expect(run.hashedAfterHangUp).toBeLessThanOrEqual(2);
  });
});

describe('a log-in whose client has gone before its turn', () => {
  it('never hashes, and leaves the queue at once', async () => {
    const stop = new AbortController();
    const started = passwords().hashesStarted;
    // Six wrong passwords from six addresses: two hashing, four waiting.
    const fillers = Array.from({ length: 6 }, (_, i) => attempt(freshIp(), users[2]!.email, `wrong ${i}`, stop.signal));
    await until(() => passwords().waiting === 4, 'the fillers to queue');
    const gone = new AbortController();
    const leaving = attempt(freshIp(), users[2]!.email, users[2]!.password, gone.signal);
    await until(() => passwords().waiting === 5, 'the log-in to queue');
    gone.abort();
    expect(await leaving).toBe(0);
    await until(() => passwords().waiting <= 4, 'the log-in to leave the queue');
    expect(await Promise.all(fillers)).toEqual(Array(6).fill(401));
    expect(passwords().hashesStarted - started).toBe(6);
    // Its account and address were not charged a failure: the next log-in from anywhere succeeds.
    await timedLogin(users[2]!);
  });
});
