import { expect } from 'chai';
import { clientEnv, parseJson, runCliInProcess } from '../helpers/cli.js';
import { type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { countRows, makeAffiliate, tempDir } from '../helpers/replay.js';

describe(`affiliates and events send as a client, in-process CLI against a real daemon (${ENGINE})`, () => {
  const t = useTestDaemon();
  let merchant: Merchant;
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
    runCliInProcess(args, { env: { ...env, ...extra } });

  beforeEach(async () => {
    merchant = t.merchant;
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: merchant.key });
  });
  afterEach(() => files.remove());

  it('create, get, update and delete with --json', async () => {
    const made = await cli([
      'affiliates',
      'create',
      '--email',
      'maria@example.com',
      '--password',
      'secret123',
      '--name',
      'Maria Silva',
      '--referral-id',
      'MARIA10',
      '--json',
    ]);
    expect(made.code, made.stderr).to.equal(0);
    const affiliate = parseJson(made);
    expect(affiliate).to.include({
      email: 'maria@example.com',
      name: 'Maria Silva',
      referralId: 'MARIA10',
      status: 'active',
      totalConversions: 0,
    });
    expect(affiliate).not.to.have.property('password');

    const got = parseJson(await cli(['affiliates', 'get', String(affiliate.id), '--json']));
    expect(got).to.deep.equal(affiliate);

    const updated = await cli(['affiliates', 'update', String(affiliate.id), '--status', 'inactive', '--json']);
    expect(updated.code, updated.stderr).to.equal(0);
    expect(parseJson(updated)).to.include({
      id: affiliate.id,
      status: 'inactive',
      createdAt: affiliate.createdAt,
    });

    const removed = await cli(['affiliates', 'delete', String(affiliate.id), '--yes', '--json']);
    expect(removed.code, removed.stderr).to.equal(0);
    expect(parseJson(removed)).to.deep.equal({ success: true, message: 'Affiliate deleted successfully' });
    const gone = await cli(['affiliates', 'get', String(affiliate.id)]);
    expect(gone.code).to.equal(1);
    expect(gone.stderr).to.include('error 404: Affiliate not found');
  });

  it('prints tables and records for people', async () => {
    await makeAffiliate(t.url, merchant.key, {
      email: 'ana@example.com',
      referralId: 'ANA1',
      name: 'Ana',
    });
    const list = await cli(['affiliates', 'list']);
    expect(list.code).to.equal(0);
    expect(list.stdout.split('\n')[0]).to.match(/^ID\s+NAME\s+EMAIL\s+REFERRAL\s+STATUS/);
    expect(list.stdout).to.match(/Ana\s+ana@example\.com\s+ANA1\s+active/);
    // One page: no need to mention --all.
    expect(list.stderr).to.equal('page 1 of 1 (1 affiliate)\n');
  });

  it('list filters and pages; --all follows every page', async () => {
    for (let n = 1; n <= 5; n++) {
      await makeAffiliate(t.url, merchant.key, {
        email: `person${n}@example.com`,
        referralId: `CODE${n}`,
        status: n % 2 === 0 ? 'inactive' : 'active',
      });
    }
    const page = parseJson(await cli(['affiliates', 'list', '--limit', '2', '--page', '2', '--json']));
    expect(page).to.include({ total: 5, page: 2, limit: 2, totalPages: 3 });
    expect(page.affiliates.map((a: { referralId: string }) => a.referralId)).to.deep.equal(['CODE3', 'CODE2']);

    const inactive = parseJson(await cli(['affiliates', 'list', '--status', 'inactive', '--json']));
    expect(inactive.total).to.equal(2);
    const search = parseJson(await cli(['affiliates', 'list', '--search', 'person4', '--json']));
    expect(search.affiliates.map((a: { referralId: string }) => a.referralId)).to.deep.equal(['CODE4']);

    const all = await cli(['affiliates', 'list', '--all', '--limit', '2', '--json']);
    expect(all.code, all.stderr).to.equal(0);
    const everything = parseJson(all);
    expect(everything.total).to.equal(5);
    expect(everything.affiliates.map((a: { referralId: string }) => a.referralId)).to.deep.equal([
      'CODE5',
      'CODE4',
      'CODE3',
      'CODE2',
      'CODE1',
    ]);
    const allActive = parseJson(
      await cli(['affiliates', 'list', '--all', '--status', 'active', '--limit', '1', '--json']),
    );
    expect(allActive.affiliates).to.have.length(3);
    expect((await cli(['affiliates', 'list', '--all', '--page', '2'])).code).to.equal(2);
  });

  it('API errors print the status and every message and exit 1', async () => {
    const invalid = await cli(['affiliates', 'create', '--email', 'not-an-email', '--password', '123']);
    expect(invalid.code).to.equal(1);
    expect(invalid.stderr).to.include('error 400:');
    expect(invalid.stderr).to.include('email must be a valid email');
    expect(invalid.stderr).to.include('password must be at least 6 characters long');
    expect(invalid.stderr).not.to.match(/\bat .*\.js:\d+/); // no stack trace

    await makeAffiliate(t.url, merchant.key, { email: 'taken@example.com', referralId: 'TAKEN1' });
    const conflict = await cli([
      'affiliates',
      'create',
      '--email',
      'TAKEN@example.com',
      '--password',
      'secret123',
      '--json',
    ]);
    expect(conflict.code).to.equal(1);
    expect(parseJson(conflict)).to.deep.equal({
      statusCode: 409,
      message: 'Email is not available',
      error: 'Conflict',
    });
    expect(conflict.stderr).to.include('error 409: Email is not available');

    const missing = await cli(['affiliates', 'update', '999999', '--name', 'X']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include('error 404: Affiliate not found');
  });

  it('usage errors exit 2: no terminal for the password or the delete confirmation, bad ids', async () => {
    const noPassword = await cli(['affiliates', 'create', '--email', 'x@example.com']);
    expect(noPassword.code).to.equal(2);
    expect(noPassword.stderr).to.include('--password is required when not running interactively');

    const { id } = await makeAffiliate(t.url, merchant.key, { email: 'keep@example.com' });
    const noYes = await cli(['affiliates', 'delete', String(id)]);
    expect(noYes.code).to.equal(2);
    expect(noYes.stderr).to.include('--yes is required when not running interactively');
    expect(await countRows(t.db, 'affiliates', merchant.campaignId)).to.equal(1);

    expect((await cli(['affiliates', 'get', 'abc'])).code).to.equal(2);
    expect((await cli(['affiliates', 'update', String(id)])).code).to.equal(2);
    expect((await cli(['affiliates', 'list', '--status', 'gone'])).code).to.equal(2);
  });

  it('create and update set the payout details; bad ones are named, a wrong combination is a usage error', async () => {
    const base = ['affiliates', 'create', '--email', 'pix@example.com', '--password', 'secret123'];
    const made = await cli([...base, '--pix-key', '+55 11 91234-5678', '--pix-key-type', 'phone', '--json']);
    expect(made.code, made.stderr).to.equal(0);
    const { id, payoutMethod, pixKeyType, payoutAccount } = parseJson(made);
    expect({ payoutMethod, pixKeyType, payoutAccount }).to.deep.equal({
      payoutMethod: 'pix',
      pixKeyType: 'phone',
      payoutAccount: '+5511912345678',
    });
    const moved = await cli(['affiliates', 'update', String(id), '--stripe-account', 'acct_1A2b3C4d5E6f7G8h']);
    expect(moved.code, moved.stderr).to.equal(0);
    expect(moved.stdout).to.match(/payout method:\s+Stripe/);
    expect(moved.stdout).to.match(/payout account:\s+acct_1A2b3C4d5E6f7G8h/);
    const cleared = await cli(['affiliates', 'update', String(id), '--no-payout-details', '--json']);
    expect(parseJson(cleared)).to.include({ payoutMethod: null, payoutAccount: null });

    const badKey = await cli([
      'affiliates',
      'update',
      String(id),
      '--pix-key',
      '111.111.111-11',
      '--pix-key-type',
      'cpf',
    ]);
    expect(badKey.code).to.equal(1);
    expect(badKey.stderr).to.include('error 400:');
    expect(badKey.stderr).to.include('payoutDetails.account must be a valid CPF for pixKeyType cpf');
    for (const [flags, said] of [
      [['--pix-key', '52998224725'], '--pix-key needs --pix-key-type: one of cpf, cnpj, email, phone, random'],
      [['--paypal-email', 'a@b.co', '--stripe-account', 'acct_12345678'], 'give one of --pix-key, --paypal-email'],
      [['--pix-key-type', 'cpf'], '--pix-key-type goes with --pix-key'],
    ] as const) {
      const refused = await cli(['affiliates', 'update', String(id), ...flags]);
      expect(refused.code, flags.join(' ')).to.equal(2);
      expect(refused.stderr).to.include(said);
    }
  });

  it('an unreachable daemon is a clear error, exit 1', async () => {
    const down = await cli(['affiliates', 'list'], { AFFILIATED_BASE_URL: 'http://127.0.0.1:9' });
    expect(down.code).to.equal(1);
    expect(down.stderr).to.include(
      'error: nothing answers at http://127.0.0.1:9: is the daemon running (`npx affiliated serve`)?',
    );
    expect(down.stderr).to.not.include('ECONNREFUSED');
  });

  it('events send: one event from flags', async () => {
    await makeAffiliate(t.url, merchant.key, { email: 'ana@example.com', referralId: 'ANA1' });
    const args = ['events', 'send', '--type', 'conversion', '--campaign', merchant.publicId, '--affiliate', 'ANA1'];
    const sent = await cli([...args, '--order-id', 'A-1', '--order-value', '249.90', '--json']);
    expect(sent.code, sent.stderr).to.equal(0);
    expect(parseJson(sent)).to.deep.equal({ success: true, received: 1, accepted: 1, skipped: [] });
    const again = await cli([...args, '--order-id', 'A-1', '--order-value', '249.90']);
    expect(again.code).to.equal(0);
    expect(again.stdout).to.include('Not stored: duplicate order id');
    expect(await countRows(t.db, 'conversions', merchant.campaignId)).to.equal(1);

    // No --campaign: the key names its campaign (GET /v1/campaign).
    const before = await countRows(t.db, 'tracking_events', merchant.campaignId);
    const view = await cli(['events', 'send', '--type', 'page_view', '--affiliate', 'ANA1', '--session', 's1']);
    expect(view.code, view.stderr).to.equal(0);
    expect(view.stdout).to.include('Accepted page_view for ANA1');
    expect(await countRows(t.db, 'tracking_events', merchant.campaignId)).to.equal(before + 1);
    const wrong = await cli(['events', 'send', '--type', 'lead', '--affiliate', 'ANA1', '--campaign', 'spring-sale']);
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr).to.include(
      `--campaign spring-sale is not the API key's campaign: the key belongs to campaign "${merchant.publicId}"`,
    );

    const incomplete = await cli(args);
    expect(incomplete.code).to.equal(2);
    expect(incomplete.stderr).to.include('properties is required for conversion events');
    const noOrderValue = await cli([...args, '--order-id', 'A-2']);
    expect(noOrderValue.code).to.equal(2);
    expect(noOrderValue.stderr).to.include('--order-value is required for conversion events');
  });
});
