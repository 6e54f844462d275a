import { readFileSync, statSync } from 'node:fs';
import { expect } from 'chai';
import { clientEnv, parseJson, runCli, runCliInProcess, startServe } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate, conversion } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { tempDir } from '../helpers/replay.js';

describe(`the whole commission cycle from the CLI, as child processes (${ENGINE})`, () => {
  let t: TestDatabase;
  let files: ReturnType<typeof tempDir>;
  before(async () => {
    t = await createTestDatabase();
  });
  after(async () => t.drop());
  beforeEach(async () => {
    await cleanTables(t.db);
    files = tempDir();
  });
  afterEach(() => files.remove());

  it('conversions arrive, are approved, one is refunded, payouts are made, exported, paid, and the totals show it', async () => {
    const operator = { DATABASE_URL: t.url };
    const campaign = parseJson(
      await runCli(
        ['campaigns', 'create', '--name', 'Shop', '--public-id', 'shop', '--commission-percent', '10', '--json'],
        {
          env: operator,
        },
      ),
    );
    const updated = await runCli(['campaigns', 'update', 'shop', '--payout-minimum', '1', '--json'], { env: operator });
    expect(updated.code, updated.stderr).to.equal(0);
    expect(parseJson(updated)).to.include({ id: campaign.id, payoutMinimum: 1, autoApproveDays: null });
    const key = parseJson(await runCli(['keys', 'create', '--campaign', 'shop', '--json'], { env: operator })).key;

    const served = await startServe({ env: { ...operator, LOG_LEVEL: 'info' } });
    try {
      const env = clientEnv(files.file('config.json'), { baseUrl: served.url, apiKey: key });
      const cli = async (...args: string[]) => {
        const result = await runCli([...args, '--json'], { env });
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(0);
        return parseJson(result);
      };
      const ana = await cli(
        'affiliates',
        'create',
        '--email',
        'ana@example.com',
        '--name',
        'Ana, "Nana"',
        '--password',
        'secret123',
        '--referral-id',
        'ANA',
      );
      const bia = await cli(
        'affiliates',
        'create',
        '--email',
        'bia@example.com',
        '--password',
        'secret123',
        '--referral-id',
        'BIA',
      );
      // Conversions arrive (one batch, as a shop's backend sends them).
      const sent = await call(served.url, 'POST', '/v1/events', {
        key,
        body: {
          events: [
            conversion('shop', 'ANA', 'o-1', 100.05),
            conversion('shop', 'ANA', 'o-2', 59.9),
            conversion('shop', 'ANA', 'o-3', 10),
            conversion('shop', 'BIA', 'o-4', 250),
          ],
        },
      });
      expect(sent.body.accepted).to.equal(4);

      const pending = await cli('conversions', 'list', '--status', 'pending');
      expect(pending.total).to.equal(4);
      const approved = await cli('conversions', 'approve', '--all-pending');
      expect(approved).to.include({ updated: 4, unchanged: 0, failed: 0 });
      const refunded = await cli('refunds', 'create', 'o-3', '--reason', 'returned');
      expect(refunded).to.include({ orderId: 'o-3', status: 'rejected', refundReason: 'returned' });

      const made = await cli('payouts', 'create', '--all');
      expect(made.created.map((p: { affiliateId: number; amount: number }) => [p.affiliateId, p.amount])).to.deep.equal(
        [
          [ana.id, 16.0],
          [bia.id, 25],
        ],
      );
      const exported = await runCli(
        ['payouts', 'export', '--status', 'pending', '--format', 'csv', '--output', files.file('pay.csv')],
        {
          env,
        },
      );
      expect(exported.code, exported.stderr).to.equal(0);
      expect(exported.stdout).to.include('Wrote 2 pending payouts, BRL 41.00 in all');
      const [anaPayout, biaPayout] = made.created;
      expect(readFileSync(files.file('pay.csv'), 'utf8')).to.equal(
        'payout_id,affiliate_id,name,email,payout_method,pix_key_type,payout_account,amount,currency,rail,reference,receipt,failure_reason,commission_rules\r\n' +
          `${anaPayout.id},${ana.id},"Ana, ""Nana""",ana@example.com,,,,16.00,BRL,,,,,campaign 10%: 2\r\n` +
          `${biaPayout.id},${bia.id},,bia@example.com,,,,25.00,BRL,,,,,campaign 10%: 1\r\n`,
      );
      expect(statSync(files.file('pay.csv')).mode & 0o777).to.equal(0o600);

      expect(await cli('payouts', 'mark-paid', String(anaPayout.id))).to.include({ status: 'paid' });
      expect(await cli('payouts', 'mark-failed', String(biaPayout.id))).to.include({ status: 'failed' });
      expect(await cli('affiliates', 'get', String(ana.id))).to.include({
        totalConversions: 3,
        totalCommissions: 16,
        totalPaid: 16,
      });
      expect(await cli('affiliates', 'get', String(bia.id))).to.include({ totalCommissions: 25, totalPaid: 0 });
      const stdoutCsv = await runCli(['payouts', 'export', '--status', 'failed'], { env });
      expect(stdoutCsv.stdout).to.equal(
        // A failed payout released its conversions: no rule to name.
        'payout_id,affiliate_id,name,email,payout_method,pix_key_type,payout_account,amount,currency,rail,reference,receipt,failure_reason,commission_rules\r\n' +
          `${biaPayout.id},${bia.id},,bia@example.com,,,,25.00,BRL,,,,,\r\n`,
      );
      const paidList = await cli('payouts', 'list', '--status', 'paid');
      expect(paidList.payouts.map((p: { id: number }) => p.id)).to.deep.equal([anaPayout.id]);
    } finally {
      served.child.kill('SIGTERM');
      await served.done;
    }
  });
});

