// The read-path benchmarks load the service as users run it: the compiled JavaScript in dist/ (what `npm start` and
// `credence serve` run), rebuilt first when a source changed. Not tsx's on-the-fly transform: it keeps function
// names by wrapping each closure in a helper (`__name`) every time one is created, 2-3% of a cache miss's CPU that
// the deployed service never pays (docs/performance.md).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let built = false;

/** Compile the service if a source changed since the last build (a parent calls it before forking targets). */
export function ensureBuilt(): void {
  if (built) return;
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-if-stale.mjs')], { cwd: ROOT, stdio: 'inherit' });
  built = true;
}

/** A module of the service (a path under src/, without the extension), from the compiled build. */
export async function compiled<T>(module: string): Promise<T> {
  ensureBuilt();
  return (await import(pathToFileURL(path.join(ROOT, 'dist', `${module}.js`)).href)) as T;
}
