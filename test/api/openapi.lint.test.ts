// Both OpenAPI documents, as the service serves them, pass Redocly CLI's `recommended` rules (redocly.yaml) with no
// error and no warning: operationIds, security on every operation, documented 4xx answers, safe descriptions.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { type TestApp, startTestApp } from '../harness.js';

const run = promisify(execFile);
const REDOCLY = path.resolve('node_modules/.bin/redocly');
let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await startTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-openapi-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await t.close();
});

describe('the OpenAPI documents', () => {
  it.each(['/v1/openapi.json', '/api/v1/openapi.json'])('%s passes Redocly recommended with no problem', async (url) => {
    const doc = await new Client(t.baseUrl).get(url);
    expect(doc.status).toBe(200);
    const file = path.join(dir, `${url.split('/')[1]}.json`);
    fs.writeFileSync(file, doc.text);
    const r = await run(REDOCLY, ['lint', '--config', path.resolve('redocly.yaml'), '--format', 'stylish', '--max-problems', '500', file], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((err: { stdout: string; stderr: string }) => ({ stdout: err.stdout, stderr: `${err.stderr}\nexit: failed` }));
    const problems = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => /\b(error|warning)\b/.test(l) && !/Deprecation|Node\.js/.test(l));
    expect(problems).toEqual([]);
    expect(r.stderr).not.toContain('exit: failed');
  }, 120_000);

  it('documents every error an operation can answer, with the codes as an enum', async () => {
    const api = (await new Client(t.baseUrl).get('/api/v1/openapi.json')).body;
    expect(api.components.schemas.Error.properties.error.properties.code.enum).toContain('rate_limited');
    const create = api.paths['/account/api-keys'].post;
    expect(create.operationId).toBe('postAccountApiKeys');
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '413', '415', '429', '431']));
    expect(create.responses['201'].headers).toHaveProperty('X-Request-Id');
    expect(create.responses['201'].headers).toHaveProperty('RateLimit');
    expect(api.components.responses.TooManyRequests.headers).toHaveProperty('Retry-After');
    expect(api.paths['/pages/lookup'].get.security).toEqual([{}, { bearer: [] }, { apiKeyHeader: [] }]);
  });
});