describe(`conversions, refunds and payouts commands in detail, in-process CLI (${ENGINE})`, () => {
  const t = useTestDaemon();
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  let code: string;
  let affiliateId: number;
  const cli = (...args: string[]) => runCliInProcess(args, { env });
  const send = (orders: Array<[string, number]>) =>
    call(t.url, 'POST', '/v1/events', {
      key: t.merchant.key,
      body: { events: orders.map(([order, value]) => conversion(t.merchant.publicId, code, order, value)) },
    });
  const idsOf = async () =>
    (await t.db('conversions').where('campaign_id', t.merchant.campaignId).orderBy('id').pluck('id')).map(Number);

  beforeEach(async () => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
    ({ code, id: affiliateId } = await addAffiliate(t.db, t.merchant.campaignId));
  });
  afterEach(() => files.remove());

  it('approve and reject several ids: a table of outcomes, exit 1 when one fails', async () => {
    await send([
      ['a', 10],
      ['b', 20],
      ['c', 30],
    ]);
    const [a, b, c] = await idsOf();
    const first = await cli('conversions', 'approve', String(a), String(b));
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.match(/ID\s+OUTCOME\s+STATUS\s+MESSAGE/);
    expect(first.stdout).to.include('Approved 2 conversions (0 already approved, 0 failed).');
    const rejected = await cli('conversions', 'reject', String(b), String(c), '999999');
    expect(rejected.code).to.equal(1);
    expect(rejected.stdout).to.match(new RegExp(`${c}\\s+updated\\s+rejected`));
    expect(rejected.stdout).to.match(/999999\s+not_found\s+-\s+Conversion not found/);
    expect(rejected.stdout).to.include('Rejected 2 conversions (0 already rejected, 1 failed).');
    const back = await cli('conversions', 'approve', String(c), '--json');
    expect(back.code).to.equal(1);
    expect(parseJson(back).results).to.deep.equal([
      { id: c, outcome: 'conflict', status: 'rejected', message: 'Conversion cannot move from rejected to approved' },
    ]);
  });

  it('--all-pending approves ten thousand conversions in a few requests; --before limits by arrival', async () => {
    const now = Date.now();
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      campaign_id: t.merchant.campaignId,
      affiliate_id: affiliateId,
      order_id: `bulk-${i}`,
      order_value_cents: 1000,
      commission_cents: 100,
      status: 'pending' as const,
      payout_id: null,
      properties: null,
      // The first 500 arrived ten days ago.
      occurred_at: new Date(now - (i < 500 ? 10 : 0) * 86_400_000),
      created_at: new Date(now - (i < 500 ? 10 : 0) * 86_400_000),
      updated_at: new Date(now),
    }));
    for (let start = 0; start < rows.length; start += 500)
      await t.db('conversions').insert(rows.slice(start, start + 500));
    const before = new Date(now - 86_400_000).toISOString().slice(0, 10);
    const old = await cli('conversions', 'reject', '--all-pending', '--before', before, '--json');
    expect(old.code, old.stderr).to.equal(0);
    expect(parseJson(old)).to.include({ updated: 500, failed: 0 });
    const all = await cli('conversions', 'approve', '--all-pending');
    expect(all.code, all.stderr).to.equal(0);
    expect(all.stdout).to.equal('Approved 9500 conversions (0 already approved, 0 failed).\n');
    const counts = await t
      .db('conversions')
      .where('campaign_id', t.merchant.campaignId)
      .groupBy('status')
      .select<{ status: string; n: number | string }[]>('status', t.db.raw('count(*) as n'));
    expect(Object.fromEntries(counts.map((r) => [r.status, Number(r.n)]))).to.deep.equal({
      approved: 9500,
      rejected: 500,
    });
  });

  it('usage errors exit 2: ids with --all-pending, neither, --before alone, a bad date, create without a target', async () => {
    for (const args of [
      ['conversions', 'approve', '1', '--all-pending'],
      ['conversions', 'approve'],
      ['conversions', 'reject', '1', '--before', '2026-01-01'],
      ['conversions', 'approve', '--all-pending', '--before', 'last week'],
      ['conversions', 'approve', 'x'],
      ['payouts', 'create'],
      ['payouts', 'create', '--affiliate', '1', '--all'],
      ['payouts', 'export', '--format', 'xlsx'],
      ['refunds', 'create'],
    ]) {
      const result = await cli(...args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(2);
    }
  });

  it('list, get, refund, create, mark-paid, with tables and API errors as the spec prints them', async () => {
    await send([
      ['t-1', 123.45],
      ['t-2', 20],
    ]);
    const [first] = await idsOf();
    const list = await cli('conversions', 'list', '--affiliate', String(affiliateId), '--from', '2020-01-01');
    expect(list.stdout).to.match(
      /ID\s+AFFILIATE\s+ORDER\s+VALUE\s+COMMISSION\s+RULE\s+STATUS\s+PAYOUT\s+FLAGS\s+CREATED/,
    );
    expect(list.stdout).to.match(/t-1\s+123\.45\s+12\.35\s+campaign\s+pending\s+-/);
    expect(list.stderr).to.include('page 1 of 1 (2 conversions)');
    const got = await cli('conversions', 'get', String(first));
    expect(got.stdout).to.match(/commission \(BRL\):\s+12\.35/);
    expect(got.stdout).to.match(/rule:\s+campaign 10%/);
    expect(got.stdout).to.match(/kind:\s+sale/);

    const nothing = await cli('payouts', 'create', '--affiliate', String(affiliateId));
    expect(nothing.code).to.equal(1);
    expect(nothing.stderr).to.include(
      `error 409: Nothing to pay: affiliate ${affiliateId} has no approved conversions`,
    );
    await cli('conversions', 'approve', '--all-pending');
    const made = await cli('payouts', 'create', '--affiliate', String(affiliateId));
    expect(made.code, made.stderr).to.equal(0);
    expect(made.stderr).to.match(/Created payout \d+ of BRL 14\.35 for affiliate/);
    const payoutId = Number(/Created payout (\d+)/.exec(made.stderr)?.[1]);
    const paid = await cli('payouts', 'mark-paid', String(payoutId));
    expect(paid.stdout).to.match(/status:\s+paid/);
    const again = await cli('payouts', 'mark-failed', String(payoutId), '--json');
    expect(again.code).to.equal(1);
    expect(parseJson(again)).to.deep.equal({
      statusCode: 409,
      message: 'Payout cannot move from paid to failed',
      error: 'Conflict',
    });
    const refund = await cli('refunds', 'create', 't-2');
    expect(refund.stdout).to.match(/status:\s+rejected/);
    const unknown = await cli('refunds', 'create', 'nope');
    expect(unknown.stderr).to.include('error 404: Conversion not found');
    const shown = await cli('payouts', 'get', String(payoutId));
    expect(shown.stdout).to.match(/amount \(BRL\):\s+14\.35/);
    const payouts = await cli('payouts', 'list');
    expect(payouts.stdout).to.match(
      new RegExp(`${payoutId}\\s+${affiliateId}\\s+-\\s+\\S+@example\\.com\\s+14\\.35\\s+paid\\s+2`),
    );
    const none = await cli('payouts', 'create', '--all');
    expect(none.stdout).to.equal('Nothing to pay.\n');
  });
});
