// The few lines in docs/transparency.md that check one inclusion proof with Node's own crypto really do: run as
// written (only the address changed) against a real log, with nothing of the project's code.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { startTestApp, type TestApp } from '../harness.js';
import { addChanges } from './changes.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  await addChanges(t.runtime.deps.db, 57);
  await integrate(t.runtime.deps);
});
afterAll(async () => t?.close());

it('docs/transparency.md: the Node snippet verifies an entry', async () => {
  const doc = fs.readFileSync(path.resolve('docs/transparency.md'), 'utf8');
  const snippet = /```js\n([\s\S]*?)```/.exec(doc)![1]!.replace("'https://credence.example/v1/log'", `'${t.baseUrl}/v1/log'`);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'credence-snippet-')), 'check.mjs');
  fs.writeFileSync(file, snippet);
  const { stdout } = await promisify(execFile)(process.execPath, [file], { timeout: 30_000 });
  expect(stdout.trim()).toBe('entry 41 is in the signed log of 57');
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
});
