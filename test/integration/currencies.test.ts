import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { clientEnv, runCli } from '../helpers/cli.js';
import { createMerchant, type Merchant, servicesFor, testConfig } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { conversion } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { PortalBrowser, textOf } from '../helpers/portal.js';
import { makeAffiliate, tempDir } from '../helpers/replay.js';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.js';

/**
 * A campaign's money in its own currency everywhere an affiliate or the merchant reads it
 * (docs/architecture.md "Money"): the portal's dashboard, the payout mail (real SMTP),
 * `conversions list` and the payouts CSV of the real CLI, for a currency of each exponent.
 * A sale of `order`, at the default 10 % commission, is approved, paid out and marked paid.
 */
const CASES = [
  {
    currency: 'BRL',
    language: 'pt-BR',
    order: 1234.56,
    // pt-BR writes R$ and a space, dots between thousands, a comma before the centavos.
    portal: { value: 'R$ 1.234,56', commission: 'R$ 123,46', paid: 'Comissão paga', status: 'paga' },
    mail: 'Um pagamento de R$ 123,46 foi feito para você.',
    cli: { value: '1,234.56', commission: '123.46', total: 'BRL 123.46' },
    csv: '123.46,BRL',
  },
  {
    currency: 'USD',
    language: 'en',
    order: 1234.56,
    portal: { value: '$1,234.56', commission: '$123.46', paid: 'Commission paid', status: 'paid' },
    mail: 'A payout of $123.46 was paid to you.',
    cli: { value: '1,234.56', commission: '123.46', total: 'USD 123.46' },
    csv: '123.46,USD',
  },
  {
    currency: 'JPY',
    language: 'en',
    // 10 % of ¥12,345 is ¥1,234.5: a yen has no subunit, so it reads (and is paid) as ¥1,235.
    order: 12345,
    portal: { value: '¥12,345', commission: '¥1,235', paid: 'Commission paid', status: 'paid' },
    mail: 'A payout of ¥1,235 was paid to you.',
    cli: { value: '12,345', commission: '1,235', total: 'JPY 1,235' },
    csv: '1235,JPY',
  },
  {
    currency: 'KWD',
    language: 'en',
    order: 1234.5,
    // Three decimals (fils); English has no symbol for the dinar, so its code.
    portal: { value: 'KWD 1,234.500', commission: 'KWD 123.450', paid: 'Commission paid', status: 'paid' },
    mail: 'A payout of KWD 123.450 was paid to you.',
    cli: { value: '1,234.500', commission: '123.450', total: 'KWD 123.450' },
    csv: '123.450,KWD',
  },
] as const;

