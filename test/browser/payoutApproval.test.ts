import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { launchBrowser } from '../helpers/browser.js';
import { setUpAndLogIn, totpCode } from '../helpers/dashboard.js';
import { createMerchant, type Merchant, servicesFor, testConfig } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { closeRailFakes, railApi, railEnv, type RailFakes, startRailFakes } from '../helpers/payoutRails.js';

/**
 * Two people for a large payout run (docs/payouts.md#payout-runs), on the dashboard's payouts
 * page with JavaScript off: the owner who starts it gets no approve button, a second admin
 * approves it and its payout goes to the provider.
 */
describe(`a payout run above the approval threshold, approved by a second person in Chromium (${ENGINE})`, function () {
  this.timeout(180_000);
  let fakes: RailFakes;
  let database: TestDatabase;
  let daemon: Daemon;
  let merchant: Merchant;
  let browser: Browser;
  const rails = railApi(
    () => daemon.url,
    () => merchant,
    () => database.db,
  );

  before(async () => {
    fakes = await startRailFakes();
    database = await createTestDatabase();
    daemon = await startDaemon(testConfig(database.url, { ...railEnv(fakes), PAYOUT_SCHEDULE_INTERVAL_MS: '0' }), {
      logger: createLogger('silent'),
    });
    merchant = await createMerchant(database.db);
    await rails.connect(fakes);
    fakes.asaas.settleInstantly = true;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await daemon?.close();
    await database?.drop();
    await closeRailFakes(fakes);
  });

  const dash = (rest = '') => `${daemon.url}/dashboard/${merchant.publicId}${rest}`;

  /** A dashboard user made by the operator, set up with TOTP, logged in on a page without JavaScript. */
  async function loggedIn(email: string, role: 'owner' | 'admin'): Promise<Page> {
    // The operator's command, through its service: a child process per user would double the test's time.
    const user = await daemon.services.dashboard.operator.create({ campaign: merchant.publicId, email, role });
    if (user.state !== 'created' || user.link === undefined) throw new Error('no set-up link');
    const context = await browser.newContext({ javaScriptEnabled: false, locale: 'en-GB' });
    const page = await context.newPage();
    await setUpAndLogIn(page, user.link, email, `${role}-password-1`);
    const secret = (await page.textContent('#secret'))?.replace(/\s+/g, '') ?? '';
    await page.fill('#code', totpCode(secret));
    await page.click('main button[type=submit]');
    await page.click('text=I stored them');
    expect(await page.textContent('h1')).to.equal('Overview');
    return page;
  }

  it('the starter sees the run waiting with no button; a second admin approves it once and it is sent', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { payoutApprovalAbove: 50 });
    await rails.owed({ method: 'pix', pixKeyType: 'phone', account: '+5511987654321' }, [1000]);

    const owner = await loggedIn('owner@shop.example', 'owner');
    await owner.goto(dash('/payouts'));
    await owner.click('button:has-text("Run payouts now")');
    expect(await owner.textContent('[role=status]')).to.match(/^Payout run \d+ is above the approval threshold/);
    const waiting = owner.locator('#awaiting-title + div tbody tr');
    expect(await waiting.count()).to.equal(1);
    expect(await waiting.textContent()).to.include('dashboard user #');
    expect(await owner.locator('button:has-text("Approve and send")').count()).to.equal(0);
    const [payout] = await database.db('payouts').select('id', 'status');
    expect(payout?.status).to.equal('pending');

    const admin = await loggedIn('admin@shop.example', 'admin');
    await admin.goto(dash('/payouts'));
    await admin.click('button:has-text("Approve and send")');
    expect(await admin.textContent('[role=status]')).to.equal('Payout run approved: 1 payout sent.');
    expect(await admin.locator('#awaiting-title').count()).to.equal(0);
    expect((await rails.settled(payout?.id ?? 0)).status).to.equal('paid');
    const [run] = await database.db('payout_runs').select('status', 'approved_by_user_id');
    expect(run?.status).to.equal('sent');
  });

  it('an admin sends one pending payout on its rail; one without payout details is refused with the reason', async () => {
    const { payout } = await rails.pendingPayout(
      { method: 'pix', pixKeyType: 'phone', account: '+5511912345678' },
      [1000],
    );
    // An affiliate who never set where to be paid: nothing to send its payout to.
    const bare = await rails.owed(null, [500]);
    const unpaid = (await rails.payout(bare.id)).body;

    const admin = await loggedIn('sender@shop.example', 'admin');
    await admin.goto(dash('/payouts?status=pending'));
    await admin.click(`button[aria-label="Send #${payout.id}"]`);
    expect(await admin.textContent('[role=status]')).to.equal(
      `Payout ${payout.id} sent on its rail: it is paid when the provider confirms.`,
    );
    expect((await rails.settled(payout.id)).status).to.equal('paid');

    await admin.goto(dash('/payouts?status=pending'));
    await admin.click(`button[aria-label="Send #${unpaid.id}"]`);
    expect(await admin.textContent('main')).to.include('no_payout_details');
    expect((await rails.get(unpaid.id)).status).to.equal('pending');
  });
});
