import { expect } from 'chai';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { launchBrowser } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { createDashboardUser, setUpAndLogIn, totpCode } from '../helpers/dashboard.js';
import { createMerchant, type Merchant, testConfig } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { freePort } from '../helpers/http.js';

/** What the page's script sees: @simplewebauthn/browser's global (served as /dashboard/assets/webauthn.js). */
declare const SimpleWebAuthnBrowser: {
  startAuthentication(input: { optionsJSON: unknown }): Promise<unknown>;
};
declare const document: {
  querySelector(selector: string): {
    submit(): void;
    getAttribute(name: string): string | null;
    elements: { response: { value: string }; csrf: { value: string } };
  } | null;
};

/**
 * Passkeys as the dashboard's second factor (docs/dashboard.md#passkeys), in Debian's Chromium
 * with its virtual authenticator (CDP `WebAuthn.*`). The daemon's PUBLIC_URL is
 * `http://localhost:PORT`: a browser accepts no IP address as a relying party.
 */
describe(`dashboard passkeys in Chromium (${ENGINE})`, function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let daemon: Daemon;
  let merchant: Merchant;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let publicUrl = '';
  let owner = { id: 0, setupLink: '' };
  let adminSecret = '';

  before(async () => {
    const port = await freePort();
    publicUrl = `http://localhost:${port}`;
    database = await createTestDatabase();
    daemon = await startDaemon(testConfig(database.url, { PORT: String(port), PUBLIC_URL: publicUrl }), {
      logger: createLogger('silent'),
    });
    merchant = await createMerchant(database.db);
    browser = await launchBrowser();
    context = await browser.newContext({ locale: 'en-GB' });
    page = await context.newPage();
    // One authenticator of this page, as a phone or laptop keeps passkeys: it signs without a prompt.
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
  });
  after(async () => {
    await browser?.close();
    await daemon?.close();
    await database?.drop();
  });

  const dash = (rest = '') => `${publicUrl}/dashboard/${merchant.publicId}${rest}`;
  const passkeysOf = (userId: number) => database.db('dashboard_passkeys').where({ user_id: userId }).orderBy('id');

  async function logIn(p: Page, email: string, password: string): Promise<void> {
    await p.goto(dash('/'));
    await p.fill('#email', email);
    await p.fill('#password', password);
    await p.click('main button[type=submit]');
  }

  async function logOut(): Promise<void> {
    await page.click('button:has-text("Log out")');
    expect(await page.textContent('h1')).to.equal('Log in');
  }

  it('an owner enrols a passkey instead of TOTP at the first log-in, then logs in with it', async () => {
    owner = await createDashboardUser(database.url, publicUrl, {
      campaign: merchant.publicId,
      email: 'owner@shop.example',
      role: 'owner',
    });
    await setUpAndLogIn(page, owner.setupLink, 'owner@shop.example', 'owner-password');
    expect(await page.textContent('h1')).to.equal('Set up your second factor');
    await page.click('button:has-text("Add a passkey")');
    await page.waitForURL(dash('/overview'));
    const [stored] = await passkeysOf(owner.id);
    expect(stored?.credential_id).to.match(/^[A-Za-z0-9_-]{16,}$/);

    await logOut();
    await logIn(page, 'owner@shop.example', 'owner-password');
    expect(await page.textContent('h1')).to.equal('Second factor');
    // No TOTP to offer: this user's factor is the passkey.
    expect(await page.locator('#code').count()).to.equal(0);
    await page.click('button:has-text("Use a passkey")');
    await page.waitForURL(dash('/overview'));
    const [used] = await passkeysOf(owner.id);
    expect(Number(used?.counter)).to.be.greaterThan(Number(stored?.counter));
    expect(used?.last_used_at).not.to.equal(null);
  });

  it('a signed answer is taken once, and another user’s passkey is refused', async () => {
    // The owner's next log-in, its answer kept as it goes by.
    let replay = '';
    await page.route(dash('/factor/passkey'), async (route) => {
      replay = new URLSearchParams(route.request().postData() ?? '').get('response') ?? '';
      await route.continue();
    });
    await logOut();
    await logIn(page, 'owner@shop.example', 'owner-password');
    await page.click('button:has-text("Use a passkey")');
    await page.waitForURL(dash('/overview'));
    await page.unroute(dash('/factor/passkey'));
    expect(replay).to.include('authenticatorData');
    // The same answer again, in a new session that owes its factor: its challenge is spent.
    await logOut();
    await logIn(page, 'owner@shop.example', 'owner-password');
    await page.evaluate((response) => {
      const form = document.querySelector('form[data-passkey]');
      if (!form) throw new Error('no passkey form');
      form.elements.response.value = response;
      form.submit();
    }, replay);
    await page.waitForLoadState();
    expect(await page.textContent('h1')).to.equal('Second factor');
    expect(await page.textContent('[role=alert]')).to.include('was not accepted');
    await page.click('button:has-text("Use a passkey")');
    await page.waitForURL(dash('/overview'));

    // An admin with TOTP adds a passkey of their own from the passkeys page.
    await logOut();
    const admin = await createDashboardUser(database.url, publicUrl, {
      campaign: merchant.publicId,
      email: 'admin@shop.example',
      role: 'admin',
    });
    await setUpAndLogIn(page, admin.setupLink, 'admin@shop.example', 'admin-password');
    adminSecret = (await page.textContent('#secret'))?.replace(/\s+/g, '') ?? '';
    await page.fill('#code', totpCode(adminSecret));
    await page.click('main form.card button[type=submit]');
    expect(await page.textContent('h1')).to.equal('Your recovery codes');
    await page.goto(dash('/passkeys'));
    await page.click('button:has-text("Add a passkey")');
    await page.waitForURL(dash('/passkeys?notice=passkeyAdded'));
    expect(await page.textContent('[role=status]')).to.include('The passkey is added');
    expect(await passkeysOf(admin.id)).to.have.length(1);

    // At the admin's log-in, the owner's passkey (same authenticator) signs the admin's challenge: refused.
    await logOut();
    await logIn(page, 'admin@shop.example', 'admin-password');
    const [ownerKey] = await passkeysOf(owner.id);
    await page.evaluate(async (credentialId) => {
      const form = document.querySelector('form[data-passkey]');
      if (!form) throw new Error('no passkey form');
      const answer = await fetch(form.getAttribute('data-options') ?? '', {
        method: 'POST',
        body: new URLSearchParams({ csrf: form.elements.csrf.value }),
      });
      const options = (await answer.json()) as Record<string, unknown>;
      const signed = await SimpleWebAuthnBrowser.startAuthentication({
        optionsJSON: { ...options, allowCredentials: [{ id: credentialId, type: 'public-key' }] },
      });
      form.elements.response.value = JSON.stringify(signed);
      form.submit();
    }, String(ownerKey?.credential_id));
    await page.waitForLoadState();
    expect(await page.textContent('[role=alert]')).to.include('was not accepted');
    // Its own passkey lets it in; then it removes it.
    await page.click('button:has-text("Use a passkey")');
    await page.waitForURL(dash('/overview'));
    await page.goto(dash('/passkeys'));
    await page.click('button[aria-label="Remove Passkey 1"]');
    expect(await page.textContent('[role=status]')).to.include('The passkey is removed');
    expect(await passkeysOf(admin.id)).to.have.length(0);

    // Enrolments and the removal are in the audit log, by user id, without any key material.
    const rows = await database.db('audit_log').where('action', 'like', '%passkey').orderBy('id');
    expect(rows.map((r) => [r.action, r.actor_id, r.target_id])).to.deep.equal([
      ['user.add_passkey', String(owner.id), String(owner.id)],
      ['user.add_passkey', String(admin.id), String(admin.id)],
      ['user.remove_passkey', String(admin.id), String(admin.id)],
    ]);
    expect(JSON.stringify(rows)).not.to.include(String(ownerKey?.credential_id));
    expect(JSON.stringify(rows)).not.to.include(String(ownerKey?.public_key).slice(0, 20));
  });

  it('without JavaScript the passkey button is absent and says why; TOTP still works', async () => {
    const off = await browser.newContext({ javaScriptEnabled: false, locale: 'en-GB' });
    try {
      const noJs = await off.newPage();
      await logIn(noJs, 'admin@shop.example', 'admin-password');
      expect(await noJs.textContent('h1')).to.equal('Second factor');
      await noJs.goto(dash('/factor'));
      // The admin removed its passkey: only TOTP. The owner's page shows the note instead of the button.
      await noJs.fill('#code', totpCode(adminSecret, Date.now() + 30_000));
      await noJs.click('main form.card button[type=submit]');
      expect(await noJs.textContent('h1')).to.equal('Overview');
      await noJs.goto(dash('/passkeys'));
      expect(await noJs.isVisible('button:has-text("Add a passkey")')).to.equal(false);
      expect(await noJs.textContent('[data-passkey-missing]')).to.include('need JavaScript');
    } finally {
      await off.close();
    }
  });

  it('at another address than PUBLIC_URL a passkey is refused with where to go', async () => {
    const elsewhere = await browser.newContext({ locale: 'en-GB' });
    try {
      const other = await elsewhere.newPage();
      await other.goto(`${daemon.url}/dashboard/${merchant.publicId}/`);
      await other.fill('#email', 'owner@shop.example');
      await other.fill('#password', 'owner-password');
      await other.click('main button[type=submit]');
      expect(await other.textContent('h1')).to.equal('Second factor');
      await other.click('button:has-text("Use a passkey")');
      await other.waitForSelector('[data-passkey-status]:has-text("work only at")');
      expect(await other.textContent('[data-passkey-status]')).to.include(`work only at ${publicUrl}`);
    } finally {
      await elsewhere.close();
    }
  });

  it('`users reset-2fa` removes the passkeys too: the next log-in enrols again', async () => {
    const sessions = () => database.db('dashboard_sessions').where({ user_id: owner.id });
    expect(await sessions()).to.have.length.greaterThan(0);
    const env = { DATABASE_URL: database.url };
    // A passkey alone is a second factor in the operator's list.
    const listed = await runCli(['users', 'list', '--campaign', merchant.publicId, '--json'], { env });
    const users = (JSON.parse(listed.stdout) as { users: { id: number; secondFactor: boolean }[] }).users;
    expect(users.find((u) => u.id === owner.id)?.secondFactor).to.equal(true);
    const reset = await runCli(['users', 'reset-2fa', String(owner.id)], { env });
    expect(reset.code, reset.stderr).to.equal(0);
    expect(reset.stdout).to.include('1 passkey(s) removed');
    expect(await passkeysOf(owner.id)).to.have.length(0);
    expect(await sessions()).to.have.length(0);
    await logOut();
    await logIn(page, 'owner@shop.example', 'owner-password');
    expect(await page.textContent('h1')).to.equal('Set up your second factor');
  });

  it('a passkey-only user names the passkey and gets recovery codes, shown once, that log in once instead of it', async () => {
    // After the reset above, the owner is on the enrolment page again.
    await page.fill('#passkey-name', 'Work laptop');
    await page.click('button:has-text("Add a passkey")');
    await page.waitForURL(dash('/overview'));
    expect(await page.textContent('h1')).to.equal('Your recovery codes');
    const codes = await page.locator('#recovery-codes li').allTextContents();
    expect(codes).to.have.length(10);
    await page.click('text=I stored them');
    expect(await page.textContent('h1')).to.equal('Overview');
    // Shown once: the overview again is the overview.
    await page.reload();
    expect(await page.textContent('h1')).to.equal('Overview');
    await page.goto(dash('/passkeys'));
    expect(await page.locator('table tbody td:first-child').allTextContents()).to.deep.equal(['Work laptop']);

    for (const outcome of ['in', 'refused']) {
      await logOut();
      await logIn(page, 'owner@shop.example', 'owner-password');
      await page.click('summary:has-text("Use a recovery code")');
      await page.fill('#recovery', codes[0] ?? '');
      await page.click('button:has-text("Use recovery code")');
      if (outcome === 'in') expect(await page.textContent('h1')).to.equal('Overview');
      else expect(await page.textContent('[role=alert]')).to.include('not valid');
    }
  });
});
