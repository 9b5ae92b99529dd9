// Reads a V8 .cpuprofile (written by `npm run bench -- --cpu-prof`) and says where the time went: self time by
// function and by package (or by src/ file), the two views that usually name a bottleneck.
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
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

/**
 * The longest stretches in which the event loop never went idle (what stalls every other request), longest first,
 * each with where its time went: self time by function, and by the innermost frame of ours (src/) on each stack, which
 * names the step of the request that held the loop.
 */
export function longestBusy(file: string, stretches = 3, top = 8, windows?: [number, number][]): { ms: number; byFunction: [string, number][]; byOurs: [string, number][] }[] {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${packageOf(n.callFrame.url, n.callFrame.functionName)}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
  const ours = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = byId.get(at)!;
      if (n.callFrame.url.includes('/src/')) return name(n);
    }
    return '(none of ours)';
  };
  const runs: { start: number; end: number; us: number }[] = [];
  if (windows) {
    // Stalls measured by the process itself (monotonic µs, the clock of the profile's startTime and samples).
    const at: number[] = [];
    let t = (profile as unknown as { startTime: number }).startTime;
    for (const d of profile.timeDeltas) at.push((t += d));
    for (const [from, to] of windows) {
      const s = at.findIndex((x) => x >= from);
      let e = at.findIndex((x) => x > to);
      if (s < 0) continue;
      if (e < 0) e = at.length;
      // Ranked by the CPU the process spent in it: on a busy machine a stall can also be time the process was not
      // scheduled at all (idle samples), which no change to the code removes.
      let busy = 0;
      for (let i = s; i < e; i++) if (byId.get(profile.samples[i]!)!.callFrame.functionName !== '(idle)') busy += profile.timeDeltas[i + 1] ?? 0;
      runs.push({ start: s, end: e, us: busy });
    }
  }
  let start = -1;
  let us = 0;
  if (!windows) profile.samples.forEach((id, i) => {
    const idle = byId.get(id)!.callFrame.functionName === '(idle)';
    if (idle) {
      if (start >= 0) runs.push({ start, end: i, us });
      start = -1;
      us = 0;
    } else {
      if (start < 0) start = i;
      us += profile.timeDeltas[i + 1] ?? 0;
    }
  });
  if (start >= 0) runs.push({ start, end: profile.samples.length, us });
  return runs
    .sort((a, b) => b.us - a.us)
    .slice(0, stretches)
    .map((r) => {
      const fns = new Map<string, number>();
      const mine = new Map<string, number>();
      for (let i = r.start; i < r.end; i++) {
        const id = profile.samples[i]!;
        const d = profile.timeDeltas[i + 1] ?? 0;
        const f = name(byId.get(id)!);
        fns.set(f, (fns.get(f) ?? 0) + d);
        const o = ours(id);
        mine.set(o, (mine.get(o) ?? 0) + d);
      }
      const rank = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, v]) => [k, v / 1000] as [string, number]);
      return { ms: r.us / 1000, byFunction: rank(fns), byOurs: rank(mine) };
    });
}

export function formatBusy(runs: ReturnType<typeof longestBusy>): string {
  return runs
    .map((r, i) =>
      [
        `busy stretch ${i + 1}: ${r.ms.toFixed(1)} ms of CPU without the loop turning`,
        '  by function:',
        ...r.byFunction.map(([k, v]) => `    ${v.toFixed(1).padStart(7)} ms  ${k}`),
        '  by the innermost frame of ours:',
        ...r.byOurs.map(([k, v]) => `    ${v.toFixed(1).padStart(7)} ms  ${k}`),
      ].join('\n'),
    )
    .join('\n');
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
