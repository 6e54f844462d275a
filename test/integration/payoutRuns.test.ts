import { expect } from 'chai';
import { actingAs, userActor } from '../../server/services/audit.js';
import { payoutScheduleJob } from '../../server/services/payouts/schedule.js';
import { payoutResumeJob } from '../../server/services/payouts/resume.js';
import { insertPayoutRun } from '../../server/repositories/payoutRuns.js';
import { createLogger } from '../../server/logger.js';
import { servicesFor, testConfig } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { type Details, eventually, useRailDaemon } from '../helpers/payoutRails.js';

const PIX = { method: 'pix', pixKeyType: 'phone', account: '+5511987654321' } as const;

describe(`payout runs: POST /v1/payout-runs, approval, schedule (${ENGINE})`, function () {
  this.timeout(60_000);
  const { t, fakes, rails } = useRailDaemon({ PAYOUT_SCHEDULE_INTERVAL_MS: '0' });
  const { api } = rails;
  const run = (body: object = {}) => api('POST', '/v1/payout-runs', body);

  beforeEach(async () => {
    await rails.connect(fakes);
    fakes.asaas.callbackUrl = undefined;
    fakes.paypal.callbackUrl = undefined;
    fakes.asaas.settleInstantly = true;
  });

  const owed = async (details: Details | null, orders: readonly number[]) => (await rails.owed(details, orders)).id;

  /** A dashboard user of the merchant's campaign, by the operator's command; its id. */
  async function admin(name: string, role = 'admin'): Promise<number> {
    const made = await t.daemon.services.dashboard.operator.create({
      campaign: t.merchant.publicId,
      email: `${name}@shop.example`,
      role,
    });
    if (made.state !== 'created') throw new Error(`no user: ${made.problem}`);
    return made.user.id;
  }

  const payoutCount = async () => Number((await t.db('payouts').count({ n: '*' }))[0]?.n);

  it('lists who is paid and who is left out and why; a dry run creates nothing, a run creates and sends', async () => {
    const services = servicesFor(t.db);
    await services.campaigns.update(t.merchant.campaignId, { currency: 'USD', payoutMinimum: 50 });
    await api('DELETE', '/v1/payout-rails/stripe');
    const paid = await owed({ method: 'paypal', account: 'ana@example.com' }, [1000, 234.5]);
    const noDetails = await owed(null, [1000]);
    const small = await owed({ method: 'paypal', account: 'bia@example.com' }, [100]);
    const stripe = await owed({ method: 'stripe', account: 'acct_1TestAccount09' }, [1000]);
    const pix = await owed(PIX, [1000]);

    const dry = await run({ dryRun: true });
    expect(dry.status, dry.text).to.equal(200);
    expect(dry.body).to.include({ id: null, status: 'dry_run', currency: 'USD', total: 123.45, createdAt: null });
    expect(dry.body.payouts).to.deep.equal([
      {
        affiliateId: paid,
        affiliateName: dry.body.payouts[0].affiliateName,
        affiliateEmail: dry.body.payouts[0].affiliateEmail,
        rail: 'paypal',
        amount: 123.45,
        payoutId: null,
        status: null,
      },
    ]);
    const reasons = (body: { leftOut: { affiliateId: number; reason: string }[] }) =>
      body.leftOut.map((left) => [left.affiliateId, left.reason]);
    const expected = [
      [noDetails, 'no_payout_details'],
      [small, 'below_minimum'],
      [stripe, 'rail_not_connected'],
      [pix, 'currency_not_supported'],
    ];
    expect(reasons(dry.body)).to.deep.equal(expected);
    expect(dry.body.leftOut[1].message).to.equal(
      "below_minimum: the balance of USD 10.00 (approved commissions less clawbacks) does not reach the campaign's payout minimum of USD 50.00: wait for more approved commissions",
    );
    expect(await payoutCount()).to.equal(0);

    // --rail: only the affiliates paid on that rail are looked at.
    const onlyPix = await run({ dryRun: true, rail: 'pix' });
    expect(onlyPix.body.payouts).to.deep.equal([]);
    expect(reasons(onlyPix.body)).to.deep.equal([[pix, 'currency_not_supported']]);

    const made = await run();
    expect(made.status, made.text).to.equal(200);
    expect(made.body).to.include({ status: 'sent', total: 123.45 });
    expect(made.body.id).to.be.a('number');
    expect(reasons(made.body)).to.deep.equal(expected);
    const [line] = made.body.payouts;
    expect(line).to.include({ affiliateId: paid, rail: 'paypal', status: 'processing', amount: 123.45 });
    const payout = await rails.get(line.payoutId);
    await eventually(() => fakes.paypal.itemsFor(payout.reference).length === 1, 'the PayPal item');
    expect((await rails.settled(line.payoutId)).status).to.equal('paid');
    expect(await payoutCount()).to.equal(1);

    // Nothing is left to pay: a second run creates nothing, and says so.
    const again = await run();
    expect(again.body).to.include({ id: null, status: 'empty', total: 0 });
    expect(again.body.payouts).to.deep.equal([]);
    expect(await payoutCount()).to.equal(1);
    const audit = await api('GET', '/v1/audit-log?action=payout_run.start');
    expect(audit.body.changes.map((row: { actor: { type: string } }) => row.actor.type)).to.deep.equal(['key']);
  });

  it('two runs at once never create two payouts for the same conversions, and each payout is sent once', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await owed(PIX, [100 + i, 200]));
    const [first, second] = await Promise.all([run(), run()]);
    expect(first?.status, first?.text).to.equal(200);
    expect(second?.status, second?.text).to.equal(200);
    const lines = [...(first?.body.payouts ?? []), ...(second?.body.payouts ?? [])];
    expect(lines.map((line: { affiliateId: number }) => line.affiliateId).sort((a, b) => a - b)).to.deep.equal(ids);
    const payouts = await t.db('payouts').select('id', 'affiliate_id', 'reference');
    expect(payouts).to.have.length(4);
    const taken = await t.db('payout_conversions').select('conversion_id');
    expect(new Set(taken.map((row) => row.conversion_id)).size).to.equal(8);
    expect(taken).to.have.length(8);
    for (const { reference } of payouts) {
      await eventually(() => fakes.asaas.transfersFor(reference ?? '').length >= 1, 'the transfer');
      expect(fakes.asaas.transfersFor(reference ?? '')).to.have.length(1);
    }
  });

  it('above payoutApprovalAbove a run waits; its starter cannot approve it, a second admin can, once', async () => {
    const services = t.daemon.services;
    await services.campaigns.update(t.merchant.campaignId, { payoutApprovalAbove: 50 });
    const [starter, second, third] = [await admin('starter'), await admin('second'), await admin('third')];
    await owed(PIX, [1000]);
    const transfers = () => fakes.asaas.requests.filter((req) => req.method === 'POST').length;
    const before = transfers();
    const waiting = await actingAs(userActor(starter, '127.0.0.1'), () =>
      services.payoutRuns.start(t.merchant.campaignId, {}),
    );
    expect(waiting).to.include({ status: 'awaiting_approval', total: 100 });
    const [line] = waiting.payouts;
    expect(line).to.include({ status: 'pending', rail: 'pix' });
    const runId = waiting.id ?? 0;
    expect((await rails.get(line?.payoutId ?? 0)).status).to.equal('pending');
    expect(transfers()).to.equal(before);

    const refusal = await services.payoutRuns.approve(t.merchant.campaignId, runId, starter).catch((err: Error) => err);
    expect(refusal).to.be.instanceOf(Error);
    expect((refusal as Error).message).to.match(/^A second person must approve this payout run/);
    expect((await rails.get(line?.payoutId ?? 0)).status).to.equal('pending');

    // Two admins approving at once: one approval sends, the other is told it is no longer waiting.
    const results = await Promise.allSettled([
      services.payoutRuns.approve(t.merchant.campaignId, runId, second),
      services.payoutRuns.approve(t.merchant.campaignId, runId, third),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
    const refused = results.find((r) => r.status === 'rejected');
    expect(refused?.status === 'rejected' && String(refused.reason.message)).to.match(
      /^Payout run cannot be approved while it is (sending|sent)/,
    );
    const settled = await rails.settled(line?.payoutId ?? 0);
    expect(settled.status).to.equal('paid');
    expect(fakes.asaas.transfersFor(settled.reference)).to.have.length(1);
    const row = await t.db('payout_runs').where({ id: runId }).first();
    expect(row).to.include({ status: 'sent', started_by_type: 'user', started_by_id: String(starter) });
    expect([second, third]).to.include(Number(row?.approved_by_user_id));
    const audit = await api('GET', `/v1/audit-log?targetType=payout_run&targetId=${runId}`);
    expect(audit.body.changes.map((c: { action: string }) => c.action).sort()).to.deep.equal([
      'payout_run.approve',
      'payout_run.start',
    ]);
  });

  it('a run started with an API key above the threshold waits for a dashboard approval', async () => {
    await t.daemon.services.campaigns.update(t.merchant.campaignId, { payoutApprovalAbove: 0 });
    await owed(PIX, [100]);
    const waiting = await run();
    expect(waiting.body).to.include({ status: 'awaiting_approval', total: 10 });
    const owner = await admin('owner', 'owner');
    const approved = await t.daemon.services.payoutRuns.approve(t.merchant.campaignId, waiting.body.id, owner);
    expect(approved.sent).to.equal(1);
  });

  it('a run a crash stopped half-way is resumed: each pending payout sent once, however many daemons resume it', async () => {
    const { campaignId } = t.merchant;
    const services = t.daemon.services;
    const affiliates: number[] = [];
    for (const phone of ['+5511987654321', '+5511987654322', '+5511987654323']) {
      affiliates.push(await owed({ method: 'pix', pixKeyType: 'phone', account: phone }, [100]));
    }
    // What a daemon killed mid-run leaves: the run `creating`, its payouts made, the first one sent.
    const startedAt = new Date();
    const runId = await insertPayoutRun(t.db, {
      campaignId,
      rail: null,
      startedBy: { type: 'system', id: null },
      now: startedAt,
    });
    const made = [];
    for (const id of affiliates) made.push(await services.payouts.create(campaignId, id, { payoutRunId: runId }));
    await services.payoutSender.send(campaignId, made[0]?.id ?? 0);

    const at = { now: startedAt };
    const config = { ...testConfig('sqlite::memory:'), payoutResumeAfterMs: 60_000 };
    const job = (runs = servicesFor(t.db).payoutRuns) =>
      payoutResumeJob({ db: t.db, config, logger: createLogger('silent'), now: () => at.now }, runs).run(
        new AbortController().signal,
      );
    expect(await job(), 'a run younger than PAYOUT_RESUME_AFTER_MS may still be going').to.equal(0);
    at.now = new Date(startedAt.getTime() + 61_000);
    const sent = await Promise.all([job(services.payoutRuns), job(), job()]);
    expect(sent.reduce((a, b) => a + b, 0)).to.equal(2);
    for (const payout of made) {
      const paid = await rails.settled(payout.id);
      expect(paid.status).to.equal('paid');
      expect(fakes.asaas.transfersFor(paid.reference), `transfers of payout ${payout.id}`).to.have.length(1);
    }
    const runRow = await t.db('payout_runs').where({ id: runId }).first('status', 'payout_count');
    expect([runRow?.status, Number(runRow?.payout_count)]).to.deep.equal(['sent', 3]);
    expect(await job()).to.equal(0);
  });

  it('a weekly schedule runs once per period, whatever the number of daemons', async () => {
    const services = t.daemon.services;
    // Switched on on a Wednesday: the first run is the next Monday's, not at once.
    const wednesday = new Date('2026-12-02T15:00:00Z');
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { payoutSchedule: 'weekly' });
    await t.db('campaigns').where({ id: t.merchant.campaignId }).update({ payout_run_at: wednesday });
    await owed(PIX, [100]);
    const at = { now: new Date('2026-12-04T10:00:00Z') };
    const job = () =>
      payoutScheduleJob(
        { db: t.db, config: testConfig('sqlite::memory:'), logger: createLogger('silent'), now: () => at.now },
        services.payoutRuns,
      );
    const signal = new AbortController().signal;
    expect(await job().run(signal)).to.equal(0);
    expect(await payoutCount()).to.equal(0);

    at.now = new Date('2026-12-07T00:00:30Z');
    const ran = await Promise.all([job().run(signal), job().run(signal), job().run(signal)]);
    expect(ran.reduce((a, b) => a + b, 0)).to.equal(1);
    expect(await payoutCount()).to.equal(1);
    const [runRow] = await t.db('payout_runs').select('started_by_type');
    expect(runRow).to.deep.equal({ started_by_type: 'system' });

    // Later that week: the period has run.
    await owed(PIX, [100]);
    at.now = new Date('2026-12-13T23:59:00Z');
    expect(await job().run(signal)).to.equal(0);
    at.now = new Date('2026-12-14T00:00:00Z');
    expect(await job().run(signal)).to.equal(1);
    expect(await payoutCount()).to.equal(2);
  });
});
