// Catalog messages as plain JavaScript, for a page that must not carry the formatting library: the browser extension
// (docs/decisions/message-catalogs.md). The library's own parser reads each message at build time; what it yields is
// written out as a function over the browser's Intl.PluralRules and Intl.NumberFormat. Only the forms the catalog uses
// are written (text, placeholders, plain numbers, plurals, selects); any other fails the build, never the reader.
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';

export class CompileError extends Error {}

const str = (s: string) => JSON.stringify(s);

function expression(ast: MessageFormatElement[], lang: string, id: string, pound: string | null): string {
  const parts = ast.map((el): string => {
    switch (el.type) {
      case TYPE.literal:
        return str(el.value);
      case TYPE.argument:
        return `String(v[${str(el.value)}] ?? '')`;
      case TYPE.number:
        if (el.style) throw new CompileError(`${id}: number styles are not compiled`);
        return `nf(v[${str(el.value)}])`;
      case TYPE.pound:
        if (pound === null) throw new CompileError(`${id}: # outside a plural`);
        return `nf(${pound})`;
      case TYPE.select: {
        const branches = Object.entries(el.options).filter(([k]) => k !== 'other');
        const other = el.options.other;
        if (!other) throw new CompileError(`${id}: a select needs an other branch`);
        const chosen = `v[${str(el.value)}]`;
        return branches.reduceRight(
          (rest, [key, option]) => `(String(${chosen}) === ${str(key)} ? ${expression(option.value, lang, id, pound)} : ${rest})`,
          `(${expression(other.value, lang, id, pound)})`,
        );
      }
      case TYPE.plural: {
        if (el.offset !== 0 || el.pluralType !== 'cardinal') throw new CompileError(`${id}: only cardinal plurals without offset are compiled`);
        const n = `Number(v[${str(el.value)}])`;
        const other = el.options.other;
        if (!other) throw new CompileError(`${id}: a plural needs an other branch`);
        const branches = Object.entries(el.options).filter(([k]) => k !== 'other');
        return branches.reduceRight((rest, [key, option]) => {
          const test = key.startsWith('=') ? `${n} === ${Number(key.slice(1))}` : `pr(${n}) === ${str(key)}`;
          return `(${test} ? ${expression(option.value, lang, id, n)} : ${rest})`;
        }, `(${expression(other.value, lang, id, n)})`);
      }
      default:
        throw new CompileError(`${id}: this kind of placeholder is not compiled`);
    }
  });
  return parts.length ? parts.join(' + ') : "''";
}

/**
 * One language's messages as the source of a JavaScript object literal: a message without placeholders is its text,
 * any other a function of one object of values. `pr` and `nf` are the language's plural rules and number format,
 * declared by `compileCatalog`.
 */
function entries(messages: Record<string, string>, lang: string): string {
  return Object.entries(messages)
    .map(([id, source]) => {
      const ast = parse(source, { requiresOtherClause: true });
      const plain = ast.every((el) => el.type === TYPE.literal);
      const value = plain ? str(ast.map((el) => (el.type === TYPE.literal ? el.value : '')).join('')) : `function (v) { v = v || {}; return ${expression(ast, lang, id, null)}; }`;
      return `  ${str(id)}: ${value}`;
    })
    .join(',\n');
}

/** A script assigning `root[name][lang]` the compiled messages of each language. */
export function compileCatalog(name: string, catalogs: Record<string, Record<string, string>>): string {
  const langs = Object.entries(catalogs).map(
    ([lang, messages]) =>
      `${str(lang)}: (function () {\n  var pr = (function (r) { return function (n) { return r.select(n); }; })(new Intl.PluralRules(${str(lang)}));\n  var nf = (function (f) { return function (n) { return f.format(Number(n)); }; })(new Intl.NumberFormat(${str(lang)}));\n  return {\n${entries(messages, lang)}\n  };\n})()`,
  );
  return `self.${name} = {\n${langs.join(',\n')}\n};\n`;
}
