// `credence log:verify --transparency`: the DSA counts (Art. 15, 24) recounted by anyone from the log alone. Every
// `moderation.decided` entry is read from the entry bundles (the static files whose bytes `log:verify` has just
// rebuilt the signed root from), grouped into half-years by its decision's date, counted by the same function the
// service counts with (countDecisions), and compared with what /v1/transparency publishes for each half-year. A
// count the service publishes that the log does not back is a failure. docs/trust-and-safety.md.
import { countDecisions, type TransparencyCounts } from '../domain/moderation/transparency.js';
import { TileReader } from './tile-reader.js';

export class RecountFailure extends Error {}

export interface RecountOptions {
  url: string;
  /** The verified checkpoint's size: the entries to read. */
  size: number;
  fetch?: typeof fetch;
  out?: (line: string) => void;
}

/** The half-year an instant falls in: `2026-H2`. */
export const periodOf = (iso: string): string => `${iso.slice(0, 4)}-H${Number(iso.slice(5, 7)) <= 6 ? 1 : 2}`;

/** Stable text of a count object (keys sorted at every level), so two answers compare by content. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The paths of the counts where two answers differ, e.g. `reports.by_source.anonymous: log 2, published 3`. */
function differences(a: unknown, b: unknown, at = ''): string[] {
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].sort().flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], at ? `${at}.${k}` : k));
  }
  return canonical(a) === canonical(b) ? [] : [`${at}: log ${canonical(a ?? 0)}, published ${canonical(b ?? 0)}`];
}

/**
 * Recount every half-year that has decision entries and compare with the service's published counts; returns the
 * recounts. Throws RecountFailure naming each count that differs.
 */
export async function recountTransparency(opts: RecountOptions): Promise<TransparencyCounts[]> {
  const out = opts.out ?? ((l: string) => console.log(l));
  const doFetch = opts.fetch ?? fetch;
  const base = opts.url.replace(/\/+$/, '');
  const get = async (path: string, accept: string): Promise<Buffer> => {
    for (let attempt = 0; ; attempt++) {
      const res = await doFetch(`${base}${path}`, { headers: { accept } });
      if (res.status === 429 && attempt < 20) {
        await new Promise((r) => setTimeout(r, Math.max(1, Number(res.headers.get('retry-after') ?? '1')) * 1000));
        continue;
      }
      const bytes = Buffer.from(await res.arrayBuffer());
      if (!res.ok) throw new RecountFailure(`GET ${path} answered ${res.status}: ${bytes.toString('utf8').slice(0, 200)}`);
      return bytes;
    }
  };
  const tiles = new TileReader((p) => get(`/v1/log/${p}`, 'application/octet-stream'), opts.size);

  const byPeriod = new Map<string, string[]>();
  for (let b = 0; b * 256 < opts.size; b++) {
    for (const bytes of await tiles.bundle(b)) {
      const text = bytes.toString('utf8');
      // Cheap test first: most entries are not decisions.
      if (!text.includes('"moderation.decided"')) continue;
      const body = JSON.parse(text) as { kind?: string; decision?: { decided_at?: string } };
      if (body.kind !== 'moderation.decided' || typeof body.decision?.decided_at !== 'string') continue;
      const period = periodOf(body.decision.decided_at);
      byPeriod.set(period, [...(byPeriod.get(period) ?? []), text]);
    }
  }

  const recounts: TransparencyCounts[] = [];
  const failures: string[] = [];
  for (const period of [...byPeriod.keys()].sort()) {
    const recount = countDecisions(period, byPeriod.get(period)!);
    const published = JSON.parse((await get(`/v1/transparency?period=${period}`, 'application/json')).toString('utf8')) as unknown;
    const diff = differences(recount, published);
    if (diff.length > 0) failures.push(`${period}: ${diff.join('; ')}`);
    else out(`transparency ${period}: ${recount.entries} decision entries; ${recount.reports.total} reports, ${recount.decisions.total} decisions, ${recount.appeals.decided} appeals decided: the published counts match`);
    recounts.push(recount);
  }
  if (byPeriod.size === 0) out('transparency: the log holds no decision entries');
  if (failures.length > 0) throw new RecountFailure(`the published transparency counts differ from a recount of the log: ${failures.join(' | ')}`);
  return recounts;
}
