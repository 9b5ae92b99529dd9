// The WordPress plugin's own checks: `php -l` on every PHP file, and its units under Debian's PHPUnit
// (integrations/wordpress/tests). Skipped, saying why, without php or phpunit; CI sets CREDENCE_WORDPRESS_REQUIRED=1
// so it fails instead.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve('integrations/wordpress');
const has = (cmd: string) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const why = !has('php') ? 'php-cli is not installed' : !has('phpunit') ? "Debian's phpunit is not installed" : null;
if (why && process.env.CREDENCE_WORDPRESS_REQUIRED === '1') throw new Error(`WordPress plugin checks cannot run: ${why}`);
if (why) console.warn(`[wordpress plugin] skipped: ${why}`);

function phpFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? phpFiles(path.join(dir, e.name)) : e.name.endsWith('.php') ? [path.join(dir, e.name)] : []));
}

describe.skipIf(why !== null)('the WordPress plugin', () => {
  it('every PHP file parses (php -l)', () => {
    const files = phpFiles(ROOT);
    expect(files.length).toBeGreaterThan(8);
    for (const file of files) {
      const res = spawnSync('php', ['-l', file], { encoding: 'utf8' });
      expect(res.status, `${file}: ${res.stdout}${res.stderr}`).toBe(0);
    }
  });

  it('its units pass under PHPUnit', () => {
    const out = execFileSync('phpunit', ['-c', path.join(ROOT, 'phpunit.xml')], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toMatch(/OK \(\d+ tests/);
  });

  it('the plugin declares what WordPress reads: its header, text domain and readme', () => {
    const main = fs.readFileSync(path.join(ROOT, 'credence/credence.php'), 'utf8');
    expect(main).toMatch(/Requires at least: +6\.1/);
    expect(main).toMatch(/Requires PHP: +8\.1/);
    expect(main).toMatch(/Text Domain: +credence/);
    const readme = fs.readFileSync(path.join(ROOT, 'credence/readme.txt'), 'utf8');
    expect(readme).toMatch(/^=== Credence ===/);
    expect(readme).toContain('Stable tag: 0.1.0');
    // Every string the plugin shows is translatable with its own text domain.
    for (const file of phpFiles(path.join(ROOT, 'credence'))) {
      const src = fs.readFileSync(file, 'utf8');
      for (const m of src.matchAll(/\b(?:__|esc_html__|esc_attr__|_e|esc_html_e)\(\s*'(?:[^'\\]|\\.)*'\s*(,\s*'([^']*)')?\s*\)/g)) expect(m[2], `${file}: ${m[0]}`).toBe('credence');
    }
  });

  // The translation template (languages/credence.pot) is made by `npm run wordpress:pot` with GNU xgettext.
  it.skipIf(!has('xgettext') && process.env.CREDENCE_WORDPRESS_REQUIRED !== '1')('the translation template holds every string the plugin shows, as it is now', () => {
    const res = spawnSync('node', ['scripts/wordpress-pot.mjs', '--check'], { encoding: 'utf8' });
    expect(res.status, res.stderr).toBe(0);
    const pot = fs.readFileSync(path.join(ROOT, 'credence/languages/credence.pot'), 'utf8');
    expect(pot).toContain('msgid "Credence refused the API key: it is wrong, revoked or expired. Enter a valid publisher key under Settings → Credence."');
    expect(pot).toContain('#. translators: %s: the publication\'s name');
  });
});
