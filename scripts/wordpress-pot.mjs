// `npm run wordpress:pot`: the plugin's translation template, integrations/wordpress/credence/languages/credence.pot,
// made with GNU xgettext (wp-cli's `wp i18n make-pot` is not installed here) from its PHP, its block's script and its
// block.json, with WordPress's gettext functions as keywords and `translators:` comments kept.
// Locations name the file only, so an edit that moves a string does not make the template out of date. `--check` compares
// instead of writing (ignoring the creation date), for the plugin's test.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const PLUGIN = path.resolve('integrations/wordpress/credence');
const POT = path.join(PLUGIN, 'languages/credence.pot');

const files = (dir, ext) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name), ext) : e.name.endsWith(ext) ? [path.relative(PLUGIN, path.join(dir, e.name))] : []))
    .sort();

// WordPress's gettext functions: the msgid's position, its context's and its plural's; `Nt` counts the arguments
// with the text domain.
const KEYWORDS = ['__:1,2t', '_e:1,2t', 'esc_html__:1,2t', 'esc_html_e:1,2t', 'esc_attr__:1,2t', 'esc_attr_e:1,2t', '_x:1,2c,3t', '_ex:1,2c,3t', 'esc_html_x:1,2c,3t', 'esc_attr_x:1,2c,3t', '_n:1,2,4t', '_nx:1,2,4c,5t'];

// With its own header dropped (ours follows), not --omit-header: without a header xgettext writes ASCII only.
function xgettext(language, list) {
  const out = execFileSync('xgettext', ['--from-code=UTF-8', `--language=${language}`, '--add-comments=translators:', '--sort-by-file', '--add-location=file', '--no-wrap', '-o', '-', ...KEYWORDS.map((k) => `--keyword=${k}`), ...list], { cwd: PLUGIN, encoding: 'utf8' });
  return out.slice(out.indexOf('\n\n') + 2);
}

const version = /Version:\s+(\S+)/.exec(fs.readFileSync(path.join(PLUGIN, 'credence.php'), 'utf8'))[1];
// block.json's title and description are translated by WordPress under their block.json contexts.
const blockJson = files(PLUGIN, 'block.json');
const blockEntries = blockJson.flatMap((file) => {
  const block = JSON.parse(fs.readFileSync(path.join(PLUGIN, file), 'utf8'));
  return [
    ['block title', block.title],
    ['block description', block.description],
  ]
    .filter(([, text]) => text)
    .map(([ctx, text]) => `#: ${file}\nmsgctxt "${ctx}"\nmsgid ${JSON.stringify(text)}\nmsgstr ""\n`);
});

const header = `# Copyright (C) ${new Date().getUTCFullYear()} Credence
# This file is distributed under the GPL-2.0-or-later.
msgid ""
msgstr ""
"Project-Id-Version: Credence ${version}\\n"
"Report-Msgid-Bugs-To: https://credence.example/docs/wordpress\\n"
"POT-Creation-Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')}+0000\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"X-Domain: credence\\n"
`;
const pot = [header, xgettext('PHP', files(PLUGIN, '.php')), xgettext('JavaScript', files(path.join(PLUGIN, 'blocks'), '.js')), ...blockEntries].map((s) => s.trim()).join('\n\n') + '\n';

const stable = (s) => s.replace(/^"POT-Creation-Date: .*$/m, '').replace(/^# Copyright \(C\) \d+/m, '');
if (process.argv.includes('--check')) {
  const current = fs.existsSync(POT) ? fs.readFileSync(POT, 'utf8') : '';
  if (stable(current) !== stable(pot)) {
    console.error(`${path.relative(process.cwd(), POT)} is out of date: run npm run wordpress:pot`);
    process.exit(1);
  }
} else {
  fs.mkdirSync(path.dirname(POT), { recursive: true });
  fs.writeFileSync(POT, pot);
  console.log(`wrote ${path.relative(process.cwd(), POT)}`);
}
