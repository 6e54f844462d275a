import { expect } from 'chai';
import { clientEnv, parseJson, runCliInProcess } from '../helpers/cli.js';
import { ENGINE } from '../helpers/database.js';
import { eventually, useRailDaemon } from '../helpers/payoutRails.js';
import { tempDir } from '../helpers/replay.js';

const PIX = { method: 'pix', pixKeyType: 'phone', account: '+5511987654321' } as const;

describe(`rails and payouts send, in-process CLI against a real daemon and the providers' fakes (${ENGINE})`, function () {
  this.timeout(60_000);
  const { t, fakes, rails } = useRailDaemon();
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (args: string[]) => runCliInProcess(args, { env });

  beforeEach(() => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
  });
  afterEach(() => files.remove());

  it('rails set connects each rail without printing a credential; list and remove follow the API', async () => {
    const pix = await cli([
      'rails',
      'set',
      'pix',
      '--asaas-api-key',
      fakes.asaas.apiKey,
      '--webhook-token',
      fakes.asaas.webhookToken,
      '--public-url',
      'https://affiliates.example.com/',
    ]);
    expect(pix.code, pix.stderr).to.equal(0);
    expect(pix.stdout).to.include(
      `https://affiliates.example.com/v1/integrations/asaas-payouts/${t.merchant.publicId}`,
    );
    const paypal = await cli([
      'rails',
      'set',
      'paypal',
      '--client-id',
      fakes.paypal.clientId,
      '--client-secret',
      fakes.paypal.clientSecret,
    ]);
    expect(paypal.code, paypal.stderr).to.equal(0);
    expect(paypal.stderr).to.include('Without --webhook-token its callbacks are refused');
    const stripe = await cli(['rails', 'set', 'stripe', '--secret-key', fakes.stripe.secretKey]);
    expect(stripe.code, stripe.stderr).to.equal(0);
    const everything = [pix, paypal, stripe].map((r) => r.stdout + r.stderr).join('\n');
    for (const secret of [
      fakes.asaas.apiKey,
      fakes.asaas.webhookToken,
      fakes.paypal.clientSecret,
      fakes.stripe.secretKey,
    ]) {
      expect(everything).to.not.include(secret);
    }

    const listed = parseJson(await cli(['rails', 'list', '--json']));
    expect(listed.map((r: { rail: string }) => r.rail)).to.deep.equal(['paypal', 'pix', 'stripe']);
    expect(listed[0]).to.include({ rail: 'paypal', hasWebhookToken: false });
    const table = await cli(['rails', 'list']);
    expect(table.stdout).to.match(/pix\s+Asaas\s+\/v1\/integrations\/asaas-payouts\/\S+\s+set/);

    expect((await cli(['rails', 'remove', 'stripe'])).code).to.equal(2);
    const removed = await cli(['rails', 'remove', 'stripe', '--yes']);
    expect(removed.code, removed.stderr).to.equal(0);
    expect(removed.stdout).to.include('Payout rail stripe removed.');
    const again = await cli(['rails', 'remove', 'stripe', '--yes']);
    expect(again.code).to.equal(1);
    expect(parseJson(await cli(['rails', 'list', '--json'])).map((r: { rail: string }) => r.rail)).to.deep.equal([
      'paypal',
      'pix',
    ]);
  });

  it('rails set off a terminal names the missing flag, and refuses another rail’s flag or an unknown rail', async () => {
    const missing = await cli(['rails', 'set', 'stripe']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('--secret-key is required when not running interactively');
    const halfPayPal = await cli(['rails', 'set', 'paypal', '--client-id', fakes.paypal.clientId]);
    expect(halfPayPal.code).to.equal(2);
    expect(halfPayPal.stderr).to.include('--client-secret is required');
    const foreign = await cli([
      'rails',
      'set',
      'stripe',
      '--secret-key',
      'sk_test_12345678',
      '--asaas-api-key',
      'aaaaaaaaaa',
    ]);
    expect(foreign.code).to.equal(2);
    expect(foreign.stderr).to.include('--asaas-api-key is not a credential of the stripe rail');
    const wise = await cli(['rails', 'set', 'wise', '--asaas-api-key', 'aaaaaaaaaa']);
    expect(wise.code).to.equal(2);
    expect(wise.stderr).to.include('rail must be pix, paypal or stripe');
    const short = await cli(['rails', 'set', 'stripe', '--secret-key', 'short']);
    expect(short.code).to.equal(1);
    expect(short.stderr).to.include('secretKey must be 8 to 512 printable ASCII characters without spaces');
    expect(parseJson(await cli(['rails', 'list', '--json']))).to.deep.equal([]);
  });

  it('payouts send prints the new status, rail and reference; payouts get shows the receipt once paid', async () => {
    await rails.connect(fakes);
    fakes.asaas.callbackUrl = `${t.url}/v1/integrations/asaas-payouts/${t.merchant.publicId}`;
    const { payout } = await rails.pendingPayout(PIX, [123.45]);
    const sent = await cli(['payouts', 'send', String(payout.id)]);
    expect(sent.code, sent.stderr).to.equal(0);
    const line = sent.stdout.split('\n')[0];
    expect(line).to.match(
      new RegExp(`^Payout ${payout.id} is processing on pix, reference aff-${payout.id}-[0-9a-f]{12}\\.$`),
    );
    const reference = /reference (\S+)\.$/.exec(line ?? '')?.[1] ?? '';
    await eventually(() => fakes.asaas.transfersFor(reference).length === 1, 'the transfer');
    const [transfer] = fakes.asaas.transfersFor(reference);
    const done = await fakes.asaas.settle(transfer?.id ?? '');
    const paid = await rails.settled(payout.id);
    expect(paid).to.include({ status: 'paid', reference, receipt: done.endToEndIdentifier });
    const shown = await cli(['payouts', 'get', String(payout.id)]);
    expect(shown.stdout).to.match(/status:\s+paid/);
    expect(shown.stdout).to.match(new RegExp(`receipt:\\s+${paid.receipt}`));
    expect(shown.stdout).to.include(paid.reference);

    const exported = await cli(['payouts', 'export', '--status', 'paid']);
    const [header, row] = exported.stdout.split('\r\n');
    expect(header).to.include(',currency,rail,reference,receipt,failure_reason,commission_rules');
    expect(row).to.include(`,12.35,BRL,pix,${reference},${paid.receipt},,campaign 10%: 1`);

    const again = parseJson(await cli(['payouts', 'send', String(payout.id), '--json']));
    expect(again).to.include({ id: payout.id, status: 'paid', reference: paid.reference });
    expect(fakes.asaas.transfersFor(paid.reference)).to.have.length(1);
  });

  it('payouts send of a payout that cannot be sent is exit 1 with the reason', async () => {
    const { payout } = await rails.pendingPayout(PIX, [100]);
    const refused = await cli(['payouts', 'send', String(payout.id)]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('rail_not_connected');
    expect((await rails.get(payout.id)).status).to.equal('pending');
  });
});
