// The few lines in docs/transparency.md that check one inclusion proof, and one entry's commitments, with
// Node's own crypto really do: run as written (only the address changed) against a real log, with nothing of the
// project's code.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { startTestApp, type TestApp } from '../harness.js';
import { addChanges } from './changes.js';
import { signup } from '../factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  // Entry 0 names a person (a commitment and its opening); the others are plain.
  await signup(t, { name: 'Snippet Person' });
  await addChanges(t.runtime.deps.db, 57);
  await integrate(t.runtime.deps);
});
afterAll(async () => t?.close());

async function run(marker: string): Promise<string> {
  const doc = fs.readFileSync(path.resolve('docs/transparency.md'), 'utf8');
  const block = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes(marker))!;
  const snippet = block.replace("'https://credence.example/v1/log'", `'${t.baseUrl}/v1/log'`);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'credence-snippet-')), 'check.mjs');
  fs.writeFileSync(file, snippet);
  try {
    return (await promisify(execFile)(process.execPath, [file], { timeout: 30_000 })).stdout.trim();
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

it('docs/transparency.md: the Node snippet verifies an entry', async () => {
  expect(await run('proof/inclusion')).toBe('entry 41 is in the signed log of 58');
});

it('docs/transparency.md: the Node snippet opens an entry’s commitment', async () => {
  const out = await run('createHmac');
  expect(out).toMatch(/^\/contributor opens to \{/);
  expect(out).toContain('Snippet Person');
});
