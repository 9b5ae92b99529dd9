#!/usr/bin/env node
// `npm start`'s prestart: compile the TypeScript only when a source changed since the last build. Even an
// incremental `tsc` takes seconds to find that nothing changed; comparing modification times takes milliseconds.
// The stamp is written after a successful build, so a failed one is tried again on the next start.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];

function newest(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs; // a deleted or renamed file changes its folder's time
  for (const e of fs.readdirSync(p)) max = Math.max(max, newest(path.join(p, e)));
  return max;
}

const built = fs.existsSync(stamp) && fs.existsSync(path.join(root, 'dist', 'main.js')) ? fs.statSync(stamp).mtimeMs : 0;
const changed = Math.max(...inputs.map((i) => newest(path.join(root, i))));
if (built > changed && process.argv[2] !== '--force') process.exit(0);

console.error('credence: compiling the TypeScript (sources changed since the last build)…');
const r = spawnSync('tsc', ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
if (r.status !== 0) process.exit(r.status ?? 1);
fs.writeFileSync(stamp, `${new Date().toISOString()}\n`);
