// Log-ins for addresses no account has cost no CPU: they wait as long as a verification takes instead of hashing,
// so a flood of them cannot queue a real log-in behind dummy work on the thread pool. The app hashes at the
// production cost (N = 2^17) here: sixteen dummy hashes at that cost kept a correct log-in waiting for seconds.
// Both checks are ratios of times taken in the same run (the same log-in alone; a wrong password), so a slower
// machine stretches both sides alike; `npm test` still runs this file alone, after the rest (scripts/test.mjs), since
// other files running beside it would load one side and not the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, randomIp } from '../client.js';
import { signup, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let u: TestUser;
beforeAll(async () => {
  t = await startTestApp({ scryptLogN: 17 });
  u = await signup(t);
});
afterAll(async () => t?.close());

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('log-ins for unknown addresses', () => {
  it('sixteen of them from sixteen addresses do not hold up a correct log-in', async () => {
    // The same log-in alone first. Sixteen dummy hashes on the four threads of the pool would make it wait about four
    // hashes' time more, five times as long in all; waiting instead of hashing adds nearly nothing.
    const alone: number[] = [];
    for (let i = 0; i < 3; i++) {
      const once = await timed(() => new Client(t.baseUrl).post('/api/v1/auth/login', { email: u.email, password: u.password }));
      expect(once.value.status, once.value.text).toBe(200);
      alone.push(once.ms);
    }
    const flood = Array.from({ length: 16 }, (_, i) =>
      new Client(t.baseUrl, randomIp()).post('/api/v1/auth/login', { email: `nobody-${i}@mail.test`, password: 'a guess at a password' }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const correct = await timed(() => new Client(t.baseUrl).post('/api/v1/auth/login', { email: u.email, password: u.password }));
    expect(correct.value.status, correct.value.text).toBe(200);
    expect(correct.ms).toBeLessThan(median(alone) * 2.5);
    const answers = await Promise.all(flood);
    expect(answers.map((r) => r.status)).toEqual(Array(16).fill(401));
  });

  it('take about as long as a wrong password for a real account', async () => {
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 3; i++) {
      const w = await timed(() => new Client(t.baseUrl).post('/api/v1/auth/login', { email: u.email, password: `wrong password ${i}` }));
      expect(w.value.status).toBe(401);
      wrong.push(w.ms);
      const n = await timed(() => new Client(t.baseUrl).post('/api/v1/auth/login', { email: `nobody-else-${i}@mail.test`, password: 'guess' }));
      expect(n.value.status).toBe(401);
      expect(n.value.body).toEqual((await new Client(t.baseUrl).post('/api/v1/auth/login', { email: u.email, password: 'wrong' })).body);
      unknown.push(n.ms);
    }
    expect(median(unknown)).toBeGreaterThan(median(wrong) / 2.5);
    expect(median(unknown)).toBeLessThan(median(wrong) * 2.5);
  });
});
