// Debian's Chromium driven by playwright-core (it never downloads a browser). The flags keep it off the network:
// this machine reaches nothing but its own loopback.
import fs from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);

if (!hasChromium) {
  const message = `Chromium not found at ${CHROMIUM}: browser tests cannot run (apt-get install chromium).`;
  // In CI a missing browser is a failure, not a skip: .ci/run installs it.
  if (process.env.CI) throw new Error(message);
  console.warn(`\n!! ${message} They are SKIPPED.\n`);
}

/**
 * Every Content-Security-Policy violation any page of any context reported (Chromium logs each as a console error):
 * the pages' CSP allows no inline script, and a page that broke it would lose behaviour silently.
 * Each browser test file checks this is empty when it ends.
 */
export const cspViolations: string[] = [];

function watchCsp(context: BrowserContext): BrowserContext {
  context.on('page', (page) => {
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) cspViolations.push(`${page.url()}: ${msg.text()}`);
    });
  });
  return context;
}

export async function launch(): Promise<Browser> {
  const browser = await launchRaw();
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args: Parameters<Browser['newContext']>) => watchCsp(await newContext(...args));
  return browser;
}

function launchRaw(): Promise<Browser> {
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

/** Injected with page.evaluate (DevTools, outside the page's CSP), never as an inline <script> the CSP refuses. */
export const AXE_SOURCE = fs.readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');
