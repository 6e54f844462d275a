import { expect } from 'chai';
import { inTransaction } from '../../server/db/knex.js';
import { heldSends, markCalled } from '../../server/repositories/payoutSends.js';
import { createPayoutProviders } from '../../server/services/payouts/providers/index.js';
import { batchReferenceOf } from '../../server/services/payouts/sendBatch.js';
import { ENGINE } from '../helpers/database.js';
import type { FakeRequest } from '../helpers/fakes/server.js';
import { commitSends, useRailDaemon } from '../helpers/payoutRails.js';

/** The sender_batch_id and sender_item_ids of a create call. */
function batchCall(req: FakeRequest): { batch: string; items: string[] } {
  const body = JSON.parse(req.body) as {
    sender_batch_header: { sender_batch_id: string };
    items: Array<{ sender_item_id: string }>;
  };
  return { batch: body.sender_batch_header.sender_batch_id, items: body.items.map((item) => item.sender_item_id) };
}

describe(`PayPal payouts due together leave as one batch (${ENGINE})`, function () {
  this.timeout(60_000);
  const { t, fakes, rails } = useRailDaemon({ PAYOUT_PAYPAL_BATCH_MAX: '4' });
  const creates = () =>
    fakes.paypal.requests.filter((req) => req.method === 'POST' && req.path === '/v1/payments/payouts').map(batchCall);

  beforeEach(async () => {
    await rails.connect(fakes);
    fakes.paypal.requests.length = 0;
    fakes.paypal.callbackUrl = `${t.url}/v1/integrations/paypal-payouts/${t.merchant.publicId}`;
    fakes.paypal.honourRequestId = true;
  });

  async function paypalPayouts(count: number): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const { payout } = await rails.pendingPayout({ method: 'paypal', account: `p${i}@example.com` }, [100 + i]);
      ids.push(payout.id);
    }
    return ids;
  }

  /** Each payout paid with its one item's transaction id; answers their references. */
  async function paidOnce(ids: readonly number[]): Promise<string[]> {
    const references: string[] = [];
    for (const id of ids) {
      const paid = await rails.settled(id);
      const items = fakes.paypal.itemsFor(paid.reference);
      expect(items, `PayPal items of payout ${id}`).to.have.length(1);
      expect(paid).to.include({ status: 'paid', receipt: items[0]?.transaction_id });
      references.push(paid.reference);
    }
    return references;
  }

  it('four payouts committed together are one call of four items, each its payout’s sender_item_id', async () => {
    const ids = await paypalPayouts(4);
    await commitSends(t.db, t.merchant.campaignId, ids);
    const references = await paidOnce(ids);
    const calls = creates();
    expect(calls).to.have.length(1);
    expect([...(calls[0]?.items ?? [])].sort()).to.deep.equal([...references].sort());
    expect(calls[0]?.batch).to.match(/^aff-batch-[0-9a-f]{40}$/);
    expect(fakes.paypal.batches.size).to.be.at.least(1);
  });

  it('more than PAYOUT_PAYPAL_BATCH_MAX due together: batches of at most that many, one item each', async () => {
    const ids = await paypalPayouts(9);
    await commitSends(t.db, t.merchant.campaignId, ids);
    const references = await paidOnce(ids);
    const calls = creates();
    expect(calls).to.have.length(3);
    for (const call of calls) expect(call.items.length).to.be.within(1, 4);
    expect(calls.flatMap((call) => call.items).sort()).to.deep.equal([...references].sort());
  });

  it('a crash between the batch call and its commit: the same batch goes again, PayPal’s refusal leads to its items', async () => {
    // No callback: only the look-up can tell the daemon what became of the batch.
    fakes.paypal.callbackUrl = undefined;
    fakes.paypal.honourRequestId = false;
    const ids = await paypalPayouts(3);
    const token = 'crashed0daemon0lease0000';
    await commitSends(t.db, t.merchant.campaignId, ids, { token, untilMs: 60_000 });
    // The crashed daemon: it claimed the sends, wrote the batch and called_at, called PayPal, then died.
    const sends = await heldSends(t.db, token);
    const reference = batchReferenceOf(sends);
    await inTransaction(t.db, (trx) => markCalled(trx, sends, new Date(), reference));
    const paypal = createPayoutProviders({
      asaasUrl: fakes.asaas.url,
      paypalUrl: fakes.paypal.url,
      stripeUrl: fakes.stripe.url,
      timeoutMs: 5000,
    }).paypal;
    const credentials = {
      rail: 'paypal' as const,
      clientId: fakes.paypal.clientId,
      clientSecret: fakes.paypal.clientSecret,
    };
    const answers = await paypal.send(credentials, {
      reference,
      intents: sends.map((send) => ({
        reference: send.reference,
        amount: { minor: send.amountMinor, currency: send.currency },
        description: send.description,
        payee: { rail: 'paypal' as const, email: send.payeeAccount },
      })),
    });
    expect(answers.map((answer) => answer.status)).to.deep.equal(['processing', 'processing', 'processing']);
    // Its lease runs out: this daemon takes the sends over.
    await t
      .db('payout_sends')
      .where('lease_token', token)
      .update({ lease_until: new Date(Date.now() - 1000) });
    await paidOnce(ids);
    const calls = creates();
    expect(calls.map((call) => call.batch)).to.deep.equal([reference, reference]);
    expect(fakes.paypal.itemsFor(sends[0]?.reference ?? '')).to.have.length(1);
    const batches = [...fakes.paypal.batches.values()].filter(
      (batch) => batch.header.sender_batch_header.sender_batch_id === reference,
    );
    expect(batches).to.have.length(1);
  });
});
