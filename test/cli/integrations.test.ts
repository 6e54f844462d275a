import { expect } from 'chai';
import { clientEnv, parseJson, runCliInProcess } from '../helpers/cli.js';
import { eventFrom, sendEvent, STRIPE_SECRET } from '../helpers/billing.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { tempDir } from '../helpers/replay.js';

describe(`integrations and coupons commands, in-process CLI against a real daemon (${ENGINE})`, () => {
  const t = useTestDaemon();
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (args: string[]) => runCliInProcess(args, { env });

  beforeEach(() => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
  });
  afterEach(() => files.remove());

  it('set prints the URL to paste and the event types; list, events and remove follow the API', async () => {
    const set = await cli([
      'integrations',
      'set',
      'stripe',
      '--signing-secret',
      STRIPE_SECRET,
      '--public-url',
      'https://affiliates.example.com/',
    ]);
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stdout).to.include(`https://affiliates.example.com/v1/integrations/stripe/${t.merchant.publicId}`);
    expect(set.stderr).to.include(
      'checkout.session.completed, checkout.session.async_payment_succeeded, invoice.paid, charge.refunded',
    );
    expect(set.stdout + set.stderr).to.not.include(STRIPE_SECRET);

    await addAffiliate(t.db, t.merchant.campaignId, { code: 'MARIA10' });
    const sent = await sendEvent(t.url, 'stripe', t.merchant.publicId, eventFrom('stripe-checkout-session-payment'));
    expect(sent.body.outcome).to.equal('conversion_created');

    const listed = parseJson(await cli(['integrations', 'list', '--json']));
    expect(listed[0]).to.include({ provider: 'stripe' });
    expect(listed[0].outcomes).to.deep.equal({ conversion_created: 1 });
    const table = await cli(['integrations', 'list']);
    expect(table.stdout).to.match(/stripe\s+\/v1\/integrations\/stripe\//);

    const events = await cli(['integrations', 'events', '--provider', 'stripe', '--outcome', 'conversion_created']);
    expect(events.code, events.stderr).to.equal(0);
    expect(events.stdout).to.include('checkout.session.completed');
    expect(events.stderr).to.include('1 event');

    const usage = await cli(['integrations', 'set', 'paypal', '--signing-secret', 'whsec_1234567890']);
    expect(usage.code).to.equal(2);
    expect((await cli(['integrations', 'remove', 'stripe'])).code).to.equal(2);
    const removed = await cli(['integrations', 'remove', 'stripe', '--yes']);
    expect(removed.code, removed.stderr).to.equal(0);
    const again = await cli(['integrations', 'remove', 'stripe', '--yes']);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.include('Integration not found');
  });

  it('set takes the secret from AFFILIATED_SIGNING_SECRET, and without it off a terminal names the flag', async () => {
    const missing = await cli(['integrations', 'set', 'stripe']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('--signing-secret is required when not running interactively');
    const fromEnv = await runCliInProcess(['integrations', 'set', 'stripe'], {
      env: { ...env, AFFILIATED_SIGNING_SECRET: STRIPE_SECRET },
    });
    expect(fromEnv.code, fromEnv.stderr).to.equal(0);
    expect(fromEnv.stdout + fromEnv.stderr).to.not.include(STRIPE_SECRET);
    await addAffiliate(t.db, t.merchant.campaignId, { code: 'MARIA10' });
    const sent = await sendEvent(t.url, 'stripe', t.merchant.publicId, eventFrom('stripe-checkout-session-payment'));
    expect(sent.body.outcome).to.equal('conversion_created');
  });

  it('affiliates coupons add, list, remove; a taken code is exit 1 with the API’s message', async () => {
    const { id } = await addAffiliate(t.db, t.merchant.campaignId);
    const added = await cli(['affiliates', 'coupons', 'add', String(id), 'WINTER-10']);
    expect(added.code, added.stderr).to.equal(0);
    const taken = await cli(['affiliates', 'coupons', 'add', String(id), 'winter-10']);
    expect(taken.code).to.equal(1);
    expect(taken.stderr).to.include('Coupon code is not available');
    const listed = parseJson(await cli(['affiliates', 'coupons', 'list', String(id), '--json']));
    expect(listed.map((c: { code: string }) => c.code)).to.deep.equal(['WINTER-10']);
    expect((await cli(['affiliates', 'coupons', 'remove', String(id), 'winter-10'])).code).to.equal(0);
    expect(parseJson(await cli(['affiliates', 'coupons', 'list', String(id), '--json']))).to.deep.equal([]);
  });
});
