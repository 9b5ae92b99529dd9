// HTML for the server-rendered pages: a tagged template that escapes every interpolated value unless it is
// already safe HTML (another `html` fragment or `raw()`), so a page cannot forget to escape.
import { escapeHtml } from '../html.js';
import { jsonLdScript } from '../linked-data/schema-org.js';

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = SafeHtml | string | number | boolean | null | undefined | Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(part);
}

export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Trusted markup only (never user input). */
export const raw = (markup: string) => new SafeHtml(markup);

/** JSON-LD inside <script>: escaped so no value can close the script element (linked-data/schema-org.ts). */
export const jsonLd = (data: unknown) => raw(jsonLdScript(data));
