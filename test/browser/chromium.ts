// Debian's Chromium driven by playwright-core (it never downloads a browser). The flags keep it off the network:
// this machine reaches nothing but its own loopback.
import fs from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);

if (!hasChromium) {
  const message = `Chromium not found at ${CHROMIUM}: browser tests cannot run (apt-get install chromium).`;
  // In CI a missing browser is a failure, not a skip: .ci/run installs it.
  if (process.env.CI) throw new Error(message);
  console.warn(`\n!! ${message} They are SKIPPED.\n`);
}

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

export const AXE_SOURCE = fs.readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');
