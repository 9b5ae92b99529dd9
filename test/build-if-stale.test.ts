// `npm start`'s prestart compiles only when a source changed: a fresh clone, built by `npm ci`'s prepare (which may
// write the lockfile again, unchanged, afterwards), starts without compiling or saying so.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-build-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// A stand-in `tsc` on the PATH: writes dist/main.js and counts its runs.
fs.mkdirSync(path.join(tmp, 'bin'));
fs.writeFileSync(path.join(tmp, 'bin', 'tsc'), `#!/bin/sh\nmkdir -p dist && echo run >> ${tmp}/runs && echo '' > dist/main.js\n`, { mode: 0o755 });
fs.mkdirSync(path.join(tmp, 'scripts'));
fs.copyFileSync(path.join(import.meta.dirname, '..', 'scripts', 'build-if-stale.mjs'), path.join(tmp, 'scripts', 'build-if-stale.mjs'));
fs.mkdirSync(path.join(tmp, 'src'));
fs.writeFileSync(path.join(tmp, 'src', 'main.ts'), 'export {};\n');
for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) fs.writeFileSync(path.join(tmp, f), '{}\n');

const run = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(tmp, 'scripts', 'build-if-stale.mjs'), ...args], { cwd: tmp, env: { ...process.env, PATH: `${tmp}/bin:${process.env.PATH}` }, encoding: 'utf8' });
const runs = () => (fs.existsSync(path.join(tmp, 'runs')) ? fs.readFileSync(path.join(tmp, 'runs'), 'utf8').trim().split('\n').length : 0);

describe('build-if-stale', () => {
  it('says nothing after the prepare build, even when npm writes the lockfile again unchanged', async () => {
    expect(run('--force').status).toBe(0);
    expect(runs()).toBe(1);
    await new Promise((r) => setTimeout(r, 20));
    fs.writeFileSync(path.join(tmp, 'package-lock.json'), '{}\n');
    const start = run();
    expect(start.status).toBe(0);
    expect(start.stderr).toBe('');
    expect(runs()).toBe(1);
  });

  it('compiles when a source or a dependency changed, and says which', async () => {
    await new Promise((r) => setTimeout(r, 20));
    fs.writeFileSync(path.join(tmp, 'src', 'main.ts'), 'export const x = 1;\n');
    expect(run().stderr).toContain('sources changed since the last build');
    expect(runs()).toBe(2);
    fs.writeFileSync(path.join(tmp, 'package-lock.json'), '{"changed":true}\n');
    expect(run().stderr).toContain('dependencies changed since the last build');
    expect(runs()).toBe(3);
    expect(run().stderr).toBe('');
  });
});
