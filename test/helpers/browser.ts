import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it): browsers cannot be downloaded here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * A headless Chromium with a fresh profile (Playwright makes a temporary one per launch). The
 * background-networking flags keep it from calling home, so every request a test sees is one
 * the page made. `args` adds flags, e.g. `--host-resolver-rules=MAP shop.test 127.0.0.1`.
 */
export async function launchBrowser(options: { args?: string[] } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: run \`apt-get install -y chromium\` or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(options.args ?? []),
    ],
  });
}
