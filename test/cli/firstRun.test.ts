import { expect } from 'chai';
import { clientEnv, parseJson, runCli } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { makeAffiliate, tempDir } from '../helpers/replay.js';

describe(`a merchant's first run from the CLI (${ENGINE})`, function () {
  this.timeout(60_000);
  const t = useTestDaemon({ RATE_LIMIT_DEFAULT_PER_MIN: '20' });
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  beforeEach(() => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
  });
  afterEach(() => files.remove());

  it('init without --plan makes an unlimited campaign and says what plans are for', async () => {
    const result = await runCli(['init', '--name', 'My shop', '--base-url', t.url], {
      env: { ...clientEnv(files.file('init.json')), DATABASE_URL: t.database.url, BCRYPT_ROUNDS: '4' },
    });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.match(/plan: +unlimited/);
    expect(result.stderr).to.include('a plan caps affiliates and conversions a month');
  });

  it('status tells of affiliates waiting for approval', async () => {
    await addAffiliate(t.db, t.merchant.campaignId, { status: 'pending' });
    await addAffiliate(t.db, t.merchant.campaignId, { status: 'pending' });
    const result = await runCli(['status'], { env });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include(
      '2 affiliate applications wait for approval: `affiliated affiliates list --status pending`',
    );
    const json = parseJson(await runCli(['status', '--json'], { env }));
    expect(json.pendingAffiliates).to.equal(2);
  });

  it('events send sets product, customer_email, timestamp and event_id', async () => {
    const { key, publicId } = t.merchant;
    const operator = { DATABASE_URL: t.database.url };
    const rule = await runCli(['campaigns', 'update', publicId, '--product', 'Plano Pro=25%'], { env: operator });
    expect(rule.code, rule.stderr).to.equal(0);
    const ana = await makeAffiliate(t.url, key, { email: 'ana@example.com', referralId: 'ANA1' });
    const args = [
      'events',
      'send',
      '--type',
      'conversion',
      '--affiliate',
      'ANA1',
      '--order-id',
      'p-1',
      '--order-value',
      '100',
      '--product',
      'Plano Pro',
      '--customer-email',
      'ana@example.com',
      '--timestamp',
      '2026-11-01T10:00:00Z',
      '--event-id',
      'shop-p-1',
    ];
    const sent = await runCli(args, { env });
    expect(sent.code, sent.stderr).to.equal(0);
    const listed = await call(t.url, 'GET', `/v1/conversions?affiliateId=${ana.id}`, { key });
    const [stored] = listed.body.conversions;
    expect(stored.commission).to.equal(25); // the product's rate, not the campaign's
    expect(stored.flags).to.include('self_referral'); // the customer is the affiliate herself
    expect(stored.occurredAt).to.equal('2026-11-01T10:00:00.000Z');
    const again = await runCli([...args.slice(0, 7), 'p-2', ...args.slice(8)], { env });
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.include('Not stored: duplicate event id.');
  });

  it('events send --order-value says what it accepts, and refuses 0 before sending', async () => {
    const help = await runCli(['events', 'send', '--help'], { env });
    // Help wraps to the width: read it as one line.
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).to.include("order value in the campaign's currency (conversions): above 0, at least 0.01");
    const zero = await runCli(['events', 'send', '--type', 'conversion', '--affiliate', 'X', '--order-value', '0'], {
      env,
    });
    expect(zero.code).to.equal(2);
    expect(zero.stderr).to.include('It must be a number above 0.');
  });
});
