// Reads a V8 .cpuprofile (written by `npm run bench -- --cpu-prof`) and says where the time went: self time by
// function and by package (or by src/ file), the two views that usually name a bottleneck.
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  byFunction: { name: string; ms: number; share: number }[];
  byPackage: { name: string; ms: number; share: number }[];
}

/** Where a function lives: an npm package, a file of ours, node's own code, or V8 (GC, idle, program). */
function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : `(${functionName || 'native'})`;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  return url.replace(/^file:\/\//, '');
}

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const fns = new Map<string, number>();
  const pkgs = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    // Idle time is the event loop waiting for work, not cost.
    if (functionName === '(idle)') continue;
    const pkg = packageOf(url, functionName);
    total += us;
    const name = `${functionName || '(anonymous)'} ${pkg}${url ? `:${lineNumber + 1}` : ''}`;
    fns.set(name, (fns.get(name) ?? 0) + us);
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
  }
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: us / total }));
  return { totalMs: total / 1000, byFunction: rank(fns), byPackage: rank(pkgs) };
}

export function formatProfile(s: ProfileSummary): string {
  const line = (r: { name: string; ms: number; share: number }) =>
    `${(r.share * 100).toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.name}`;
  return [
    `busy CPU time (idle excluded): ${s.totalMs.toFixed(0)} ms`,
    '',
    'self time by package or file:',
    ...s.byPackage.map(line),
    '',
    'self time by function:',
    ...s.byFunction.map(line),
  ].join('\n');
}

// `tsx bench/profile.ts FILE.cpuprofile`: summarize a profile from an earlier run.
if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: tsx bench/profile.ts FILE.cpuprofile');
    process.exit(2);
  }
  console.log(formatProfile(summarizeProfile(file)));
}
