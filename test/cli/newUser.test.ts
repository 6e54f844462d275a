import { writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { clientEnv, parseJson, runCliInProcess } from '../helpers/cli.js';
import { createMerchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { lifecycleApi } from '../helpers/lifecycleApi.js';
import { tempDir } from '../helpers/replay.js';

/** The rough edges a new user met walking the programme from the terminal, one test each. */
describe(`the CLI as a new user meets it (${ENGINE})`, () => {
  const t = useTestDaemon();
  const life = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (...args: string[]) => runCliInProcess(args, { env });

  beforeEach(() => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
  });
  afterEach(() => files.remove());

  it('snippet --public-url ending in /v1 points at /v1/sdk/tracker.js, not /v1/v1/...', async () => {
    for (const given of ['https://aff.example.com/v1', 'https://aff.example.com/v1/']) {
      const result = await cli('snippet', '--public-url', given, '--json');
      expect(result.code, result.stderr).to.equal(0);
      expect(parseJson(result).src).to.equal('https://aff.example.com/v1/sdk/tracker.js');
    }
  });

  it('events replay stopped by the plan’s conversion limit names the fix, as events send does', async () => {
    const limited = await createMerchant(t.db, { limits: { maxMonthlyConversions: 1 } });
    const { code } = await addAffiliate(t.db, limited.campaignId);
    const file = files.file('sales.ndjson');
    const lines = [1, 2, 3].map((n) => JSON.stringify(conversion(limited.publicId, code, `o-${n}`, 10)));
    writeFileSync(file, `${lines.join('\n')}\n`);
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: limited.key });
    const result = await cli('events', 'replay', file, '--batch-size', '1', '--concurrency', '1');
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('error 403: Conversion limit exceeded');
    expect(result.stderr).to.include(`affiliated campaigns update ${limited.publicId} --plan PLAN`);
    expect(result.stderr).to.include('run the same command with --resume to continue');
  });

  it('report shows a rate only where it means something, and says what it is', async () => {
    const { merchant } = t;
    const shop = await addAffiliate(t.db, merchant.campaignId, { code: 'SHOP' });
    const tagged = await addAffiliate(t.db, merchant.campaignId, { code: 'TAGGED' });
    const day = { properties: { timestamp: '2026-06-10T10:00:00Z' } };
    const sale = (code: string, order: string) =>
      conversion(merchant.publicId, code, order, 100, {
        properties: { order_id: order, order_value: 100, timestamp: '2026-06-10T11:00:00Z' },
      });
    const events = [
      // Sales reported by the backend, one visit seen by the tag: no rate (it would be 500 %).
      pageView(merchant.publicId, shop.code, day),
      ...[1, 2, 3, 4, 5].map((n) => sale(shop.code, `s-${n}`)),
      // Four visits, one sale: 25 %.
      ...[1, 2, 3, 4].map(() => pageView(merchant.publicId, tagged.code, day)),
      sale(tagged.code, 't-1'),
    ];
    const sent = await call(t.url, 'POST', '/v1/events', { key: merchant.key, body: { events } });
    expect(sent.body.accepted, sent.text).to.equal(11);

    const json = parseJson(await cli('report', '--from', '2026-06-10', '--to', '2026-06-10', '--json'));
    const rates = Object.fromEntries(
      json.affiliates.map((row: { referralId: string; conversionRate: number | null }) => [
        row.referralId,
        row.conversionRate,
      ]),
    );
    expect(rates).to.deep.equal({ SHOP: null, TAGGED: 0.25 });
    expect(json.totals.conversionRate).to.equal(null);

    const table = await cli('report', '--from', '2026-06-10', '--to', '2026-06-10');
    expect(table.code, table.stderr).to.equal(0);
    expect(table.stdout).to.not.match(/\d{3,}\.\d%/);
    expect(table.stdout).to.match(/^-\s+SHOP\s+1\s+0\s+5\s+-\s+500\.00/m);
    expect(table.stdout).to.match(/^-\s+TAGGED\s+4\s+0\s+1\s+25\.0%/m);
    expect(table.stderr).to.include('RATE: conversions per page view the tracking tag counted');
  });

  it('payouts get and mark-paid count the conversions of a big payout instead of printing every id', async () => {
    const { id: affiliateId, code } = await addAffiliate(t.db, t.merchant.campaignId);
    const orders = Array.from({ length: 40 }, (_, n) => [`o-${n}`, 10] as const);
    await life.send(code, orders);
    const bulk = await life.api('POST', '/v1/conversions/bulk', { status: 'approved', filter: { status: 'pending' } });
    expect(bulk.body.updated, bulk.text).to.equal(40);
    const payout = (await life.payout(affiliateId)).body;
    for (const args of [
      ['payouts', 'get', String(payout.id)],
      ['payouts', 'mark-paid', String(payout.id)],
    ]) {
      const result = await cli(...args);
      expect(result.code, result.stderr).to.equal(0);
      const line = result.stdout.split('\n').find((l) => l.startsWith('conversions:')) ?? '';
      const ids = [...payout.conversionIds].sort((a: number, b: number) => a - b);
      expect(line).to.match(/^conversions:\s+40 \(/);
      expect(line).to.include('--json lists every id');
      expect(line).to.not.include(String(ids[20]));
      expect(line.length).to.be.below(120);
    }
    const json = parseJson(await cli('payouts', 'get', String(payout.id), '--json'));
    expect(json.conversionIds).to.have.length(40);
  });

  it('one rule for date ranges: both ends included everywhere, and a reversed range refused everywhere', async () => {
    const { code } = await addAffiliate(t.db, t.merchant.campaignId);
    const [late, next] = await life.arrive(code, [
      ['late-nov', 10],
      ['dec-1', 10],
    ]);
    await t
      .db('conversions')
      .where({ id: late })
      .update({ created_at: new Date('2026-11-30T23:30:00Z') });
    await t
      .db('conversions')
      .where({ id: next })
      .update({ created_at: new Date('2026-12-01T00:00:00Z') });

    // --to names the last day included, as report --to does.
    const listed = parseJson(await cli('conversions', 'list', '--from', '2026-11-01', '--to', '2026-11-30', '--json'));
    expect(listed.conversions.map((c: { id: number }) => c.id)).to.deep.equal([late]);
    const api = await call(t.url, 'GET', '/v1/conversions?from=2026-11-30&to=2026-11-30', { key: t.merchant.key });
    expect(api.body.conversions.map((c: { id: number }) => c.id)).to.deep.equal([late]);
    const instant = await call(t.url, 'GET', '/v1/conversions?from=2026-11-01&to=2026-11-30T23:30:00Z', {
      key: t.merchant.key,
    });
    expect(instant.body.conversions.map((c: { id: number }) => c.id)).to.deep.equal([late]);

    // Reversed: a usage error in both commands, a 400 on both routes, never an empty answer.
    for (const command of ['conversions list', 'report']) {
      const reversed = await cli(...command.split(' '), '--from', '2026-12-01', '--to', '2026-11-01');
      expect(reversed.code, command).to.equal(2);
      expect(reversed.stderr).to.include('--from 2026-12-01 is after --to 2026-11-01');
    }
    for (const route of ['/v1/conversions', '/v1/reports/affiliates']) {
      const reply = await call(t.url, 'GET', `${route}?from=2026-12-01&to=2026-11-01`, { key: t.merchant.key });
      expect(reply.status, route).to.equal(400);
      expect(reply.body.message).to.deep.equal(['from must not be after to (2026-12-01 is after 2026-11-01)']);
    }
  });

  it('refunds create says when a clawback was recorded, and refunds list shows the clawbacks', async () => {
    const { id: affiliateId, code } = await addAffiliate(t.db, t.merchant.campaignId);
    const [paid, open] = await life.arrive(code, [
      ['paid-1', 200],
      ['open-1', 50],
    ]);
    await life.approve(paid ?? 0);
    const payout = (await life.payout(affiliateId)).body;
    expect((await life.settle(payout.id, 'paid')).status).to.equal(200);

    const refunded = await cli('refunds', 'create', 'paid-1', '--reason', 'chargeback');
    expect(refunded.code, refunded.stderr).to.equal(0);
    expect(refunded.stderr).to.include(
      `Its commission was in payout ${payout.id} (paid): a clawback of BRL 20.00 is recorded against affiliate ${affiliateId}`,
    );
    const plain = await cli('refunds', 'create', 'open-1');
    expect(plain.stderr).to.include('no commission had been paid out');

    const all = await cli('refunds', 'list');
    expect(all.code, all.stderr).to.equal(0);
    expect(all.stdout).to.match(
      new RegExp(`^${paid}\\s+${affiliateId}\\s+paid-1\\s+20\\.00\\s+20\\.00\\s+${payout.id}\\s`, 'm'),
    );
    expect(all.stdout).to.match(new RegExp(`^${open}\\s+${affiliateId}\\s+open-1\\s+5\\.00\\s+-\\s+-\\s`, 'm'));
    expect(all.stderr).to.include('2 refunds, 1 clawback: BRL 20.00 clawed back in all');
    const clawbacks = parseJson(await cli('refunds', 'list', '--clawbacks', '--json'));
    expect(clawbacks.refunds.map((c: { id: number }) => c.id)).to.deep.equal([paid]);
  });

  it('conversions list and payouts list take --all; report takes --output csv', async () => {
    const { code } = await addAffiliate(t.db, t.merchant.campaignId);
    await life.send(
      code,
      Array.from({ length: 7 }, (_, n) => [`o-${n}`, 10] as const),
    );
    const every = await cli('conversions', 'list', '--all', '--limit', '3', '--json');
    expect(every.code, every.stderr).to.equal(0);
    expect(parseJson(every).conversions).to.have.length(7);
    expect(parseJson(every).total).to.equal(7);
    const paged = await cli('conversions', 'list', '--limit', '3');
    expect(paged.stderr).to.include('page 1 of 3 (7 conversions; --all for every page)');
    expect((await cli('conversions', 'list', '--all', '--page', '2')).code).to.equal(2);
    const payouts = await cli('payouts', 'list', '--all', '--json');
    expect(payouts.code, payouts.stderr).to.equal(0);
    expect(parseJson(payouts)).to.deep.equal({ payouts: [], total: 0 });

    const csv = await cli('report', '--output', 'csv');
    expect(csv.code, csv.stderr).to.equal(0);
    const [header, row] = csv.stdout.split('\r\n');
    expect(header).to.equal(
      'affiliate_id,name,referral_id,page_views,leads,conversions,conversion_rate,revenue,commissions',
    );
    expect(row).to.match(new RegExp(`^\\d+,,${code},0,0,7,,70\\.00,7\\.00$`));
  });
});
