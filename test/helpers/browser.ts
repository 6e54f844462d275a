import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it): browsers cannot be downloaded here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * A headless Chromium with a fresh profile (Playwright makes a temporary one per launch). The
 * background-networking flags keep it from calling home, so every request a test sees is one
 * the page made.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
