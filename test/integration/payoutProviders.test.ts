import { expect } from 'chai';
import {
  asaasTokenMatches,
  createPayoutProviders,
  paypalCertificates,
  readAsaasCallback,
  readPayPalCallback,
  verifyPayPalSignature,
  type PayoutBatch,
  type PayoutIntent,
  type PayoutProviders,
  type ProviderOutcome,
} from '../../server/services/payouts/providers/index.js';
import { FakeAsaas } from '../helpers/fakes/asaas.js';
import { FakePayPal, PAYPAL_FAKE_CERT, signatureOf } from '../helpers/fakes/paypal.js';
import { FakeStripe } from '../helpers/fakes/stripe.js';
import { Receiver } from '../helpers/receiver.js';

/** Short enough for a test to wait out; long enough for a loopback answer on a busy machine. */
const TIMEOUT_MS = 1500;

let counter = 0;
const reference = (prefix: string) => `${prefix}-${process.pid}-${Date.now()}-${++counter}`;

function providersFor(urls: { asaas?: string; paypal?: string; stripe?: string }): PayoutProviders {
  const none = 'http://127.0.0.1:9';
  return createPayoutProviders({
    asaasUrl: urls.asaas ?? none,
    paypalUrl: urls.paypal ?? none,
    stripeUrl: urls.stripe ?? none,
    timeoutMs: TIMEOUT_MS,
  });
}

const one = (intent: PayoutIntent): PayoutBatch => ({ reference: intent.reference, intents: [intent] });
const single = (outcomes: ProviderOutcome[]): ProviderOutcome => {
  expect(outcomes).to.have.length(1);
  return outcomes[0] as ProviderOutcome;
};

