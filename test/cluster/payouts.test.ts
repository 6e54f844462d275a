import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import type { Daemon } from '../../server/main.js';
import { clusterConflicts, nodeUrls, ON_CLUSTER, reachableOnEveryNode } from '../helpers/cluster.js';
import { createMerchant, type Merchant, startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { conflict } from '../helpers/lifecycleApi.js';
import {
  closeRailFakes,
  type Details,
  eventually,
  railApi,
  railEnv,
  type RailFakes,
  startRailFakes,
} from '../helpers/payoutRails.js';

const pix = (phone: string): Details => ({ method: 'pix', pixKeyType: 'phone', account: phone });
const paypal = (email: string): Details => ({ method: 'paypal', account: email });
const stripe = (account: string): Details => ({ method: 'stripe', account });

/** Payouts of one rail a daemon's own provider calls carried, by what the provider said (GET /metrics). */
async function sentBy(url: string, rail: 'pix' | 'paypal'): Promise<number> {
  const metrics = await call(url, 'GET', '/metrics');
  const line = new RegExp(
    `^affiliated_provider_payouts_total\\{rail="${rail}",operation="send",outcome="processing"\\} (\\d+)$`,
    'm',
  ).exec(metrics.text);
  if (!line) throw new Error(`no send figure for ${rail} in /metrics`);
  return Number(line[1]);
}

/**
 * Money out with a daemon on each node of the Galera cluster (docs/payouts.md, "Never twice";
 * docs/scaling.md): every daemon sends, runs and hears callbacks for the same campaign, through
 * its own node, against loopback fakes of Asaas, PayPal and Stripe that answer in 25 ms. Locks
 * are not shared between Galera nodes: only the conditional updates, and the retry of what
 * certification refuses, keep a payout from leaving twice.
 */
describe('payouts with a daemon on each Galera node', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let fakes: RailFakes | undefined;
  const daemons: Daemon[] = [];
  let merchant: Merchant | undefined;
  let conflictsBefore: Awaited<ReturnType<typeof clusterConflicts>> | undefined;
  const urlOf = (i: number) => daemons[i % daemons.length]?.url ?? '';
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`no ${what}`);
    return value;
  };
  const rails = railApi(
    () => urlOf(0),
    () => need(merchant, 'merchant'),
    () => database.db,
  );
  const fake = () => need(fakes, 'provider fakes');

  before(async () => {
    if (!ON_CLUSTER) throw new Error('TEST_GALERA_URLS is not set: run `npm run test:cluster`');
    database = await createTestDatabase();
    await reachableOnEveryNode(database.url);
    fakes = await startRailFakes();
    for (const provider of [fakes.asaas, fakes.paypal, fakes.stripe]) provider.delayMs = 25;
    for (const url of nodeUrls(database.url)) daemons.push(await startTestDaemon(url, railEnv(fakes)));
    conflictsBefore = await clusterConflicts();
  });
  after(async () => {
    if (conflictsBefore) {
      // What the daemons had to run again: each a transaction Galera took back and the daemon retried.
      const now = await clusterConflicts();
      console.log(
        `      conflicts on the cluster: ${now.certificationFailures - conflictsBefore.certificationFailures} refused at commit, ${now.bruteForceAborts - conflictsBefore.bruteForceAborts} aborted to apply another node's write`,
      );
    }
    for (const daemon of daemons.splice(0)) await daemon.close();
    await closeRailFakes(fakes);
    await database?.drop();
  });
  beforeEach(async () => {
    merchant = await createMerchant(database.db);
    const { asaas, paypal: payPal } = fake();
    await rails.connect(fake());
    asaas.callbackUrl = undefined;
    payPal.callbackUrl = undefined;
    asaas.settleInstantly = true;
    payPal.processAtOnce = true;
  });

  /** The payout's one transfer (or none) at its rail's fake, and the receipt that fake gave it. */
  function atTheFake(payout: { rail: string; reference: string }): { count: number; receipt: string | null } {
    const { asaas, paypal: payPal, stripe: stripeFake } = fake();
    if (payout.rail === 'pix') {
      const made = asaas.transfersFor(payout.reference);
      return { count: made.length, receipt: made[0]?.endToEndIdentifier ?? null };
    }
    if (payout.rail === 'paypal') {
      const made = payPal.itemsFor(payout.reference);
      return { count: made.length, receipt: made[0]?.transaction_id ?? null };
    }
    const made = stripeFake.transfersFor(payout.reference);
    return { count: made.length, receipt: made[0]?.id ?? null };
  }

  async function conversionsFree(conversionIds: readonly number[]): Promise<void> {
    for (const id of conversionIds)
      expect((await rails.api('GET', `/v1/conversions/${id}`)).body.payoutId, `conversion ${id}`).to.equal(null);
  }

  it('the same payouts sent through every daemon at once, again and again: one transfer each', async () => {
    const { asaas, stripe: stripeFake } = fake();
    asaas.unknownKeys.add('+5511900000000');
    for (const account of ['acct_1ClusterSend001', 'acct_1ClusterSend002']) stripeFake.accounts.add(account);
    const plan = [
      pix('+5511987650001'),
      pix('+5511987650002'),
      pix('+5511900000000'),
      paypal('ana@example.com'),
      paypal('bia@example.com'),
      paypal('cai@example.com'),
      stripe('acct_1ClusterSend001'),
      stripe('acct_1ClusterSend002'),
      stripe('acct_1NobodyAtAll00'),
    ];
    // What the fakes refuse, by payout: an unknown Pix key, an unknown connected account.
    const refused = new Map([
      [2, /^A chave Pix informada não foi encontrada\.$/],
      [8, /No such destination: 'acct_1NobodyAtAll00'/],
    ]);
    const payouts = [];
    for (const [i, details] of plan.entries()) payouts.push((await rails.pendingPayout(details, [100 + i, 50])).payout);

    const rounds = 2;
    const sends = payouts.flatMap((payout) =>
      Array.from({ length: rounds * daemons.length }, (_, i) =>
        call(urlOf(i), 'POST', `/v1/payouts/${payout.id}/send`, { key: need(merchant, 'merchant').key }),
      ),
    );
    const replies = await Promise.all(sends);
    const notSendable = conflict(MESSAGES.payoutNotSendable('failed'));
    replies.forEach((reply, i) => {
      const n = Math.floor(i / (rounds * daemons.length));
      // Already sent: answered as it is. Refused by the provider before this request read it: 409.
      if (refused.has(n) && reply.status === 409) expect(reply.body, reply.text).to.deep.equal(notSendable);
      else {
        expect(reply.status, reply.text).to.equal(200);
        expect(reply.body.status, reply.text).to.be.oneOf(['processing', 'paid']);
      }
    });
    // One request of each payout's six committed the intent; the others found it sent.
    const audit = await rails.api('GET', '/v1/audit-log?action=payout.send');
    const sentIds = audit.body.changes.map((row: { target: { id: string } }) => Number(row.target.id));
    expect(sentIds.sort((a: number, b: number) => a - b)).to.deep.equal(payouts.map((payout) => payout.id));

    for (const [n, payout] of payouts.entries()) {
      const final = await rails.settled(payout.id);
      const there = atTheFake(final);
      const reason = refused.get(n);
      if (reason) {
        expect([final.status, there.count], `payout ${n}: status, transfers`).to.deep.equal(['failed', 0]);
        expect(final.failureReason).to.match(reason);
        await conversionsFree(final.conversionIds);
      } else {
        expect([final.status, there.count], `payout ${n}: status, transfers`).to.deep.equal(['paid', 1]);
        expect(final.receipt).to.be.a('string').and.to.equal(there.receipt);
      }
    }
  });

  it('a payout run started on every daemon at once: each affiliate paid once, each conversion in one payout', async () => {
    const { stripe: stripeFake } = fake();
    for (const account of ['acct_1ClusterRun0001', 'acct_1ClusterRun0002']) stripeFake.accounts.add(account);
    const owed = [];
    for (const details of [
      pix('+5511987660001'),
      pix('+5511987660002'),
      paypal('dan@example.com'),
      paypal('eva@example.com'),
      stripe('acct_1ClusterRun0001'),
      stripe('acct_1ClusterRun0002'),
    ])
      owed.push((await rails.owed(details, [100, 250])).id);

    const runs = await Promise.all(
      daemons.map((daemon) =>
        call(daemon.url, 'POST', '/v1/payout-runs', { key: need(merchant, 'merchant').key, body: {} }),
      ),
    );
    for (const reply of runs) {
      expect(reply.status, reply.text).to.equal(200);
      expect(reply.body.status, reply.text).to.be.oneOf(['sent', 'empty']);
    }
    const lines = runs.flatMap((reply) => reply.body.payouts as { affiliateId: number; payoutId: number }[]);
    expect(lines.map((line) => line.affiliateId).sort((a, b) => a - b)).to.deep.equal(owed);

    const { campaignId } = need(merchant, 'merchant');
    const made = await database.db('payouts').where({ campaign_id: campaignId }).select('id');
    expect(made.map((row) => Number(row.id)).sort((a, b) => a - b)).to.deep.equal(
      lines.map((line) => line.payoutId).sort((a, b) => a - b),
    );
    const taken = await database
      .db('payout_conversions')
      .whereIn(
        'payout_id',
        made.map((row) => row.id),
      )
      .select('conversion_id');
    expect(taken).to.have.length(owed.length * 2);
    expect(new Set(taken.map((row) => Number(row.conversion_id))).size, 'conversions in two payouts').to.equal(
      taken.length,
    );
    for (const line of lines) {
      const paid = await rails.settled(line.payoutId);
      expect([paid.status, atTheFake(paid).count], `payout ${line.payoutId}: status, transfers`).to.deep.equal([
        'paid',
        1,
      ]);
      expect(paid.receipt).to.equal(atTheFake(paid).receipt);
    }
  });

  it('a provider callback heard on another node settles once; a replay to a third node changes nothing', async () => {
    const { asaas, paypal: payPal } = fake();
    // The fakes keep every transfer pending: only the callbacks below tell how each ended.
    asaas.settleInstantly = false;
    payPal.processAtOnce = false;
    const { publicId } = need(merchant, 'merchant');
    const hook = await rails.api('POST', '/v1/webhooks', {
      url: 'https://shop.example.com/hooks',
      events: ['payout.paid', 'payout.failed'],
    });
    expect(hook.status, hook.text).to.equal(201);

    const cases = [
      { details: pix('+5511987670001'), ends: 'paid' },
      { details: pix('+5511987670002'), ends: 'failed' },
      { details: paypal('fay@example.com'), ends: 'paid' },
      { details: paypal('gil@example.com'), ends: 'failed' },
    ] as const;
    for (const [n, { details, ends }] of cases.entries()) {
      const rail = details.method === 'pix' ? 'pix' : 'paypal';
      const { payout } = await rails.pendingPayout(details, [100 + n]);
      const before = await Promise.all(daemons.map((daemon) => sentBy(daemon.url, rail)));
      const sent = await call(urlOf(n), 'POST', `/v1/payouts/${payout.id}/send`, {
        key: need(merchant, 'merchant').key,
      });
      expect(sent.status, sent.text).to.equal(200);
      // Which daemon's call carried it: the one whose own figure moved.
      let sender = -1;
      await eventually(async () => {
        const now = await Promise.all(daemons.map((daemon) => sentBy(daemon.url, rail)));
        const moved = now.map((count, i) => count - (before[i] ?? 0));
        sender = moved.findIndex((delta) => delta > 0);
        return moved.reduce((a, b) => a + b, 0) === 1;
      }, `the ${rail} send of payout ${payout.id}`);
      const [hearer, replayer] = [urlOf(sender + 1), urlOf(sender + 2)];

      let delivery: { path: string; body: string; headers: Record<string, string> };
      let receipt: string | null;
      if (rail === 'pix') {
        const [transfer] = asaas.transfersFor(sent.body.reference);
        if (!transfer) throw new Error('no transfer');
        const word =
          ends === 'paid'
            ? { ...transfer, status: 'DONE' as const, endToEndIdentifier: `E1954055020261128${n}CLUSTERCALLBK` }
            : { ...transfer, status: 'FAILED' as const, failReason: 'Chave Pix inexistente' };
        receipt = word.endToEndIdentifier;
        delivery = {
          path: `/v1/integrations/asaas-payouts/${publicId}`,
          body: asaas.callbackBody(`TRANSFER_${word.status}`, word),
          headers: { 'asaas-access-token': asaas.webhookToken },
        };
      } else {
        let item: ReturnType<typeof payPal.itemsFor>[number] | undefined;
        await eventually(() => (item = payPal.itemsFor(sent.body.reference)[0]) !== undefined, 'the PayPal item');
        if (!item) throw new Error('no item');
        const word =
          ends === 'paid'
            ? { ...item, transaction_status: 'SUCCESS', transaction_id: `CLUSTER${n}TRANSACTN` }
            : {
                ...item,
                transaction_status: 'FAILED',
                errors: { name: 'RECEIVER_ACCOUNT_LOCKED', message: 'Receiver account is locked or inactive.' },
              };
        receipt = word.transaction_id ?? null;
        const signed = payPal.signedEvent(`PAYMENT.PAYOUTS-ITEM.${ends === 'paid' ? 'SUCCEEDED' : 'FAILED'}`, word);
        delivery = { path: `/v1/integrations/paypal-payouts/${publicId}`, ...signed };
      }

      const heard = await call(hearer, 'POST', delivery.path, { raw: delivery.body, headers: delivery.headers });
      expect(heard.body, `${rail} payout ${n}, heard on another node`).to.deep.equal({
        received: true,
        outcome: ends,
      });
      const settled = await rails.get(payout.id);
      if (ends === 'paid') expect(settled).to.include({ status: 'paid', receipt, failureReason: null });
      else {
        expect(settled).to.include({ status: 'failed', receipt: null });
        expect(settled.failureReason).to.match(rail === 'pix' ? /^Chave Pix inexistente$/ : /RECEIVER_ACCOUNT_LOCKED/);
        await conversionsFree(settled.conversionIds);
      }
      const replayed = await call(replayer, 'POST', delivery.path, { raw: delivery.body, headers: delivery.headers });
      expect(replayed.body, `${rail} payout ${n}, replayed on a third node`).to.deep.equal({
        received: true,
        outcome: 'unchanged',
      });
      expect(await rails.get(payout.id)).to.deep.equal(settled);
      expect(atTheFake(settled).count, `transfers of payout ${n}`).to.equal(1);
    }
    // Each payout told its subscribers once, of its own outcome.
    const told = await database
      .db('webhook_messages')
      .where('campaign_id', need(merchant, 'merchant').campaignId)
      .whereIn('event_type', ['payout.paid', 'payout.failed'])
      .select('event_type');
    expect(told.map((row) => row.event_type).sort()).to.deep.equal([
      'payout.failed',
      'payout.failed',
      'payout.paid',
      'payout.paid',
    ]);
    await rails.api('DELETE', `/v1/webhooks/${hook.body.id}`);
  });
});
