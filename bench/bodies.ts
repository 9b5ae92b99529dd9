// `npx tsx bench/bodies.ts`: what reading a request body costs before anything is built from it: the
// one-pass count of keys, items and nesting (http/bodies.ts) beside JSON.parse of the same text, on the largest body
// a route takes and on the hostile ones the issue found. In-process, no server: the figures are the scan's own.
import { parseForm, scanJson } from '../src/http/bodies.js';

function time(label: string, f: () => unknown, runs: number): void {
  f();
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) f();
  const ms = Number(process.hrtime.bigint() - started) / runs / 1e6;
  console.log(`${label.padEnd(58)} ${ms.toFixed(3)} ms`);
}

const pages = JSON.stringify(
  Array.from({ length: 500 }, (_, i) => ({ url: `https://e.example/p/${i}`, title: `Page ${i}`, topic: 'health', authors: ['a', 'b'], text: 'word '.repeat(2000) })),
);
const correction = JSON.stringify({ summary: 'x', evidence: { before: 'é'.repeat(20_000), after: 'y'.repeat(20_000), reason: 'z'.repeat(5_000), sources: [] } });
const keys = `{${Array.from({ length: 300_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;

time(`scan: 500 pages with their text (${(pages.length / 1e6).toFixed(1)} MB)`, () => scanJson(pages, 25_000), 50);
time('JSON.parse of the same', () => JSON.parse(pages), 50);
time(`scan: a correction at its limits (${Math.round(correction.length / 1e3)} KB)`, () => scanJson(correction, 2_000), 500);
time('scan: 300,000 keys, refused at 2,000', () => scanJson(keys, 2_000), 500);
time('scan: an array 1,000,000 deep, refused at 33', () => scanJson(deep, 25_000), 500);
time('form: 2,000 repeated fields, parsed', () => parseForm('a=&'.repeat(2_000), 2_000), 500);
time('form: 40,000 repeated fields, refused at 2,000', () => parseForm('a=&'.repeat(40_000), 2_000), 500);
