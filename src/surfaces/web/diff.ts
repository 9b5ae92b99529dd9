// A word-level diff of two texts for proofs and corrections: what was removed (<del>) and what was added (<ins>).
// Pure, escaped through the `html` template, and bounded: past a size where a full comparison would cost too much
// time and memory, the differing middle is shown as one removal and one addition.
import { html, type SafeHtml } from './html.js';

export type DiffPart = { op: 'same' | 'del' | 'ins'; text: string };

/** Words, runs of whitespace, and single punctuation marks: a change to a comma does not mark the whole word. */
export const tokenize = (text: string): string[] => text.match(/\s+|[\p{L}\p{N}_'’-]+|[^\s\p{L}\p{N}_'’-]/gu) ?? [];

/** Largest table (tokens × tokens) compared in full; 20,000-character evidence stays well inside it after trimming. */
const MAX_CELLS = 4_000_000;

export function wordDiff(before: string, after: string): DiffPart[] {
  const a = tokenize(before);
  const b = tokenize(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const parts: DiffPart[] = [];
  push(parts, 'same', a.slice(0, start).join(''));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if (midA.length * midB.length > MAX_CELLS) {
    push(parts, 'del', midA.join(''));
    push(parts, 'ins', midB.join(''));
  } else {
    for (const p of lcsDiff(midA, midB)) push(parts, p.op, p.text);
  }
  push(parts, 'same', a.slice(endA).join(''));
  return readable(parts);
}

function push(parts: DiffPart[], op: DiffPart['op'], text: string): void {
  if (text === '') return;
  const last = parts[parts.length - 1];
  if (last && last.op === op) last.text += text;
  else parts.push({ op, text });
}

/** The classic longest-common-subsequence table, walked back from the end. */
function lcsDiff(a: string[], b: string[]): DiffPart[] {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? table[(i + 1) * width + j + 1]! + 1 : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  const out: DiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      push(out, 'same', a[i]!);
      i++;
      j++;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) {
      push(out, 'del', a[i++]!);
    } else {
      push(out, 'ins', b[j++]!);
    }
  }
  while (i < n) push(out, 'del', a[i++]!);
  while (j < m) push(out, 'ins', b[j++]!);
  return out;
}

/**
 * Reads as phrases, not confetti: whitespace or punctuation alone between two changes joins them, so "the quick brown" →
 * "a slow brown" shows `<del>the quick</del><ins>a slow</ins>` rather than alternating words. Each run of changes
 * shows its removal before its addition.
 */
function readable(parts: DiffPart[]): DiffPart[] {
  const out: DiffPart[] = [];
  let del = '';
  let ins = '';
  const flush = () => {
    if (del) out.push({ op: 'del', text: del });
    if (ins) out.push({ op: 'ins', text: ins });
    del = ins = '';
  };
  parts.forEach((p, k) => {
    const inRun = del !== '' || ins !== '';
    const next = parts[k + 1];
    if (p.op === 'del') del += p.text;
    else if (p.op === 'ins') ins += p.text;
    else if (inRun && next && next.op !== 'same' && !/[\p{L}\p{N}]/u.test(p.text)) {
      del += p.text;
      ins += p.text;
    } else {
      flush();
      out.push({ ...p });
    }
  });
  flush();
  return slideToWords(out);
}

/**
 * A lone addition or removal that the comparison anchored on a space (`districts,<ins> health</ins> officials`) is
 * slid right to start at the word (`districts, <ins>health </ins>officials`): the same change, easier to read.
 */
function slideToWords(parts: DiffPart[]): DiffPart[] {
  for (let k = 0; k < parts.length; k++) {
    const change = parts[k]!;
    const prev = parts[k - 1];
    const next = parts[k + 1];
    if (change.op === 'same' || !next || next.op !== 'same' || (prev && prev.op !== 'same')) continue;
    let slid = '';
    while (/^\s/.test(change.text) && next.text.startsWith(change.text[0]!)) {
      const c = change.text[0]!;
      slid += c;
      change.text = change.text.slice(1) + c;
      next.text = next.text.slice(1);
    }
    if (slid === '') continue;
    if (prev) prev.text += slid;
    else {
      parts.splice(k, 0, { op: 'same', text: slid });
      k++;
    }
    if (next.text === '') parts.splice(k + 1, 1);
  }
  return parts;
}

/**
 * The diff as HTML: every piece of text escaped, removals in <del>, additions in <ins>. A lone change keeps the
 * spaces at its ends outside its tag, so an underline or strike-through covers words only.
 */
export function renderDiff(before: string, after: string): SafeHtml {
  const parts = wordDiff(before, after);
  return html`${parts.map((p, k) => {
    if (p.op === 'same') return html`${p.text}`;
    const lone = parts[k - 1]?.op !== (p.op === 'del' ? 'ins' : 'del') && parts[k + 1]?.op !== (p.op === 'del' ? 'ins' : 'del');
    const [, lead = '', core = '', trail = ''] = lone ? /^(\s*)([\s\S]*?)(\s*)$/.exec(p.text)! : [p.text, '', p.text, ''];
    if (core === '') return p.op === 'del' ? html`<del>${p.text}</del>` : html`<ins>${p.text}</ins>`;
    return html`${lead}${p.op === 'del' ? html`<del>${core}</del>` : html`<ins>${core}</ins>`}${trail}`;
  })}`;
}