describe('payout providers against their fakes', function () {
  this.timeout(20_000);

  describe('pix (Asaas)', () => {
    let asaas: FakeAsaas;
    let providers: PayoutProviders;
    const credentials = () => ({ rail: 'pix' as const, apiKey: asaas.apiKey });
    const pix = (minor: number, overrides: Partial<PayoutIntent> = {}): PayoutIntent => ({
      reference: reference('pix'),
      amount: { minor, currency: 'BRL' },
      payee: { rail: 'pix', pixKey: '+5511987654321', pixKeyType: 'phone' },
      description: 'Comissões de novembro',
      ...overrides,
    });

    beforeEach(async () => {
      asaas = await new FakeAsaas().start();
      providers = providersFor({ asaas: asaas.url });
    });
    afterEach(() => asaas.close());

    it('pays: processing with the transfer id, then paid with the Pix end-to-end id as receipt', async () => {
      const intent = pix(123_456);
      const sent = single(await providers.pix.send(credentials(), one(intent)));
      expect(sent.status).to.equal('processing');
      const [transfer] = asaas.transfersFor(intent.reference);
      expect(sent).to.deep.equal({ status: 'processing', providerId: transfer?.id });
      // The bytes Asaas read: reais with two decimals, the key's type in Asaas's words.
      const body = asaas.requests.find((req) => req.method === 'POST')?.body ?? '';
      expect(body).to.contain('"value":1234.56,');
      expect(JSON.parse(body)).to.include({
        pixAddressKeyType: 'PHONE',
        operationType: 'PIX',
        externalReference: intent.reference,
      });

      const settled = await asaas.settle(transfer?.id ?? '');
      const looked = await providers.pix.lookup(credentials(), {
        reference: intent.reference,
        batchReference: intent.reference,
        sentAt: new Date(),
        providerId: transfer?.id,
      });
      expect(looked).to.deep.equal({ status: 'paid', providerId: settled.id, receipt: settled.endToEndIdentifier });
      expect(settled.endToEndIdentifier).to.match(/^E\d{8}\d{12}[0-9A-Z]{11}$/);
    });

    it('sends BRL amounts exactly: one centavo, odd centavos, a large sum', async () => {
      asaas.balanceCentavos = 1e12;
      for (const [minor, text] of [
        [1, '0.01'],
        [10, '0.1'],
        [1999, '19.99'],
        [100_000_000_07, '100000000.07'],
      ] as const) {
        asaas.requests.length = 0;
        const outcome = single(await providers.pix.send(credentials(), one(pix(minor))));
        expect(outcome.status, text).to.equal('processing');
        expect(asaas.requests[0]?.body).to.contain(`"value":${text === '0.1' ? '0.10' : text},`);
      }
      expect(asaas.transfers.map((transfer) => transfer.value)).to.deep.equal([0.01, 0.1, 19.99, 100000000.07]);
    });

    it('refuses USD without a call: Pix pays BRL only', async () => {
      const outcome = single(
        await providers.pix.send(credentials(), one(pix(1000, { amount: { minor: 1000, currency: 'USD' } }))),
      );
      expect(outcome).to.deep.include({ status: 'failed', code: 'currency_not_supported' });
      expect(asaas.requests).to.have.length(0);
    });

    it('fails with Asaas’s word: insufficient balance, an unknown key, an invalid key, a bad API key', async () => {
      asaas.balanceCentavos = 500;
      expect(single(await providers.pix.send(credentials(), one(pix(501))))).to.deep.equal({
        status: 'failed',
        code: 'insufficient_balance',
        reason: 'Saldo insuficiente para realizar a transferência.',
      });
      asaas.balanceCentavos = 1_000_000;
      asaas.unknownKeys.add('nobody@example.com');
      const unknown = pix(100, { payee: { rail: 'pix', pixKey: 'nobody@example.com', pixKeyType: 'email' } });
      expect(single(await providers.pix.send(credentials(), one(unknown)))).to.deep.include({
        status: 'failed',
        code: 'invalid_payee',
      });
      asaas.invalidKeys.add('12345678900');
      const invalid = pix(100, { payee: { rail: 'pix', pixKey: '12345678900', pixKeyType: 'cpf' } });
      expect(single(await providers.pix.send(credentials(), one(invalid)))).to.deep.include({
        status: 'failed',
        code: 'invalid_payee',
      });
      const wrongKey = single(await providers.pix.send({ rail: 'pix', apiKey: 'wrong' }, one(pix(100))));
      expect(wrongKey).to.deep.include({ status: 'failed', code: 'refused' });
      expect(asaas.transferCount).to.equal(0);
    });

    it('a 5xx, or a request held past the timeout, is ambiguous; the look-up finds the one transfer', async () => {
      asaas.fault({ kind: 'status', status: 502, processed: true });
      const first = pix(2500);
      expect(single(await providers.pix.send(credentials(), one(first)))).to.deep.include({ status: 'ambiguous' });

      asaas.fault({ kind: 'hang', processed: true });
      const second = pix(4200);
      const started = Date.now();
      const held = single(await providers.pix.send(credentials(), one(second)));
      expect(held).to.deep.equal({ status: 'ambiguous', reason: `no answer within ${TIMEOUT_MS / 1000} s` });
      expect(Date.now() - started).to.be.within(TIMEOUT_MS - 50, TIMEOUT_MS + 3000);

      for (const intent of [first, second]) {
        const looked = await providers.pix.lookup(credentials(), {
          reference: intent.reference,
          batchReference: intent.reference,
          sentAt: new Date(),
        });
        const [transfer] = asaas.transfersFor(intent.reference);
        expect(looked).to.deep.equal({ status: 'processing', providerId: transfer?.id });
      }
      expect(asaas.transferCount).to.equal(2);
    });

    it('a request lost before Asaas read it looks up as unknown (sending again is safe)', async () => {
      asaas.fault({ kind: 'status', status: 503, processed: false });
      const intent = pix(700);
      expect(single(await providers.pix.send(credentials(), one(intent))).status).to.equal('ambiguous');
      const looked = await providers.pix.lookup(credentials(), {
        reference: intent.reference,
        batchReference: intent.reference,
        sentAt: new Date(),
      });
      expect(looked).to.equal('unknown');
      expect(asaas.transferCount).to.equal(0);
    });

    it('the look-up pages through Asaas’s list to find an older transfer', async () => {
      const target = pix(333);
      single(await providers.pix.send(credentials(), one(target)));
      for (let i = 0; i < 230; i++) single(await providers.pix.send(credentials(), one(pix(100 + i))));
      const looked = await providers.pix.lookup(credentials(), {
        reference: target.reference,
        batchReference: target.reference,
        sentAt: new Date(),
      });
      expect(looked).to.deep.include({ status: 'processing', providerId: asaas.transfersFor(target.reference)[0]?.id });
      const pages = asaas.requests.filter((req) => req.method === 'GET').map((req) => req.query.get('offset'));
      expect(pages).to.deep.equal(['0', '100', '200']);
    });

    it('posts TRANSFER_* events with the webhook token; the callback and the look-up agree', async () => {
      const receiver = await new Receiver().start();
      try {
        asaas.callbackUrl = receiver.url;
        const intent = pix(1234);
        const sent = single(await providers.pix.send(credentials(), one(intent)));
        await asaas.settle(sent.status === 'processing' ? sent.providerId : '');
        const [delivery] = await receiver.waitFor(1);
        const token = delivery?.headers['asaas-access-token'];
        expect(asaasTokenMatches(typeof token === 'string' ? token : undefined, asaas.webhookToken)).to.equal(true);
        const callback = readAsaasCallback(JSON.parse(delivery?.body ?? '{}'));
        const looked = await providers.pix.lookup(credentials(), {
          reference: intent.reference,
          batchReference: intent.reference,
          sentAt: new Date(),
        });
        expect(callback).to.deep.include({ kind: 'transfer', reference: intent.reference, outcome: looked });
        expect(looked).to.have.property('status', 'paid');
      } finally {
        await receiver.stop();
      }
    });

    it('answers after the configured delay (a provider that takes 50 ms)', async () => {
      asaas.delayMs = 50;
      const started = Date.now();
      expect(single(await providers.pix.send(credentials(), one(pix(100)))).status).to.equal('processing');
      expect(Date.now() - started).to.be.at.least(50);
    });

    it('a failed transfer looks up as failed with Asaas’s reason', async () => {
      const intent = pix(900);
      const sent = single(await providers.pix.send(credentials(), one(intent)));
      const id = sent.status === 'processing' ? sent.providerId : '';
      await asaas.settle(id, 'FAILED', 'Conta de destino encerrada');
      const looked = await providers.pix.lookup(credentials(), {
        reference: intent.reference,
        batchReference: intent.reference,
        sentAt: new Date(),
        providerId: id,
      });
      expect(looked).to.deep.equal({
        status: 'failed',
        code: 'refused',
        reason: 'Conta de destino encerrada',
        providerId: id,
      });
    });
  });

  describe('paypal (Payouts)', () => {
    let paypal: FakePayPal;
    let providers: PayoutProviders;
    const credentials = () => ({
      rail: 'paypal' as const,
      clientId: paypal.clientId,
      clientSecret: paypal.clientSecret,
    });
    const item = (minor: number, currency = 'USD', email = 'affiliate@example.com'): PayoutIntent => ({
      reference: reference('pp'),
      amount: { minor, currency },
      payee: { rail: 'paypal', email },
      description: 'Your commissions for November',
    });
    const batchOf = (...intents: PayoutIntent[]): PayoutBatch => ({ reference: reference('batch'), intents });
    const sentOf = (batch: PayoutBatch, intent: PayoutIntent, providerBatchId?: string) => ({
      reference: intent.reference,
      batchReference: batch.reference,
      sentAt: new Date(),
      providerBatchId,
    });

    beforeEach(async () => {
      paypal = await new FakePayPal().start();
      providers = providersFor({ paypal: paypal.url });
    });
    afterEach(() => paypal.close());

    it('sends 1,000 payouts in one call, then reads each one paid with its transaction id', async () => {
      const intents = Array.from({ length: 1000 }, (_, i) => item(100 + i));
      const batch = batchOf(...intents);
      const outcomes = await providers.paypal.send(credentials(), batch);
      const [batchId] = [...paypal.batches.keys()];
      expect(
        outcomes.every((outcome) => outcome.status === 'processing' && outcome.providerBatchId === batchId),
      ).to.equal(true);
      expect(paypal.requests.filter((req) => req.path === '/v1/payments/payouts')).to.have.length(1);
      expect(paypal.itemCount).to.equal(1000);

      const last = intents[999] as PayoutIntent;
      const looked = await providers.paypal.lookup(credentials(), sentOf(batch, last, batchId));
      const [created] = paypal.itemsFor(last.reference);
      expect(looked).to.deep.equal({
        status: 'paid',
        receipt: created?.transaction_id,
        providerId: created?.payout_item_id,
        providerBatchId: batchId,
      });
      expect(created?.payout_item.amount).to.deep.equal({ value: '10.99', currency: 'USD' });
    });

    it('posts signed PAYMENT.PAYOUTS-ITEM.* events that verify with the certificate it serves; callback and look-up agree', async () => {
      const receiver = await new Receiver().start();
      try {
        paypal.callbackUrl = receiver.url;
        const intent = item(987);
        const batch = batchOf(intent);
        const sent = single(await providers.paypal.send(credentials(), batch));
        const [delivery] = await receiver.waitFor(1);
        const signature = signatureOf(delivery?.headers ?? {});
        const certificate = await paypalCertificates(paypal.url, 2000).get(signature.certUrl ?? '');
        const body = Buffer.from(delivery?.body ?? '');
        expect(verifyPayPalSignature(signature, body, paypal.webhookId, certificate ?? '')).to.equal(true);
        const looked = await providers.paypal.lookup(
          credentials(),
          sentOf(batch, intent, sent.status === 'processing' ? sent.providerBatchId : undefined),
        );
        expect(readPayPalCallback(JSON.parse(body.toString()))).to.deep.include({
          kind: 'item',
          reference: intent.reference,
          outcome: looked,
        });
        expect(looked).to.have.property('status', 'paid');
      } finally {
        await receiver.stop();
      }
    });

    it('fetches the certificate once and refuses other hosts without a request', async () => {
      const certificates = paypalCertificates(paypal.url, 2000);
      expect(await certificates.get(paypal.certUrl)).to.equal(PAYPAL_FAKE_CERT);
      expect(await certificates.get(paypal.certUrl)).to.equal(PAYPAL_FAKE_CERT);
      const otherHost = `http://localhost:${new URL(paypal.url).port}/v1/notifications/certs/CERT-fake-0001`;
      expect(await certificates.get(otherHost)).to.equal(undefined);
      expect(paypal.requests.map((req) => req.path)).to.deep.equal(['/v1/notifications/certs/CERT-fake-0001']);
    });

    it('one OAuth token serves every call until PayPal refuses it; then a new one', async () => {
      await providers.paypal.send(credentials(), batchOf(item(100)));
      await providers.paypal.send(credentials(), batchOf(item(200)));
      expect(paypal.tokenRequests).to.equal(1);
      paypal.expireTokens();
      const outcome = single(await providers.paypal.send(credentials(), batchOf(item(300))));
      expect(outcome.status).to.equal('processing');
      expect(paypal.tokenRequests).to.equal(2);
      const refused = single(
        await providers.paypal.send({ rail: 'paypal', clientId: 'x', clientSecret: 'y' }, batchOf(item(1))),
      );
      expect(refused).to.deep.include({ status: 'failed', code: 'refused' });
    });

    it('writes amounts exactly: USD cents, JPY whole yen, HUF whole forints, BRL centavos; refuses KWD and a forint fraction', async () => {
      const usd = item(1999);
      const brl = item(123_456, 'BRL');
      const jpy = item(1500, 'JPY');
      const huf = item(250_000, 'HUF');
      const kwd = item(1234, 'KWD');
      const fractionalForint = item(250_050, 'HUF');
      const outcomes = await providers.paypal.send(credentials(), batchOf(usd, jpy, huf, kwd, fractionalForint, brl));
      expect(outcomes.map((outcome) => outcome.status)).to.deep.equal([
        'processing',
        'processing',
        'processing',
        'failed',
        'failed',
        'processing',
      ]);
      expect(outcomes[3]).to.deep.include({ code: 'currency_not_supported' });
      expect(outcomes[4]).to.deep.include({ code: 'amount_not_payable' });
      expect(paypal.itemsFor(usd.reference)[0]?.payout_item.amount).to.deep.equal({ value: '19.99', currency: 'USD' });
      expect(paypal.itemsFor(jpy.reference)[0]?.payout_item.amount).to.deep.equal({ value: '1500', currency: 'JPY' });
      expect(paypal.itemsFor(huf.reference)[0]?.payout_item.amount).to.deep.equal({ value: '2500', currency: 'HUF' });
      expect(paypal.itemsFor(brl.reference)[0]?.payout_item.amount).to.deep.equal({
        value: '1234.56',
        currency: 'BRL',
      });
      expect(paypal.itemCount).to.equal(4);
    });

    it('insufficient funds fails the batch’s items; an unregistered e-mail stays processing until PayPal returns the money', async () => {
      paypal.insufficientFunds = true;
      const poor = single(await providers.paypal.send(credentials(), batchOf(item(100))));
      expect(poor).to.deep.include({ status: 'failed', code: 'insufficient_balance' });
      paypal.insufficientFunds = false;

      paypal.unregistered.add('ghost@example.com');
      const ghost = item(500, 'USD', 'ghost@example.com');
      const batch = batchOf(ghost);
      const sent = single(await providers.paypal.send(credentials(), batch));
      const batchId = sent.status === 'processing' ? sent.providerBatchId : undefined;
      expect(await providers.paypal.lookup(credentials(), sentOf(batch, ghost, batchId))).to.deep.include({
        status: 'processing',
      });
      await paypal.returnUnclaimed(ghost.reference);
      expect(await providers.paypal.lookup(credentials(), sentOf(batch, ghost, batchId))).to.deep.include({
        status: 'failed',
        code: 'invalid_payee',
      });
    });

    it('a held or 5xx batch is ambiguous; sending the same batch again pays nothing twice', async () => {
      for (const fault of [
        { kind: 'hang' as const, processed: true },
        { kind: 'status' as const, status: 500, processed: true },
      ]) {
        for (const honour of [true, false]) {
          paypal.honourRequestId = honour;
          paypal.fault({ ...fault, matches: (req) => req.path === '/v1/payments/payouts' });
          const intents = [item(700), item(800)];
          const batch = batchOf(...intents);
          const before = paypal.itemCount;
          const first = await providers.paypal.send(credentials(), batch);
          expect(first.map((outcome) => outcome.status)).to.deep.equal(['ambiguous', 'ambiguous']);
          // No batch id came back: nothing to look up, and resending is PayPal's documented recovery.
          expect(await providers.paypal.lookup(credentials(), sentOf(batch, intents[0] as PayoutIntent))).to.equal(
            'unknown',
          );
          const again = await providers.paypal.send(credentials(), batch);
          expect(
            again.map((outcome) => outcome.status),
            `${fault.kind} ${honour}`,
          ).to.deep.equal(honour ? ['processing', 'processing'] : ['paid', 'paid']);
          expect(paypal.itemCount - before).to.equal(2);
          for (const intent of intents) expect(paypal.itemsFor(intent.reference)).to.have.length(1);
        }
      }
    });
  });

  describe('stripe (Connect transfers)', () => {
    let stripe: FakeStripe;
    let providers: PayoutProviders;
    const credentials = () => ({ rail: 'stripe' as const, secretKey: stripe.secretKey });
    const transfer = (minor: number, currency = 'USD', account = 'acct_1AffiliateAbc'): PayoutIntent => ({
      reference: reference('st'),
      amount: { minor, currency },
      payee: { rail: 'stripe', account },
      description: 'Commissions for November',
    });

    beforeEach(async () => {
      stripe = await new FakeStripe().start();
      stripe.accounts.add('acct_1AffiliateAbc');
      providers = providersFor({ stripe: stripe.url });
    });
    afterEach(() => stripe.close());

    it('pays at once: the transfer id is the receipt; the reference is the Idempotency-Key and the transfer group', async () => {
      const intent = transfer(2599);
      const outcome = single(await providers.stripe.send(credentials(), one(intent)));
      const [made] = stripe.transfersFor(intent.reference);
      expect(outcome).to.deep.equal({ status: 'paid', providerId: made?.id, receipt: made?.id });
      expect(made).to.deep.include({ amount: 2599, currency: 'usd', destination: 'acct_1AffiliateAbc' });
      expect(stripe.requests[0]?.headers['idempotency-key']).to.equal(intent.reference);
    });

    it('amounts exactly: USD cents, JPY yen, KWD fils in tens, BRL centavos; a KWD amount Stripe cannot take is refused', async () => {
      const cases = [transfer(1999, 'USD'), transfer(1500, 'JPY'), transfer(1230, 'KWD'), transfer(123_456, 'BRL')];
      for (const intent of cases)
        expect(single(await providers.stripe.send(credentials(), one(intent))).status).to.equal('paid');
      expect(stripe.transfers.map((made) => [made.amount, made.currency])).to.deep.equal([
        [1999, 'usd'],
        [1500, 'jpy'],
        [1230, 'kwd'],
        [123_456, 'brl'],
      ]);
      const odd = single(await providers.stripe.send(credentials(), one(transfer(1234, 'KWD'))));
      expect(odd).to.deep.include({ status: 'failed', code: 'amount_not_payable' });
      expect(stripe.transferCount).to.equal(4);
    });

    it('fails with Stripe’s word: insufficient balance, an unknown connected account', async () => {
      stripe.balance.set('usd', 1000);
      expect(single(await providers.stripe.send(credentials(), one(transfer(1001))))).to.deep.include({
        status: 'failed',
        code: 'insufficient_balance',
      });
      expect(
        single(await providers.stripe.send(credentials(), one(transfer(100, 'USD', 'acct_1Nobody')))),
      ).to.deep.include({
        status: 'failed',
        code: 'invalid_payee',
        reason: "No such destination: 'acct_1Nobody'",
      });
      expect(stripe.transferCount).to.equal(0);
    });

    it('a 5xx or a hang is ambiguous; the look-up by transfer group finds the one transfer, a resend replays it', async () => {
      stripe.fault({ kind: 'status', status: 500, processed: true });
      const first = transfer(1100);
      expect(single(await providers.stripe.send(credentials(), one(first))).status).to.equal('ambiguous');
      stripe.fault({ kind: 'hang', processed: true });
      const second = transfer(2200);
      expect(single(await providers.stripe.send(credentials(), one(second))).status).to.equal('ambiguous');

      for (const intent of [first, second]) {
        const [made] = stripe.transfersFor(intent.reference);
        const looked = await providers.stripe.lookup(credentials(), {
          reference: intent.reference,
          batchReference: intent.reference,
          sentAt: new Date(),
        });
        expect(looked).to.deep.equal({ status: 'paid', providerId: made?.id, receipt: made?.id });
        // The same key again: Stripe replays its first answer, no second transfer.
        expect(single(await providers.stripe.send(credentials(), one(intent)))).to.deep.equal(looked);
      }
      expect(stripe.transferCount).to.equal(2);
      const lost = transfer(50);
      expect(
        await providers.stripe.lookup(credentials(), {
          reference: lost.reference,
          batchReference: lost.reference,
          sentAt: new Date(),
        }),
      ).to.equal('unknown');
    });

    it('the same key with another amount is Stripe’s idempotency error: ambiguous, never a second transfer', async () => {
      const intent = transfer(1000);
      single(await providers.stripe.send(credentials(), one(intent)));
      const changed = single(
        await providers.stripe.send(credentials(), one({ ...intent, amount: { minor: 2000, currency: 'USD' } })),
      );
      expect(changed.status).to.equal('ambiguous');
      expect(stripe.transferCount).to.equal(1);
    });
  });
});
