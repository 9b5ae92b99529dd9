// `credence extension:build --service URL --out DIR`: the browser extension (extension/, extension/README.md) for one
// service, unpacked as DIR/chromium and DIR/firefox and zipped beside them (what each store takes). One source: the
// builds differ only in the manifest's background (a service worker for Chromium; background scripts for Firefox,
// which runs Manifest V3 that way) and Firefox's add-on id. The build writes the service's address (lib/config.js),
// the embed's words in its four languages (lib/embed-words.js), the extension's own messages compiled from the catalog
// (lib/messages.js: plain functions over the browser's Intl, no formatting library at run time), the transparency log's checks the proof page uses
// (public/log-core.js, copied), and the icons.
import fs from 'node:fs/promises';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { LANGS, wordsFor } from '../surfaces/embed/i18n.js';
import { catalogOf } from '../i18n/catalog.js';
import { compileCatalog, CompileError } from '../i18n/compile.js';
import { zip } from './zip.js';

const ROOT = new URL('../../', import.meta.url);
const SOURCE = new URL('extension/', ROOT);
/** The extension's own files, as they are in extension/ (lib/config.js, lib/embed-words.js, lib/messages.js and the icons are written). */
const FILES = ['background.js', 'popup.html', 'popup.js', 'popup.css', 'options.html', 'options.js', 'lib/strings.js', 'lib/url-key.js', 'lib/lookup.js'];
/** Firefox's background scripts, in order: what background.js imports in Chromium's service worker. */
const BACKGROUND = ['lib/config.js', 'lib/embed-words.js', 'lib/messages.js', 'lib/strings.js', 'lib/url-key.js', 'lib/lookup.js', 'background.js'];
const ICON_SIZES = [16, 32, 48, 128];

export class ExtensionBuildError extends Error {}

/** The service's address: https (http only for this machine or a test's loopback), no credentials, query or fragment. */
export function parseServiceUrl(input: string): string {
  let u: URL;
  try {
    u = new URL(input);
  } catch {
    throw new ExtensionBuildError(`--service is not a URL: ${input}`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new ExtensionBuildError('--service must be an http(s) address');
  if (u.username || u.password || u.search || u.hash) throw new ExtensionBuildError('--service takes an address without credentials, query or fragment');
  return `${u.origin}${u.pathname}`.replace(/\/+$/, '');
}

/** A PNG of the toolbar icon at `size` pixels: a green disc with a white ring (the embed's verified mark). */
export function iconPng(size: number): Buffer {
  const rows: Buffer[] = [];
  const c = (size - 1) / 2;
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x - c, y - c) / (size / 2);
      const ring = d > 0.42 && d < 0.62;
      const px = d <= 0.98 ? (ring ? [255, 255, 255, 255] : [17, 99, 41, 255]) : [0, 0, 0, 0];
      row.set(px, 1 + x * 4);
    }
    rows.push(row);
  }
  const chunk = (type: string, data: Buffer) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The record's words of the embed (roles, notices, standings), in each of its languages. */
function embedWords(): string {
  const words = Object.fromEntries(
    LANGS.map((lang) => {
      const w = wordsFor(lang);
      return [lang, { roles: w.roles, notices: w.notices, standings: w.standings, noticesHeading: w.noticesHeading, readNotice: w.readNotice }];
    }),
  );
  return `// Written by \`credence extension:build\` from src/surfaces/embed/i18n.ts.\nself.CredenceEmbedWords = ${JSON.stringify(words, null, 1)};\n`;
}

/** The catalog's `extension.*` messages in each language, compiled to plain JavaScript (src/i18n/compile.ts). */
export function extensionMessages(): string {
  const catalogs = Object.fromEntries(LANGS.map((lang) => [lang, Object.fromEntries(Object.entries(catalogOf(lang)).filter(([id]) => id.startsWith('extension.')))]));
  try {
    return `// Written by \`credence extension:build\` from src/i18n/catalogs.\n${compileCatalog('CredenceMessages', catalogs)}`;
  } catch (err) {
    if (err instanceof CompileError) throw new ExtensionBuildError(`the catalog's extension messages: ${err.message}`);
    throw err;
  }
}

/** Firefox's add-on id: stable per service, so an update replaces the add-on it came from. */
export function geckoId(service: string): string {
  const host = new URL(service).hostname.replace(/[^a-zA-Z0-9.-]/g, '') || 'credence.invalid';
  return `extension@${host}`;
}

type Manifest = Record<string, unknown>;

function manifests(base: Manifest, service: string, version: string): { chromium: Manifest; firefox: Manifest } {
  const icons = Object.fromEntries(ICON_SIZES.map((s) => [String(s), `icons/icon-${s}.png`]));
  const common = { ...base, version, icons, action: { ...(base.action as object), default_icon: icons } };
  return {
    chromium: { ...common, minimum_chrome_version: '121' },
    firefox: {
      ...common,
      background: { scripts: BACKGROUND },
      browser_specific_settings: {
        gecko: { id: geckoId(service), strict_min_version: '142.0', data_collection_permissions: { required: ['none'] } },
      },
    },
  };
}

export interface BuiltExtension {
  chromium: string;
  firefox: string;
  chromiumZip: string;
  firefoxZip: string;
}

/** Build both browsers' extensions for `service` into `out` (made if missing; the two folders replaced). */
export async function buildExtension(options: { service: string; out: string }): Promise<BuiltExtension> {
  const service = parseServiceUrl(options.service);
  const version = (JSON.parse(await fs.readFile(new URL('package.json', ROOT), 'utf8')) as { version: string }).version;
  const base = JSON.parse(await fs.readFile(new URL('manifest.json', SOURCE), 'utf8')) as Manifest;
  const files = new Map<string, Buffer>();
  for (const f of FILES) files.set(f, await fs.readFile(new URL(f, SOURCE)));
  files.set('lib/log-core.js', await fs.readFile(new URL('public/log-core.js', ROOT)));
  files.set('lib/config.js', Buffer.from(`// Written by \`credence extension:build\`: the service this build asks.\nself.CREDENCE_SERVICE = ${JSON.stringify(service)};\n`));
  files.set('lib/embed-words.js', Buffer.from(embedWords()));
  files.set('lib/messages.js', Buffer.from(extensionMessages()));
  for (const s of ICON_SIZES) files.set(`icons/icon-${s}.png`, iconPng(s));

  const out = path.resolve(options.out);
  const m = manifests(base, service, version);
  const built = {} as BuiltExtension;
  for (const browser of ['chromium', 'firefox'] as const) {
    const dir = path.join(out, browser);
    await fs.rm(dir, { recursive: true, force: true });
    const all = new Map(files).set('manifest.json', Buffer.from(`${JSON.stringify(m[browser], null, 2)}\n`));
    const names = [...all.keys()].sort();
    for (const name of names) {
      await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await fs.writeFile(path.join(dir, name), all.get(name)!);
    }
    const archive = path.join(out, `credence-${browser}-${version}.zip`);
    await fs.writeFile(archive, zip(names.map((name) => ({ name, data: all.get(name)! }))));
    built[browser] = dir;
    built[browser === 'chromium' ? 'chromiumZip' : 'firefoxZip'] = archive;
  }
  return built;
}
