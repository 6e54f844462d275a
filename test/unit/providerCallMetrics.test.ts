import { expect } from 'chai';
import { createLogger } from '../../server/logger.js';
import { createMetrics, type Metrics } from '../../server/metrics/metrics.js';
import {
  createPayoutProviders,
  type PayoutBatch,
  type PayoutIntent,
  type PayoutProviders,
} from '../../server/services/payouts/providers/index.js';
import { FakeAsaas } from '../helpers/fakes/asaas.js';
import { FakePayPal } from '../helpers/fakes/paypal.js';
import { FakeStripe } from '../helpers/fakes/stripe.js';

/** The sample lines of one metric, without HELP and TYPE. */
const samples = (body: string, name: string) =>
  body.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));

/** The value of the one sample of `name` with exactly these labels, in prom-client's order. */
const value = (body: string, name: string, labels: string): number => {
  const line = samples(body, name).find((sample) => sample.startsWith(`${name}{${labels}} `));
  if (!line) throw new Error(`no sample ${name}{${labels}} in:\n${samples(body, name).join('\n')}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
};
const calls = (body: string, rail: string, operation: string, outcome: string) =>
  value(body, 'affiliated_provider_calls_total', `rail="${rail}",operation="${operation}",outcome="${outcome}"`);
const payouts = (body: string, rail: string, operation: string, outcome: string) =>
  value(body, 'affiliated_provider_payouts_total', `rail="${rail}",operation="${operation}",outcome="${outcome}"`);

let counter = 0;
const intent = (payee: PayoutIntent['payee'], minor: number, currency: string): PayoutIntent => ({
  reference: `ref-${process.pid}-${++counter}`,
  amount: { minor, currency },
  payee,
  description: 'Commissions for November',
});
const batchOf = (...intents: PayoutIntent[]): PayoutBatch => ({ reference: `batch-${++counter}`, intents });

/** server/metrics/providerCalls.ts: the payout provider registry decorated, against the loopback fakes. */
describe('provider call metrics', function () {
  this.timeout(20_000);
  let asaas: FakeAsaas;
  let paypal: FakePayPal;
  let stripe: FakeStripe;
  let metrics: Metrics;
  let providers: PayoutProviders;
  const scrape = async () => (await metrics.scrape()).body;

  beforeEach(async () => {
    [asaas, paypal, stripe] = await Promise.all([
      new FakeAsaas().start(),
      new FakePayPal().start(),
      new FakeStripe().start(),
    ]);
    stripe.accounts.add('acct_1AffiliateAbc');
    metrics = createMetrics({ logger: createLogger('silent') });
    providers = metrics.payoutProviders(
      createPayoutProviders({ asaasUrl: asaas.url, paypalUrl: paypal.url, stripeUrl: stripe.url, timeoutMs: 1500 }),
    );
  });
  afterEach(() => Promise.all([asaas.close(), paypal.close(), stripe.close()]));

  it('none before a registry is decorated; then every rail, operation and outcome from 0', async () => {
    const bare = createMetrics({ logger: createLogger('silent') });
    expect((await bare.scrape()).body).not.to.include('affiliated_provider_');
    const body = await scrape();
    expect(samples(body, 'affiliated_provider_calls_total')).to.have.length(3 * 2 * 3);
    expect(samples(body, 'affiliated_provider_payouts_total')).to.have.length(3 * 2 * 5);
    expect(calls(body, 'paypal', 'lookup', 'error')).to.equal(0);
    expect(payouts(body, 'stripe', 'send', 'failed')).to.equal(0);
  });

  it('counts a Pix send and its look-up by what Asaas said, and times them', async () => {
    const credentials = { rail: 'pix' as const, apiKey: asaas.apiKey };
    const pix = intent({ rail: 'pix', pixKey: '+5511987654321', pixKeyType: 'phone' }, 12_345, 'BRL');
    asaas.delayMs = 60;
    const [sent] = await providers.pix.send(credentials, batchOf(pix));
    expect(sent?.status).to.equal('processing');
    const [transfer] = asaas.transfersFor(pix.reference);
    await asaas.settle(transfer?.id ?? '');
    const looked = await providers.pix.lookup(credentials, {
      reference: pix.reference,
      batchReference: pix.reference,
      sentAt: new Date(),
      providerId: transfer?.id,
    });
    expect(looked).to.deep.include({ status: 'paid' });

    const body = await scrape();
    expect(calls(body, 'pix', 'send', 'answered')).to.equal(1);
    expect(payouts(body, 'pix', 'send', 'processing')).to.equal(1);
    expect(calls(body, 'pix', 'lookup', 'answered')).to.equal(1);
    expect(payouts(body, 'pix', 'lookup', 'paid')).to.equal(1);
    // Both calls waited for the fake's 60 ms: in the histogram, with their time.
    expect(value(body, 'affiliated_provider_call_duration_seconds_count', 'rail="pix",operation="send"')).to.equal(1);
    expect(value(body, 'affiliated_provider_call_duration_seconds_sum', 'rail="pix",operation="send"')).to.be.within(
      0.06,
      1.5,
    );
    expect(
      value(body, 'affiliated_provider_call_duration_seconds_bucket', 'le="0.05",rail="pix",operation="lookup"'),
    ).to.equal(0);
    // Nothing of the payout itself is a label: no reference, no provider id, no amount.
    expect(body).not.to.include(pix.reference);
    expect(body).not.to.include(transfer?.id ?? '-');
  });

  it('one PayPal call for a batch, each of its payouts counted', async () => {
    const credentials = { rail: 'paypal' as const, clientId: paypal.clientId, clientSecret: paypal.clientSecret };
    const items = [1, 2, 3].map((n) => intent({ rail: 'paypal', email: `a${n}@example.com` }, 100 * n, 'USD'));
    const outcomes = await providers.paypal.send(credentials, batchOf(...items));
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['processing', 'processing', 'processing']);
    const body = await scrape();
    expect(calls(body, 'paypal', 'send', 'answered')).to.equal(1);
    expect(payouts(body, 'paypal', 'send', 'processing')).to.equal(3);
  });

  it('Stripe: a refusal is answered, a 5xx ambiguous, a transfer it never made unknown', async () => {
    const credentials = { rail: 'stripe' as const, secretKey: stripe.secretKey };
    const to = (minor: number, account = 'acct_1AffiliateAbc') => intent({ rail: 'stripe', account }, minor, 'USD');
    expect((await providers.stripe.send(credentials, batchOf(to(2599))))[0]?.status).to.equal('paid');
    const refused = await providers.stripe.send(credentials, batchOf(to(100, 'acct_1Nobody')));
    expect(refused[0]).to.deep.include({ status: 'failed', code: 'invalid_payee' });
    stripe.fault({ kind: 'status', status: 503, processed: false });
    expect((await providers.stripe.send(credentials, batchOf(to(300))))[0]?.status).to.equal('ambiguous');
    const never = to(400);
    const looked = await providers.stripe.lookup(credentials, {
      reference: never.reference,
      batchReference: never.reference,
      sentAt: new Date(),
    });
    expect(looked).to.equal('unknown');

    const body = await scrape();
    expect(calls(body, 'stripe', 'send', 'answered')).to.equal(2);
    expect(calls(body, 'stripe', 'send', 'ambiguous')).to.equal(1);
    expect(payouts(body, 'stripe', 'send', 'paid')).to.equal(1);
    expect(payouts(body, 'stripe', 'send', 'failed')).to.equal(1);
    expect(payouts(body, 'stripe', 'send', 'ambiguous')).to.equal(1);
    expect(calls(body, 'stripe', 'lookup', 'answered')).to.equal(1);
    expect(payouts(body, 'stripe', 'lookup', 'unknown')).to.equal(1);
  });

  it('a call that throws is counted as an error and still throws', async () => {
    const credentials = { rail: 'stripe' as const, secretKey: stripe.secretKey };
    const two = batchOf(
      intent({ rail: 'stripe', account: 'acct_1AffiliateAbc' }, 100, 'USD'),
      intent({ rail: 'stripe', account: 'acct_1AffiliateAbc' }, 200, 'USD'),
    );
    let thrown: unknown;
    await providers.stripe.send(credentials, two).catch((err: unknown) => {
      thrown = err;
    });
    expect(thrown).to.be.instanceOf(RangeError);
    expect(stripe.requests).to.have.length(0);
    const body = await scrape();
    expect(calls(body, 'stripe', 'send', 'error')).to.equal(1);
    expect(value(body, 'affiliated_provider_call_duration_seconds_count', 'rail="stripe",operation="send"')).to.equal(
      1,
    );
  });

  it('keeps each rail and its batch size', () => {
    expect(providers.pix.rail).to.equal('pix');
    expect(providers.paypal.maxBatch).to.be.above(1);
    expect(providers.stripe.maxBatch).to.equal(1);
  });
});
