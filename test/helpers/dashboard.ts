import { TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { runCli } from './cli.js';

/** The first owner as the operator makes one: `affiliated users create`, its set-up link from `--json`. */
export async function createDashboardUser(
  databaseUrl: string,
  publicUrl: string,
  input: { campaign: string; email: string; role: string },
): Promise<{ id: number; setupLink: string }> {
  const made = await runCli(
    ['users', 'create', '--campaign', input.campaign, '--email', input.email, '--role', input.role, '--json'],
    { env: { DATABASE_URL: databaseUrl, PUBLIC_URL: publicUrl } },
  );
  if (made.code !== 0) throw new Error(`users create failed: ${made.stderr}`);
  return JSON.parse(made.stdout) as { id: number; setupLink: string };
}

/** The code an authenticator app shows now for a base32 secret (the page shows it in groups of four). */
export function totpCode(secret: string, at = Date.now()): string {
  return new TOTP({ secret: secret.replace(/\s+/g, ''), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: at,
  });
}

/** Waits into a fresh 30-second step (with 3 s left at least), so a code made now is not the last one used. */
export async function nextStep(): Promise<void> {
  const into = Date.now() % 30_000;
  await new Promise((resolve) => setTimeout(resolve, 30_000 - into + 200));
}

/** Sets the password through a set-up link, then logs in with it. */
export async function setUpAndLogIn(page: Page, link: string, email: string, password: string): Promise<void> {
  await page.goto(link);
  await page.fill('#password', password);
  await page.click('button[type=submit]');
  await page.fill('#email', email);
  await page.fill('#password', password);
  await page.click('main button[type=submit]');
}
