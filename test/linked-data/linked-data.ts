// Offline JSON-LD for tests: the schema.org context (release 30.0) and the Web Annotation context are shipped in
// test/fixtures/linked-data, and a document loader serves them; any other URL is an error, so nothing is fetched.
import fs from 'node:fs';
import jsonld from 'jsonld';
import type { Ajv, ValidateFunction } from 'ajv';
import Ajv04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';

// Both are CommonJS modules whose default export is the module object under Node's ESM loader.
const Ajv04 = ((Ajv04Module as unknown as { default?: typeof Ajv04Module }).default ?? Ajv04Module) as unknown as new (o: object) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const dir = new URL('../fixtures/linked-data/', import.meta.url);
const read = (name: string) => JSON.parse(fs.readFileSync(new URL(name, dir), 'utf8')) as Record<string, unknown>;

const schemaOrg = read('schemaorg-context-30.0.jsonld');
const anno = read('anno.jsonld');

const DOCUMENTS: Record<string, unknown> = {
  'https://schema.org': schemaOrg,
  'https://schema.org/': schemaOrg,
  'http://schema.org': schemaOrg,
  'http://schema.org/': schemaOrg,
  'http://www.w3.org/ns/anno.jsonld': anno,
};

export const documentLoader = async (url: string): Promise<Awaited<ReturnType<NonNullable<jsonld.Options.DocLoader['documentLoader']>>>> => {
  const document = DOCUMENTS[url];
  if (!document) throw new Error(`no network in tests: ${url} is not shipped`);
  return { contextUrl: undefined, documentUrl: url, document: document as never };
};

/** Expanded JSON-LD; `safe` makes jsonld.js throw when any term or value would be dropped. */
export const expand = (doc: unknown) =>
  jsonld.expand(doc as jsonld.JsonLdDocument, { documentLoader, safe: true } as unknown as jsonld.Options.Expand);

/** The terms schema.org defines by name (properties and types): its context lists each one. */
export const schemaOrgTerms = new Set(Object.keys(schemaOrg['@context'] as Record<string, unknown>));

/** Every key and every @type value used in a JSON-LD document, keywords left out. */
export function termsUsed(doc: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(doc)) for (const d of doc) termsUsed(d, out);
  else if (doc && typeof doc === 'object') {
    for (const [k, v] of Object.entries(doc)) {
      if (k === '@context') continue;
      if (!k.startsWith('@')) out.add(k);
      if (k === '@type') for (const t of [v].flat()) out.add(String(t));
      termsUsed(v, out);
    }
  }
  return out;
}

/**
 * The W3C Web Annotation test suite's JSON schemas (draft-04): `annotationMusts.test` lists the assertions every
 * annotation must pass. Returns the failing assertions' messages; empty when the annotation is valid.
 */
export function annotationMustFailures(annotation: unknown): string[] {
  return mustValidators().flatMap(({ message, validate }) => (validate(annotation) ? [] : [`${message} ${JSON.stringify(validate.errors)}`]));
}

let compiled: { message: string; validate: ValidateFunction }[] | undefined;

function mustValidators() {
  if (compiled) return compiled;
  const ajv = new Ajv04({ allErrors: true, strict: false });
  addFormats(ajv);
  const base = new URL('web-annotation-tests/', dir);
  const json = (path: string) => JSON.parse(fs.readFileSync(new URL(path, base), 'utf8')) as { errorMessage: string; id: string };
  for (const f of fs.readdirSync(new URL('definitions/', base)).filter((n) => n.endsWith('.json'))) ajv.addSchema(json(`definitions/${f}`));
  const musts = JSON.parse(fs.readFileSync(new URL('annotations/annotationMusts.test', base), 'utf8')) as { assertions: string[] };
  compiled = musts.assertions.map((path) => {
    const schema = json(path);
    return { message: schema.errorMessage, validate: ajv.compile(schema) };
  });
  return compiled;
}
