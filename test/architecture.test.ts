// The layering of STYLE habit 7, kept by a test rather than by memory: nothing under src/domain imports http/,
// surfaces/ or jobs/ (arrows point down only), and no module imports itself back through another. Tests beside the
// code are left out: they may drive a rule through the layers above it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

// `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`; type-only imports count too, since
// they tie the lower layer's code to the upper one's shapes all the same.
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): { spec: string; resolved: string | null; typeOnly: boolean }[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: { spec: string; resolved: string | null; typeOnly: boolean }[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    const typeOnly = /^\s*(?:import|export)\s+type\s/.test(m[0]);
    const resolved = spec.startsWith('.') ? path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts') : null;
    out.push({ spec, resolved, typeOnly });
  }
  return out;
}

const files = sourceFiles(SRC);
const rel = (f: string) => path.relative(SRC, f).split(path.sep).join('/');

describe('layering', () => {
  it('finds the source files and their imports', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(importsOf(path.join(SRC, 'app.ts')).length).toBeGreaterThan(3);
  });

  it('keeps src/domain free of http/, surfaces/ and jobs/', () => {
    const upward = files
      .filter((f) => rel(f).startsWith('domain/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => i.resolved && /^(http|surfaces|jobs)\//.test(rel(i.resolved)))
          .map((i) => `${rel(f)} imports ${i.spec}`),
      );
    expect(upward).toEqual([]);
  });

  it('has no import cycle among modules (type-only imports aside)', () => {
    const graph = new Map(
      files.map((f) => [
        rel(f),
        importsOf(f)
          .filter((i) => i.resolved && !i.typeOnly && fs.existsSync(i.resolved))
          .map((i) => rel(i.resolved!)),
      ]),
    );
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (node: string) => {
      state.set(node, 'open');
      stack.push(node);
      for (const next of graph.get(node) ?? []) {
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(node, 'done');
    };
    for (const node of graph.keys()) if (!state.has(node)) visit(node);
    expect(cycles).toEqual([]);
  });
});
