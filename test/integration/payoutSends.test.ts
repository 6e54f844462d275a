import { expect } from 'chai';
import type { Daemon } from '../../server/main.js';
import { servicesFor, startTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { conflict } from '../helpers/lifecycleApi.js';
import { eventually, useRailDaemon } from '../helpers/payoutRails.js';

const PIX = { method: 'pix', pixKeyType: 'phone', account: '+5511987654321' } as const;

describe(`payouts sent on rails: Pix, PayPal, Stripe (${ENGINE})`, function () {
  this.timeout(60_000);
  const { t, fakes, rails, env } = useRailDaemon();
  const { api } = rails;

  beforeEach(async () => {
    await rails.connect(fakes);
    fakes.asaas.callbackUrl = `${t.url}/v1/integrations/asaas-payouts/${t.merchant.publicId}`;
    fakes.paypal.callbackUrl = `${t.url}/v1/integrations/paypal-payouts/${t.merchant.publicId}`;
    fakes.asaas.settleInstantly = false;
  });

  describe('/v1/payout-rails', () => {
    it('connects, lists and removes a rail; credentials are sealed and never answered', async () => {
      const listed = await api('GET', '/v1/payout-rails');
      expect(listed.body.rails.map((rail: { rail: string }) => rail.rail)).to.deep.equal(['paypal', 'pix', 'stripe']);
      const pix = listed.body.rails.find((rail: { rail: string }) => rail.rail === 'pix');
      expect(pix).to.include({
        callbackPath: `/v1/integrations/asaas-payouts/${t.merchant.publicId}`,
        hasWebhookToken: true,
      });
      for (const secret of [fakes.asaas.apiKey, fakes.paypal.clientSecret, fakes.stripe.secretKey]) {
        expect(listed.text).to.not.contain(secret);
        const stored = JSON.stringify(await t.db('payout_rails').select('*'));
        expect(stored).to.not.contain(secret);
      }
      const half = await api('PUT', '/v1/payout-rails/paypal', { clientId: 'only-the-id' });
      expect(half.status).to.equal(400);
      expect(JSON.stringify(half.body.message)).to.contain('clientSecret');
      const foreign = await api('PUT', '/v1/payout-rails/stripe', {
        secretKey: 'sk_test_12345678',
        apiKey: 'aaaaaaaaaa',
      });
      expect(foreign.status).to.equal(400);
      expect((await api('PUT', '/v1/payout-rails/wise', { apiKey: 'aaaaaaaaaa' })).status).to.equal(404);
      expect((await api('DELETE', '/v1/payout-rails/stripe')).body).to.deep.equal({
        success: true,
        message: 'Payout rail deleted successfully',
      });
      expect((await api('DELETE', '/v1/payout-rails/stripe')).status).to.equal(404);
      // The audit log names what was set and removed, by the key, never the credentials.
      const audit = await api('GET', '/v1/audit-log?targetType=payout_rail');
      const rows = audit.body.changes.map((row: { action: string; target: { id: string } }) => [
        row.action,
        row.target.id,
      ]);
      expect(rows).to.deep.include.members([
        ['payout_rail.set', 'pix'],
        ['payout_rail.set', 'paypal'],
        ['payout_rail.remove', 'stripe'],
      ]);
      const paypal = audit.body.changes.find((row: { target: { id: string } }) => row.target.id === 'paypal');
      expect(paypal.details.fields).to.deep.equal(['clientId', 'clientSecret', 'webhookToken']);
      const stored = JSON.stringify(await t.db('audit_log').select('*'));
      for (const secret of [
        fakes.asaas.apiKey,
        fakes.paypal.clientSecret,
        fakes.stripe.secretKey,
        fakes.asaas.webhookToken,
      ])
        expect(stored).to.not.contain(secret);
    });
  });

  describe('pix (Asaas)', () => {
    it('pays: processing with its reference at once, paid with the end-to-end id on the callback; a replay changes nothing', async () => {
      const { payout } = await rails.pendingPayout(PIX, [123.45, 1000]);
      const sent = await rails.send(payout.id);
      expect(sent.status, sent.text).to.equal(200);
      expect(sent.body).to.include({ status: 'processing', rail: 'pix', receipt: null });
      expect(sent.body.reference).to.match(/^aff-\d+-[0-9a-f]{12}$/);
      const audit = await api('GET', `/v1/audit-log?action=payout.send&targetId=${payout.id}`);
      expect(audit.body.changes.map((row: { actor: { type: string } }) => row.actor.type)).to.deep.equal(['key']);
      await eventually(() => fakes.asaas.transfersFor(sent.body.reference).length === 1, 'the transfer');
      const [transfer] = fakes.asaas.transfersFor(sent.body.reference);
      // 10 % of 12,345 centavos is 1,234.5 → 1,235; of 100,000 is 10,000: R$ 112.35, exactly.
      expect(transfer?.value).to.equal(112.35);
      const done = await fakes.asaas.settle(transfer?.id ?? '');
      const paid = await rails.settled(payout.id);
      expect(paid).to.include({ status: 'paid', receipt: done.endToEndIdentifier, failureReason: null });
      for (const id of paid.conversionIds)
        expect((await api('GET', `/v1/conversions/${id}`)).body.status).to.equal('paid');
      expect(await fakes.asaas.emit('TRANSFER_DONE', done)).to.equal(200);
      expect(await rails.get(payout.id)).to.deep.equal(paid);
      // Sending a paid payout again sends nothing.
      expect((await rails.send(payout.id)).body.status).to.equal('paid');
      expect(fakes.asaas.transfersFor(sent.body.reference)).to.have.length(1);
    });

    it('a wrong asaas-access-token is 401 and moves nothing', async () => {
      const { payout } = await rails.pendingPayout(PIX, [100]);
      const sent = await rails.send(payout.id);
      await eventually(() => fakes.asaas.transfersFor(sent.body.reference).length === 1, 'the transfer');
      const [transfer] = fakes.asaas.transfersFor(sent.body.reference);
      if (!transfer) throw new Error('no transfer');
      transfer.status = 'DONE';
      expect(await fakes.asaas.emit('TRANSFER_DONE', transfer, 'not-the-token')).to.equal(401);
      expect((await rails.get(payout.id)).status).to.equal('processing');
    });

    it('polling settles what no callback told', async () => {
      fakes.asaas.callbackUrl = undefined;
      const { payout } = await rails.pendingPayout(PIX, [100]);
      const sent = await rails.send(payout.id);
      await eventually(() => fakes.asaas.transfersFor(sent.body.reference).length === 1, 'the transfer');
      const [transfer] = fakes.asaas.transfersFor(sent.body.reference);
      const done = await fakes.asaas.settle(transfer?.id ?? '');
      expect(await rails.settled(payout.id)).to.include({ status: 'paid', receipt: done.endToEndIdentifier });
    });

    it('a burst of callbacks, each sent twice at once, settles each payout once with its own word', async () => {
      const hook = await api('POST', '/v1/webhooks', {
        url: 'https://shop.example.com/hooks',
        events: ['payout.paid', 'payout.failed'],
      });
      expect(hook.status, hook.text).to.equal(201);
      const made: { id: number; reference: string }[] = [];
      for (let i = 0; i < 6; i++) {
        const { payout } = await rails.pendingPayout({ ...PIX, account: `+55119876543${10 + i}` }, [100]);
        made.push((await rails.send(payout.id)).body);
      }
      await eventually(() => made.every((sent) => fakes.asaas.transfersFor(sent.reference).length === 1), 'transfers');
      // The fake's own records stay PENDING, so no poll settles them: only the callbacks tell.
      const words = made.map((sent, i) => {
        const [transfer] = fakes.asaas.transfersFor(sent.reference);
        if (!transfer) throw new Error('no transfer');
        return i === 0
          ? { ...transfer, status: 'FAILED' as const, failReason: 'Chave Pix inexistente' }
          : {
              ...transfer,
              status: 'DONE' as const,
              endToEndIdentifier: `E0000000020261128${String(i).padStart(15, '0')}`,
            };
      });
      const statuses = await Promise.all(
        [...words, ...words].map((word) => fakes.asaas.emit(`TRANSFER_${word.status}`, word)),
      );
      expect(statuses).to.deep.equal(statuses.map(() => 200));
      const final = await Promise.all(made.map((sent) => rails.get(sent.id)));
      expect(final.map((payout) => [payout.status, payout.receipt, payout.failureReason])).to.deep.equal(
        words.map((word) =>
          word.status === 'FAILED'
            ? ['failed', null, 'Chave Pix inexistente']
            : ['paid', word.endToEndIdentifier, null],
        ),
      );
      // Each move tells its subscribers once: one message per payout, of its own outcome.
      const told = await t
        .db('webhook_messages')
        .where('campaign_id', t.merchant.campaignId)
        .whereIn('event_type', ['payout.paid', 'payout.failed'])
        .select('event_type', 'payload');
      const byPayout = told.map((row) => `${JSON.parse(row.payload).data.id} ${row.event_type}`).sort();
      expect(byPayout).to.deep.equal(
        made.map((sent, i) => `${sent.id} ${i === 0 ? 'payout.failed' : 'payout.paid'}`).sort(),
      );
      await api('DELETE', `/v1/webhooks/${hook.body.id}`);
    });

    it('fails on an unknown Pix key with Asaas’s reason; its conversions are free for a later payout', async () => {
      fakes.asaas.unknownKeys.add('+5511900000000');
      const { payout, affiliateId } = await rails.pendingPayout({ ...PIX, account: '+5511900000000' }, [100]);
      const sent = await rails.send(payout.id);
      const failed = await rails.settled(payout.id);
      expect(failed).to.include({ status: 'failed', failureReason: 'A chave Pix informada não foi encontrada.' });
      for (const id of failed.conversionIds)
        expect((await api('GET', `/v1/conversions/${id}`)).body.payoutId).to.equal(null);
      expect((await rails.payout(affiliateId)).status).to.equal(201);
      expect(fakes.asaas.transfersFor(sent.body.reference)).to.have.length(0);
    });

    it('a call that times out after Asaas made the transfer is looked up, never sent twice', async () => {
      fakes.asaas.fault({ kind: 'hang', processed: true, matches: (req) => req.method === 'POST' });
      const { payout } = await rails.pendingPayout(PIX, [100]);
      const sent = await rails.send(payout.id);
      await eventually(
        async () => (await t.db('payout_sends').where({ payout_id: payout.id }).first())?.provider_id != null,
        'the look-up',
      );
      expect(fakes.asaas.transfersFor(sent.body.reference)).to.have.length(1);
      const [transfer] = fakes.asaas.transfersFor(sent.body.reference);
      await fakes.asaas.settle(transfer?.id ?? '');
      expect((await rails.settled(payout.id)).status).to.equal('paid');
      expect(fakes.asaas.transfersFor(sent.body.reference)).to.have.length(1);
    });

    it('a 5xx before Asaas did anything is looked up, found unknown, and sent once', async () => {
      fakes.asaas.settleInstantly = true;
      fakes.asaas.fault({ kind: 'status', status: 502, processed: false, matches: (req) => req.method === 'POST' });
      const { payout } = await rails.pendingPayout(PIX, [100]);
      const sent = await rails.send(payout.id);
      expect((await rails.settled(payout.id)).status).to.equal('paid');
      expect(fakes.asaas.transfersFor(sent.body.reference)).to.have.length(1);
      const posts = fakes.asaas.requests.filter(
        (req) => req.method === 'POST' && req.body.includes(sent.body.reference),
      );
      expect(posts).to.have.length(2);
    });

    it('a payout of a USD campaign is refused currency_not_supported and stays pending', async () => {
      await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { currency: 'USD' });
      const { payout } = await rails.pendingPayout(PIX, [100]);
      const reply = await rails.send(payout.id);
      expect(reply.body).to.deep.equal(
        conflict('currency_not_supported: the pix rail cannot pay USD; pay by hand and mark the payout paid'),
      );
      expect((await rails.get(payout.id)).status).to.equal('pending');
    });

    it('a rail not connected or no payout details: 409 with the reason, and the payout is still paid by hand', async () => {
      await api('DELETE', '/v1/payout-rails/pix');
      const { payout } = await rails.pendingPayout(PIX, [100]);
      expect((await rails.send(payout.id)).body.message).to.match(/^rail_not_connected: /);
      expect((await rails.settle(payout.id, 'paid')).body).to.include({ status: 'paid', rail: null, receipt: null });
    });
  });

  describe('stripe (Connect transfers)', () => {
    for (const [currency, orders, minor] of [
      ['USD', [123.45], 1235],
      ['JPY', [12350], 1235],
    ] as const) {
      it(`pays ${currency} in its minor unit exactly, the transfer id as receipt`, async () => {
        await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { currency });
        fakes.stripe.accounts.add('acct_1TestAccount01');
        const { payout } = await rails.pendingPayout({ method: 'stripe', account: 'acct_1TestAccount01' }, orders);
        const sent = await rails.send(payout.id);
        expect(sent.status, sent.text).to.equal(200);
        const paid = await rails.settled(payout.id);
        const [transfer] = fakes.stripe.transfersFor(sent.body.reference);
        expect(transfer).to.include({
          amount: minor,
          currency: currency.toLowerCase(),
          destination: 'acct_1TestAccount01',
        });
        expect(paid).to.include({ status: 'paid', receipt: transfer?.id });
      });
    }

    it('an unknown destination fails the payout', async () => {
      const { payout } = await rails.pendingPayout({ method: 'stripe', account: 'acct_1NobodyAtAll00' }, [100]);
      const sent = await rails.send(payout.id);
      const failed = await rails.settled(payout.id);
      expect(failed.status).to.equal('failed');
      expect(failed.failureReason).to.match(/No such destination/);
      expect(fakes.stripe.transfersFor(sent.body.reference)).to.have.length(0);
    });

    it('a 500 after Stripe made the transfer is looked up by its transfer group: one transfer', async () => {
      fakes.stripe.accounts.add('acct_1TestAccount02');
      fakes.stripe.fault({ kind: 'status', status: 500, processed: true, matches: (req) => req.method === 'POST' });
      const { payout } = await rails.pendingPayout({ method: 'stripe', account: 'acct_1TestAccount02' }, [100]);
      const sent = await rails.send(payout.id);
      expect((await rails.settled(payout.id)).status).to.equal('paid');
      expect(fakes.stripe.transfersFor(sent.body.reference)).to.have.length(1);
    });
  });

  describe('paypal (Payouts)', () => {
    it('pays with the transaction id as receipt, told by the signed webhook', async () => {
      const { payout } = await rails.pendingPayout({ method: 'paypal', account: 'ana@example.com' }, [100]);
      const sent = await rails.send(payout.id);
      const paid = await rails.settled(payout.id);
      const [item] = fakes.paypal.itemsFor(sent.body.reference);
      expect(paid).to.include({ status: 'paid', receipt: item?.transaction_id });
      expect(item?.payout_item.amount).to.deep.equal({ value: '10.00', currency: 'BRL' });
    });

    it('a forged webhook is 400; a replayed one changes nothing', async () => {
      const { payout } = await rails.pendingPayout({ method: 'paypal', account: 'bia@example.com' }, [100]);
      const sent = await rails.send(payout.id);
      const paid = await rails.settled(payout.id);
      const [item] = fakes.paypal.itemsFor(sent.body.reference);
      const real = fakes.paypal.signedEvent('PAYMENT.PAYOUTS-ITEM.SUCCEEDED', item);
      const path = `/v1/integrations/paypal-payouts/${t.merchant.publicId}`;
      expect((await call(t.url, 'POST', path, { raw: real.body })).status).to.equal(400);
      const replayed = await call(t.url, 'POST', path, { raw: real.body, headers: real.headers });
      expect(replayed.body).to.deep.equal({ received: true, outcome: 'unchanged' });
      const forged = await call(t.url, 'POST', path, {
        raw: real.body.replace('SUCCESS', 'FAILED'),
        headers: real.headers,
      });
      expect(forged.status).to.equal(400);
      expect(await rails.get(payout.id)).to.deep.equal(paid);
    });

    it('a hang on the create call is recovered by sending the same batch again: one item', async () => {
      fakes.paypal.fault({
        kind: 'hang',
        processed: true,
        matches: (req) => req.method === 'POST' && req.path === '/v1/payments/payouts',
      });
      const { payout } = await rails.pendingPayout({ method: 'paypal', account: 'cai@example.com' }, [100]);
      const sent = await rails.send(payout.id);
      expect((await rails.settled(payout.id)).status).to.equal('paid');
      expect(fakes.paypal.itemsFor(sent.body.reference)).to.have.length(1);
    });
  });

  describe('two daemons on one database', () => {
    let second: Daemon | undefined;
    before(async function () {
      // A SQLite file serves one daemon at a time (docs/operations.md): this is MySQL/MariaDB's case.
      if (ENGINE !== 'mysql') return this.skip();
      second = await startTestDaemon(t.database.url, env);
    });
    after(async () => second?.close());

    it('send the same payouts at once: exactly one transfer each', async () => {
      const other = second;
      if (!other) throw new Error('no second daemon');
      fakes.stripe.delayMs = 50;
      try {
        const payouts = [];
        for (let i = 0; i < 10; i++) {
          const account = `acct_1TwoDaemons${String(i).padStart(4, '0')}`;
          fakes.stripe.accounts.add(account);
          payouts.push((await rails.pendingPayout({ method: 'stripe', account }, [100 + i])).payout);
        }
        const sends = payouts.flatMap((payout) =>
          [t.url, other.url, t.url, other.url].map((url) =>
            call(url, 'POST', `/v1/payouts/${payout.id}/send`, { key: t.merchant.key }),
          ),
        );
        const replies = await Promise.all(sends);
        for (const reply of replies) expect(reply.status, reply.text).to.equal(200);
        for (const payout of payouts) {
          const paid = await rails.settled(payout.id);
          expect(paid.status).to.equal('paid');
          expect(fakes.stripe.transfersFor(paid.reference)).to.have.length(1);
        }
      } finally {
        fakes.stripe.delayMs = 0;
      }
    });
  });
});
