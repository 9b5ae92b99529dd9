#!/usr/bin/env node
// `npm start`'s prestart: compile the TypeScript only when a source changed since the last build. Even an
// incremental `tsc` takes seconds to find that nothing changed; comparing modification times takes milliseconds.
// The stamp is written after a successful build, so a failed one is tried again on the next start.
// package.json and package-lock.json count by their content, not their time: `npm ci` and `npm install` build in
// `prepare` and may then write the lockfile again, unchanged, which must not make a fresh clone's first start compile.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json'];
const manifests = ['package.json', 'package-lock.json'];

function manifestsHash() {
  const h = createHash('sha256');
  for (const m of manifests) {
    try {
      h.update(fs.readFileSync(path.join(root, m)));
    } catch {
      h.update('absent');
    }
    h.update('\0');
  }
  return h.digest('hex');
}

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
const hash = manifestsHash();
const sameManifests = built > 0 && fs.readFileSync(stamp, 'utf8').includes(hash);
if (built > changed && sameManifests && process.argv[2] !== '--force') process.exit(0);

if (process.argv[2] !== '--force') {
  const why = built === 0 ? 'no build yet' : sameManifests ? 'sources changed since the last build' : 'dependencies changed since the last build';
  console.error(`credence: compiling the TypeScript (${why})…`);
}
const r = spawnSync('tsc', ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
if (r.status !== 0) process.exit(r.status ?? 1);
fs.writeFileSync(stamp, `${new Date().toISOString()}\n${hash}\n`);
