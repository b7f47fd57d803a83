import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, which .ci/run installs, unless CHROMIUM_PATH names another; driven with playwright-core. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/**
 * Whether the browser tests can run. Without a browser they are skipped, and said so loudly; under CI=true a skip
 * would pass a run that tested less than it claims, so a missing browser fails the file instead.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const what = `${CHROMIUM} is missing: install it (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH`;
  if (process.env['CI'] === 'true') throw new Error(`${what}. Under CI=true the browser tests may not be skipped.`);
  process.stderr.write(`\n!!! ${what}. The console's browser tests are SKIPPED.\n\n`);
  return false;
}

/**
 * Headless Chromium as this machine runs it: no sandbox (tests run as root) and none of the background traffic a
 * closed network refuses at every start.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}
