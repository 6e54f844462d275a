import { writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { clientEnv, runCli } from '../helpers/cli.js';
import { createMerchant, servicesFor, startTestDaemon, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, pageView, storedCounts } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { insertConversion } from '../helpers/rows.js';
import { tempDir } from '../helpers/replay.js';

describe(`CLI messages that said the wrong thing (${ENGINE})`, function () {
  this.timeout(60_000);
  const t = useTestDaemon({ RATE_LIMIT_DEFAULT_PER_MIN: '20' });
  let files: ReturnType<typeof tempDir>;
  const envOf = (key: string) => clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: key });
  beforeEach(() => {
    files = tempDir();
  });
  afterEach(() => files.remove());

  it('a batch past the monthly limit says it would pass it and how many slots are left; none left says so', async () => {
    const limited = await createMerchant(t.db, { limits: { maxMonthlyConversions: 10 } });
    const { code } = await addAffiliate(t.db, limited.campaignId);
    const first = Array.from({ length: 8 }, (_, i) => conversion(limited.publicId, code, `o-${i}`, 10));
    const sent = await call(t.url, 'POST', '/v1/events', { key: limited.key, body: { events: first } });
    expect(sent.status).to.equal(200);
    const file = files.file('events.ndjson');
    const lines = [8, 9, 10].map((i) => JSON.stringify(conversion(limited.publicId, code, `o-${i}`, 10)));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const replayed = await runCli(['events', 'replay', file], { env: envOf(limited.key) });
    expect(replayed.code).to.equal(1);
    // The daemon's own words stay as the spec has them; the CLI says what they mean.
    expect(replayed.stderr + replayed.stdout).to.include('Current: 8/10');
    expect(replayed.stderr + replayed.stdout).to.include(
      'The request would pass the monthly limit: 2 of 10 conversion slots are left this month',
    );
    const fill = [8, 9].map((i) => conversion(limited.publicId, code, `o-${i}`, 10));
    expect((await call(t.url, 'POST', '/v1/events', { key: limited.key, body: { events: fill } })).status).to.equal(
      200,
    );
    const one = await runCli(
      ['events', 'send', '--type', 'conversion', '--affiliate', code, '--order-id', 'o-11', '--order-value', '10'],
      { env: envOf(limited.key) },
    );
    expect(one.code).to.equal(1);
    expect(one.stderr).to.include('No conversion slot is left this month: all 10 are used.');
  });

  it('events replay sends what fits under the monthly limit, stops at the first conversion past it, resumes there', async () => {
    const limited = await createMerchant(t.db, { limits: { maxMonthlyConversions: 10 } });
    const { code } = await addAffiliate(t.db, limited.campaignId);
    const used = Array.from({ length: 5 }, (_, i) => conversion(limited.publicId, code, `u-${i}`, 10));
    expect((await call(t.url, 'POST', '/v1/events', { key: limited.key, body: { events: used } })).status).to.equal(
      200,
    );
    // Five slots left. Batches of 4: lines 1-4 hold 3 conversions (they fit), lines 5-8 hold 3
    // where 2 fit: lines 5-7 go (a page view between), line 8 is the first past the limit.
    const kinds = ['c', 'c', 'v', 'c', 'c', 'v', 'c', 'c', 'c', 'v'];
    const lines = kinds.map((kind, i) =>
      JSON.stringify(
        kind === 'c' ? conversion(limited.publicId, code, `line-${i + 1}`, 10) : pageView(limited.publicId, code),
      ),
    );
    const file = files.file('month.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    // A daemon that reads the plan at every request, so the resume meets the raised limit.
    const strict = await startTestDaemon(t.database.url, { API_KEY_CACHE_MS: '0', RATE_LIMIT_DEFAULT_PER_MIN: '20' });
    try {
      const env = clientEnv(files.file('config.json'), { baseUrl: strict.url, apiKey: limited.key });
      const args = ['events', 'replay', file, '--batch-size', '4', '--concurrency', '1'];
      const replayed = await runCli(args, { env });
      expect(replayed.code, replayed.stderr).to.equal(1);
      expect(replayed.stderr).to.include('Current: 8/10');
      expect(replayed.stderr).to.include(
        'The request would pass the monthly limit: 2 of 10 conversion slots are left this month',
      );
      expect(replayed.stderr).to.include(
        'The replay sent what fit: the first 3 events of that batch (lines up to 7); ' +
          'line 8 holds the first conversion past the limit.',
      );
      expect(replayed.stderr).to.include('Stopped at line 8 (lines up to 7 are done)');
      expect(replayed.stdout).to.match(/accepted\s+7\b/);
      const orders = await t.db('conversions').where('campaign_id', limited.campaignId).pluck('order_id');
      expect(orders.filter((id: string) => id.startsWith('line-')).sort()).to.deep.equal(
        ['line-1', 'line-2', 'line-4', 'line-5', 'line-7'].sort(),
      );
      expect(await storedCounts(t.db, limited.campaignId)).to.deep.include({ conversions: 10, usage: 10 });

      await servicesFor(t.db).campaigns.update(limited.campaignId, { plan: 'unlimited' });
      const resumed = await runCli([...args, '--resume', '--json'], { env });
      expect(resumed.code, resumed.stderr).to.equal(0);
      const summary = JSON.parse(resumed.stdout);
      expect(summary).to.deep.include({ resumedFromLine: 7, lines: 10, accepted: 10, rejected: 0, stopped: null });
      expect(await storedCounts(t.db, limited.campaignId)).to.deep.include({ conversions: 12, events: 15 });
    } finally {
      await strict.close();
    }
  });

  it('a refund sent again with the same --refund-id says it was already applied', async () => {
    const { key, publicId } = t.merchant;
    const { code } = await addAffiliate(t.db, t.merchant.campaignId);
    await call(t.url, 'POST', '/v1/events', { key, body: { events: [conversion(publicId, code, 'r-1', 100)] } });
    const args = ['refunds', 'create', 'r-1', '--amount', '10', '--refund-id', 're_1'];
    const first = await runCli(args, { env: envOf(key) });
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stderr).to.include('Refunded BRL 10.00 of BRL 100.00');
    const again = await runCli(args, { env: envOf(key) });
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.include('Refund re_1 was already applied to order r-1: nothing changed.');
    expect(again.stderr).to.not.include('Refunded BRL');
  });

  it('the report labels its commissions column: refunded and rejected sales count, unlike totalCommissions', async () => {
    const { key, publicId } = t.merchant;
    const { code } = await addAffiliate(t.db, t.merchant.campaignId);
    await call(t.url, 'POST', '/v1/events', { key, body: { events: [conversion(publicId, code, 'x-1', 100)] } });
    const result = await runCli(['report'], { env: envOf(key) });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include(
      'COMMISSIONS: what the period’s sales earned when they arrived, refunded and rejected ones included',
    );
  });

  it('marking a payout of one conversion paid says "its 1 conversion is paid"', async () => {
    const { campaignId, key } = t.merchant;
    const { id } = await addAffiliate(t.db, campaignId);
    await insertConversion(t.db, campaignId, id, 10_000, 'approved');
    const created = await call(t.url, 'POST', '/v1/payouts', { key, body: { affiliateId: id } });
    expect(created.status, created.text).to.equal(201);
    const payout: number = created.body.id;
    const result = await runCli(['payouts', 'mark-paid', String(payout)], { env: envOf(key) });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include(`Marked payout ${payout} paid: its 1 conversion is paid.`);
  });
});
