// The log lines a request writes, by LOG_LEVEL: at info one access line with the request id, method, path, status
// and duration (never an address, header or query string); above info no access line, but an error still names its
// request; silent, nothing, with no logger built at all (app.ts).
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** An app at this level writing its lines into an array, with a route that fails. */
async function appAt(logLevel: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new PassThrough();
  stream.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  const { app } = await buildApp({ ...t.runtime.deps, config: { ...t.config, logLevel } }, { logStream: stream });
  app.get('/boom', async () => {
    throw new Error('kaboom');
  });
  return { app, lines };
}

const lookup = '/api/v1/pages/lookup?url=https%3A%2F%2Fnothing.example%2Fa';
const headers = { 'user-agent': 'ReaderBrowser/1.0', 'x-request-id': 'trace-42' };

describe('log lines', () => {
  it('at info: one access line per request, with exactly its id, method, path, status and duration', async () => {
    const { app, lines } = await appAt('info');
    const res = await app.inject({ method: 'GET', url: lookup, headers, remoteAddress: '198.51.100.23' });
    await app.close();
    const access = lines.filter((l) => l.msg === 'request');
    expect(access).toHaveLength(1);
    const { level, time, pid, hostname, ms, ...rest } = access[0]!;
    expect({ level, pid, hostname: typeof hostname, time: typeof time, ms: typeof ms }).toMatchObject({ level: 30, pid: process.pid, hostname: 'string', time: 'number', ms: 'number' });
    expect(rest).toEqual({ reqId: 'trace-42', method: 'GET', path: '/api/v1/pages/lookup', status: res.statusCode, msg: 'request' });
    const all = JSON.stringify(lines);
    expect(all).not.toContain('198.51.100.23');
    expect(all).not.toContain('ReaderBrowser');
    expect(all).not.toContain('nothing.example');
  });

  it('above info: no access line, but a failure is logged with its request id', async () => {
    const { app, lines } = await appAt('warn');
    expect((await app.inject({ method: 'GET', url: lookup, headers })).statusCode).toBe(200);
    const res = await app.inject({ method: 'GET', url: '/boom', headers });
    await app.close();
    expect(res.statusCode).toBe(500);
    expect(lines.filter((l) => l.msg === 'request')).toEqual([]);
    expect(lines.filter((l) => l.msg === 'request failed').map((l) => l.reqId)).toEqual(['trace-42']);
  });

  it('silent: nothing is written, and answers are unchanged (request id included)', async () => {
    const { app, lines } = await appAt('silent');
    const ok = await app.inject({ method: 'GET', url: lookup, headers });
    const failed = await app.inject({ method: 'GET', url: '/boom' });
    await app.close();
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-request-id']).toBe('trace-42');
    expect(failed.statusCode).toBe(500);
    expect(JSON.parse(failed.body).error.message).toContain(String(failed.headers['x-request-id']));
    expect(lines).toEqual([]);
  });
});
