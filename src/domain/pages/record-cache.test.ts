import { describe, expect, it } from 'vitest';
import { MemoryRecordCache } from './record-cache.js';

describe('the record cache', () => {
  it('drops exactly the answers that depend on a tag, and answers built from them', async () => {
    const cache = new MemoryRecordCache();
    let loads = 0;
    const record = (id: number) => cache.getOrLoad(`record:${id}`, async (track) => (track([`page:${id}`]), ++loads));
    const body = (id: number) => cache.getOrLoad(`body:${id}`, async () => `body ${await record(id)}`);
    expect(await body(1)).toBe('body 1');
    expect(await body(2)).toBe('body 2');
    expect(await body(1)).toBe('body 1');
    expect(cache.size).toBe(2); // the bodies: a record loaded inside a body's load is not kept on its own
    cache.invalidate(['page:1']);
    expect(cache.size).toBe(1);
    expect(await body(1)).toBe('body 3');
    expect(await body(2)).toBe('body 2');
    expect(loads).toBe(3);
  });

  it('keeps an inner answer loaded on its own, and reuses it inside another load', async () => {
    const cache = new MemoryRecordCache();
    let loads = 0;
    const record = () => cache.getOrLoad('record', async (track) => (track(['page:1']), ++loads));
    await record();
    expect(await cache.getOrLoad('body', async () => `body ${await record()}`)).toBe('body 1');
    expect(loads).toBe(1);
    expect(cache.size).toBe(2);
  });

  it('passes tags of a cached inner answer up to a new outer one', async () => {
    const cache = new MemoryRecordCache();
    await cache.getOrLoad('inner', async (track) => (track(['account:7']), 'x'));
    await cache.getOrLoad('outer', async () => cache.getOrLoad('inner', async () => 'never'));
    cache.invalidate(['account:7']);
    expect(cache.size).toBe(0);
  });

  it('does not serve a value loaded while something it depends on changed, and keeps one when nothing did', async () => {
    const cache = new MemoryRecordCache();
    let loads = 0;
    const loadWhile = async (key: string, change: () => void) => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const loading = cache.getOrLoad(key, async (track) => (track(['page:1']), await gate, ++loads));
      change();
      release();
      return loading;
    };
    expect(await loadWhile('a', () => cache.invalidate(['page:1']))).toBe(1);
    expect(await cache.getOrLoad('a', async () => ++loads)).toBe(2); // read again
    expect(await loadWhile('b', () => cache.invalidate(['page:2']))).toBe(3);
    expect(await cache.getOrLoad('b', async () => ++loads)).toBe(3); // kept: page:2 is not what it read
    expect(await loadWhile('c', () => cache.invalidateAll())).toBe(4);
    expect(await cache.getOrLoad('c', async () => ++loads)).toBe(5);
  });

  it('stays exact when it sweeps its invalidation stamps', async () => {
    const cache = new MemoryRecordCache(10);
    let loads = 0;
    const get = (id: number) => cache.getOrLoad(`k${id}`, async (track) => (track([`page:${id}`]), ++loads));
    for (let id = 0; id < 10; id++) await get(id);
    cache.invalidate(['page:3']);
    // More than four stamps per entry: the sweep drops k3 and starts the stamps again; the rest stay fresh.
    for (let i = 0; i < 50; i++) cache.invalidate([`other:${i}`]);
    expect(cache.size).toBe(9);
    for (let id = 0; id < 10; id++) await get(id);
    expect(loads).toBe(11);
    cache.invalidate(['page:4']);
    await get(4);
    expect(loads).toBe(12);
  });

  it('serves nothing from the cache unless the log was read recently', async () => {
    const cache = new MemoryRecordCache(100, 50);
    let loads = 0;
    const get = () => cache.getOrLoad('k', async () => ++loads);
    await get();
    await get();
    expect(loads).toBe(2); // never vouched for: nothing is kept
    cache.vouch(performance.now());
    await get();
    await get();
    expect(loads).toBe(3);
    await new Promise((r) => setTimeout(r, 80));
    await get();
    expect(loads).toBe(4);
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used answer and its tags', async () => {
    const cache = new MemoryRecordCache(2);
    for (const k of ['a', 'b', 'a', 'c']) await cache.getOrLoad(k, async (track) => (track([`t:${k}`]), k));
    expect(cache.size).toBe(2);
    cache.invalidate(['t:a']);
    expect(cache.size).toBe(1);
  });

  it('loads a key once for concurrent requests, and never hands a load begun before a change to a later request', async () => {
    const cache = new MemoryRecordCache();
    let loads = 0;
    let release!: () => void;
    let gate = new Promise<void>((r) => (release = r));
    const get = () => cache.getOrLoad('k', async (track) => (track(['page:1']), await gate, ++loads));
    const burst = [get(), get(), get()];
    release();
    expect(await Promise.all(burst)).toEqual([1, 1, 1]);
    expect(loads).toBe(1);

    cache.invalidate(['page:1']);
    gate = new Promise<void>((r) => (release = r));
    const before = get();
    cache.invalidate(['page:1']); // a change lands while the first load reads
    const after = get();
    release();
    expect(await before).toBe(2);
    expect(await after).toBe(3);
  });

  it('shares a failed load with the requests that joined it, and the next request loads again', async () => {
    const cache = new MemoryRecordCache();
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const get = () =>
      cache.getOrLoad('k', async () => {
        calls++;
        await gate;
        if (calls === 1) throw new Error('database away');
        return 'ok';
      });
    const burst = [get(), get()];
    release();
    for (const r of await Promise.allSettled(burst)) expect(r.status).toBe('rejected');
    expect(await get()).toBe('ok');
    expect(calls).toBe(2);
  });

  it('gives a value it can serve now as it is, and anything else (stale, untrusted, missing) as the promise of its load', async () => {
    const cache = new MemoryRecordCache(100, 500); // trusted for 500 ms after a vouch
    const now = (key: string, value: string) => cache.getNow(key, async (track) => (track(['page:1']), value));
    /** A miss: the promise of the load, which gives `value`. */
    const missed = async (key: string, value: string) => {
      const got = now(key, value);
      expect(got).toBeInstanceOf(Promise);
      expect(await got).toBe(value);
    };
    await missed('k', 'v1');
    await missed('k', 'v2'); // never vouched for: nothing was kept
    cache.vouch(performance.now());
    await missed('k', 'v3');
    expect(now('k', 'never')).toBe('v3'); // a hit is the value itself: no promise, no microtask turn
    expect(cache.stats().hits).toBe(1);
    expect(await cache.getOrLoad('k', async () => 'never')).toBe('v3'); // the same hit as a promise
    cache.invalidate(['page:2']);
    expect(now('k', 'never')).toBe('v3');
    cache.invalidate(['page:1']);
    await missed('k', 'v4');
    // A hit inside another load: the outer answer depends on what the inner one does.
    await missed('outer', 'x');
    cache.invalidate(['page:1']);
    const outer = () => cache.getNow('outer', async () => `outer ${await now('k', 'v5')}`);
    expect(await outer()).toBe('outer v5');
    expect(outer()).toBe('outer v5');
    cache.invalidate(['page:1']);
    const reloaded = outer();
    expect(reloaded).toBeInstanceOf(Promise);
    expect(await reloaded).toBe('outer v5'); // the inner one was loaded inside it: only the outer answer is kept
    // Behind the log: nothing is served, not even what was cached a moment ago.
    await missed('k', 'v6');
    expect(now('k', 'never')).toBe('v6');
    await new Promise((r) => setTimeout(r, 600));
    await missed('k', 'v7');
  });

  it('peeks at what it can serve now, counted as a hit, and at nothing stale, untrusted or missing', async () => {
    const cache = new MemoryRecordCache(100, 500);
    const load = (value: string) => cache.getOrLoad('k', async (track) => (track(['page:1']), value));
    expect(cache.peek('k')).toBeUndefined();
    await load('v1');
    expect(cache.peek('k')).toBeUndefined(); // never vouched for: nothing kept
    cache.vouch(performance.now());
    await load('v2');
    const before = cache.stats();
    expect(cache.peek('k')).toBe('v2');
    expect(cache.stats()).toEqual({ hits: before.hits + 1, misses: before.misses });
    cache.invalidate(['page:2']);
    expect(cache.peek('k')).toBe('v2');
    cache.invalidate(['page:1']);
    expect(cache.peek('k')).toBeUndefined(); // stale: dropped, and nothing loads it
    expect(await load('v3')).toBe('v3');
    // Inside another load, a peeked value passes its tags up, as a hit of getNow does.
    await cache.getOrLoad('outer', async () => `outer ${cache.peek<string>('k')}`);
    cache.invalidate(['page:1']);
    expect(cache.peek('outer')).toBeUndefined();
    await new Promise((r) => setTimeout(r, 600));
    expect(cache.peek('k')).toBeUndefined(); // behind the log
  });
});
