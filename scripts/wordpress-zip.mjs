// `npm run wordpress:zip`: the plugin as WordPress installs it, dist/credence-wordpress.zip with one folder `credence/`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const out = path.resolve('dist/credence-wordpress.zip');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.rmSync(out, { force: true });
execFileSync('zip', ['-qr', '-X', out, 'credence', '-x', '*.DS_Store'], { cwd: path.resolve('integrations/wordpress'), stdio: 'inherit' });
console.log(`wrote ${path.relative(process.cwd(), out)}`);
