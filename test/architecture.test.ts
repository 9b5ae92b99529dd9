// The layering of docs/ARCHITECTURE.md (STYLE habit 7: arrows point down only, no import circles) is kept by
// dependency-cruiser under `npm run lint`, with the rules of .dependency-cruiser.cjs. These tests show the rules
// bite: the source tree passes them, and a small tree with one import that reaches up, or closes a circle, fails.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');

interface Outcome {
  ok: boolean;
  rules: string[];
  output: string;
}

/**
 * Runs depcruise over `src` in `cwd` with the project's rules, as `npm run lint` does: whether it exited 0, and the
 * names of the rules broken (from its `error <rule>: …` lines).
 */
async function cruise(cwd: string): Promise<Outcome> {
  const args = ['src', '--config', CONFIG];
  const run = promisify(execFile)(DEPCRUISE, args, { cwd, maxBuffer: 64 * 1024 * 1024 });
  const { output, ok } = await run.then(
    (r) => ({ output: r.stdout, ok: true }),
    (e: { stdout?: string }) => ({ output: e.stdout ?? '', ok: false }),
  );
  const rules = [...new Set([...output.matchAll(/^\s*error ([\w-]+):/gm)].map((m) => m[1]!))].sort();
  return { ok, rules, output };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A throwaway tree: `files` maps a path under it to the module's text. */
function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-layers-'));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

const LOW = 'export const low = 1;\n';

describe('layering (dependency-cruiser)', () => {
  it('passes on the source tree', async () => {
    const r = await cruise(ROOT);
    expect(r.rules).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it('passes on a tree whose imports point down', async () => {
    const r = await cruise(
      tree({
        'src/db/schema.ts': LOW,
        'src/domain/rule.ts': "import { low } from '../db/schema.js';\nexport const rule = low;\n",
        'src/http/errors.ts': "import { rule } from '../domain/rule.js';\nexport const e = rule;\n",
      }),
    );
    expect(r.rules).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it('fails on the domain importing http/', async () => {
    const r = await cruise(
      tree({
        'src/http/errors.ts': LOW,
        'src/domain/rule.ts': "import { low } from '../http/errors.js';\nexport const rule = low;\n",
      }),
    );
    expect(r.ok).toBe(false);
    expect(r.rules).toEqual(['domain-below-http']);
  });

  it('fails on db/ importing the domain, even for a type', async () => {
    const r = await cruise(
      tree({
        'src/domain/vocabulary.ts': "export type Kind = 'a' | 'b';\n",
        'src/db/schema.ts': "import type { Kind } from '../domain/vocabulary.js';\nexport type Row = { kind: Kind };\n",
      }),
    );
    expect(r.ok).toBe(false);
    expect(r.rules).toEqual(['db-at-the-bottom']);
  });

  it('fails on a surface importing a job', async () => {
    const r = await cruise(
      tree({
        'src/jobs/relay.ts': LOW,
        'src/surfaces/web/page.ts': "import { low } from '../../jobs/relay.js';\nexport const page = low;\n",
      }),
    );
    expect(r.ok).toBe(false);
    expect(r.rules).toEqual(['surfaces-below-processes']);
  });

  it('fails on an import circle within one layer', async () => {
    const r = await cruise(
      tree({
        'src/http/bodies.ts': "import type { Config } from './route-config.js';\nexport type Body = Config['body'];\n",
        'src/http/route-config.ts': "import type { Body } from './bodies.js';\nexport interface Config { body?: 'small'; other?: Body }\n",
      }),
    );
    expect(r.ok).toBe(false);
    expect(r.rules).toEqual(['no-circular']);
  });
});