describe(`money in the campaign's currency (${ENGINE})`, function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let smtp: TestSmtp;
  let daemon: Daemon;
  let merchant: Merchant;
  let files: ReturnType<typeof tempDir>;
  const api = (method: string, path: string, body?: unknown) =>
    call(daemon.url, method, path, { key: merchant.key, body });
  const cli = (...args: string[]) =>
    runCli(args, { env: clientEnv(files.file('config.json'), { baseUrl: daemon.url, apiKey: merchant.key }) });

  before(async () => {
    smtp = await startTestSmtp();
    database = await createTestDatabase();
    const config = testConfig(database.url, {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Acme partners <partners@acme.example>',
      MAIL_POLL_MS: '50',
    });
    daemon = await startDaemon(config, { logger: createLogger('silent') });
  });
  after(async () => {
    await daemon?.close();
    await smtp?.close();
    await database?.drop();
  });
  beforeEach(async () => {
    smtp.mails.length = 0;
    files = tempDir();
    await cleanTables(database.db);
    merchant = await createMerchant(database.db);
  });
  afterEach(() => files.remove());

  for (const c of CASES) {
    it(`${c.currency}: the dashboard, the payout mail, conversions list and the payouts CSV`, async () => {
      await servicesFor(database.db).campaigns.update(merchant.campaignId, {
        portal: true,
        approveAffiliates: 'auto',
        currency: c.currency,
      });
      const browser = new PortalBrowser(daemon.url, `/portal/${merchant.publicId}`, c.language);
      await browser.get('/signup');
      const signedUp = await browser.post('/signup', {
        name: 'Ana Lima',
        email: 'ana@example.com',
        password: 'correct-horse',
      });
      expect(signedUp.status).to.equal(200);
      const ana = await database.db('affiliates').where('email_key', 'ana@example.com').first();
      if (!ana) throw new Error('Ana did not sign up');
      const sent = await api('POST', '/v1/events', {
        events: [conversion(merchant.publicId, ana.referral_id, 'o-1', c.order)],
      });
      expect(sent.body).to.include({ accepted: 1 });
      const [id] = await database.db('conversions').where('order_id', 'o-1').pluck('id');
      expect((await api('PATCH', `/v1/conversions/${id}`, { status: 'approved' })).status).to.equal(200);
      const payout = await api('POST', '/v1/payouts', { affiliateId: ana.id });
      expect(payout.body).to.include({ currency: c.currency });
      expect((await api('PATCH', `/v1/payouts/${payout.body.id}`, { status: 'paid' })).status).to.equal(200);

      const mails = await smtp.waitFor(1);
      const paidMail = mails.find((mail) => mail.to.includes('ana@example.com'));
      expect(paidMail?.text).to.include(c.mail);

      await browser.get('/');
      expect((await browser.post('/login', { email: 'ana@example.com', password: 'correct-horse' })).status).to.equal(
        303,
      );
      const dashboard = textOf((await browser.get('/dashboard')).html);
      expect(dashboard).to.include(`${c.portal.paid} ${c.portal.commission} ${c.portal.commission}`);
      expect(dashboard).to.include(`o-1 ${c.portal.value} ${c.portal.commission} ${c.portal.status}`);

      const listed = await cli('conversions', 'list');
      expect(listed.code, listed.stderr).to.equal(0);
      expect(listed.stdout).to.match(new RegExp(`o-1\\s+${c.cli.value}\\s+${c.cli.commission}\\s+campaign\\s+paid`));
      expect(listed.stderr).to.include(`amounts in ${c.currency}`);

      const exported = await cli('payouts', 'export', '--status', 'paid', '--output', files.file('pay.csv'));
      expect(exported.code, exported.stderr).to.equal(0);
      expect(exported.stdout).to.include(`Wrote 1 paid payout, ${c.cli.total} in all`);
      const csv = await readFile(files.file('pay.csv'), 'utf8');
      expect(csv.split('\r\n')[1]).to.equal(
        // A payout marked paid by hand has no rail, reference, receipt or failure reason.
        `${payout.body.id},${ana.id},Ana Lima,ana@example.com,,,,${c.csv},,,,,campaign 10%: 1`,
      );
    });
  }

  it('reads an operator’s amounts (a refund, rule amounts) in the campaign’s currency: no decimals for a yen', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { currency: 'JPY' });
    await makeAffiliate(daemon.url, merchant.key, { email: 'bia@example.com', referralId: 'BIA1' });
    await api('POST', '/v1/events', { events: [conversion(merchant.publicId, 'BIA1', 'o-2', 5000)] });
    const refused = await cli('refunds', 'create', 'o-2', '--amount', '12.5');
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.include('--amount: 12.5 has more decimals than JPY has: JPY amounts have no decimals');
    const part = await cli('refunds', 'create', 'o-2', '--amount', '1200');
    expect(part.code, part.stderr).to.equal(0);
    expect(part.stderr).to.include('Refunded JPY 1,200 of JPY 5,000 of order o-2 so far');
    expect(part.stdout).to.match(/refunded \(JPY\):\s+1,200/);

    // Rule amounts too: ¥500 per conversion, never ¥5.50.
    const fractional = await cli('groups', 'create', '--name', 'Yen', '--commission-fixed', '5.5');
    expect(fractional.code).to.equal(2);
    expect(fractional.stderr).to.include('--commission-fixed: 5.5 has more decimals than JPY has');
    const product = await cli('groups', 'create', '--name', 'Yen', '--commission-percent', '5', '--product', 'Pro=0.5');
    expect(product.code).to.equal(2);
    expect(product.stderr).to.include('--product Pro: 0.5 has more decimals than JPY has');
    const group = await cli('groups', 'create', '--name', 'Yen', '--commission-fixed', '500', '--product', 'Pro=1500');
    expect(group.code, group.stderr).to.equal(0);
    expect(group.stdout).to.match(/rate:\s+JPY 500\n/);
    expect(group.stdout).to.match(/products:\s+Pro JPY 1,500\n/);
  });
});
