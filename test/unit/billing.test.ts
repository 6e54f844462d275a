import { expect } from 'chai';
import { isCurrencyCode, minorToHundredths, minorUnitExponent, proportion } from '../../shared/currency.js';
import { readPaddleEvent } from '../../server/services/billing/paddlePayloads.js';
import { verifyPaddle, verifyStripe } from '../../server/services/billing/signatures.js';
import { readStripeEvent } from '../../server/services/billing/stripePayloads.js';
import { fixture, objectOf, paddleSignature, stripeSignature } from '../helpers/billing.js';

describe('billing: currencies and minor units', () => {
  it('knows ISO 4217 codes and each currency’s exponent, with Stripe’s exceptions', () => {
    expect(['BRL', 'USD', 'JPY', 'KWD'].every(isCurrencyCode)).to.equal(true);
    expect(isCurrencyCode('XYZ')).to.equal(false);
    expect([minorUnitExponent('JPY'), minorUnitExponent('BRL'), minorUnitExponent('KWD')]).to.deep.equal([0, 2, 3]);
    expect(minorUnitExponent('ISK', 'stripe')).to.equal(2);
    expect(minorUnitExponent('ISK', 'paddle')).to.equal(0);
  });

  it('converts with integers only: 0, 2 and 3 decimals, half up, huge values exact', () => {
    expect(minorToHundredths(5000, 0)).to.equal(500000);
    expect(minorToHundredths('19990', 2)).to.equal(19990);
    expect(minorToHundredths('12345', 3)).to.equal(1235);
    expect(minorToHundredths('12344', 3)).to.equal(1234);
    expect(minorToHundredths('5', 3)).to.equal(1);
    expect(minorToHundredths('4', 3)).to.equal(0);
    expect(minorToHundredths('900719925474099', 2)).to.equal(900719925474099);
    expect(minorToHundredths('1e3', 2)).to.equal(undefined);
    expect(minorToHundredths(1.5, 2)).to.equal(undefined);
    expect(minorToHundredths('9'.repeat(30), 2)).to.equal(undefined);
    expect(proportion(1999, 5000n, 19990n)).to.equal(500);
  });
});

describe('billing: reading provider payloads', () => {
  it('a paid Checkout Session: order id, amount, code, customer', () => {
    const event = readStripeEvent(fixture('stripe-checkout-session-payment'));
    expect(event?.kind).to.equal('payment');
    if (event?.kind !== 'payment') return;
    expect(event.payment).to.deep.include({
      orderId: 'pi_3QcA2aLkdIwHu7ix0XyZ1w2V',
      amountMinor: '19990',
      currency: 'BRL',
      renewal: false,
    });
    expect(event.payment.attribution).to.deep.equal({
      referralCodes: ['MARIA10'],
      couponCodes: [],
      customerId: 'cus_QwErTy1234AbCd',
    });
    expect(event.livemode).to.equal(false);
  });

  it('a subscription Checkout Session binds, counts nothing', () => {
    expect(readStripeEvent(fixture('stripe-checkout-session-subscription'))?.kind).to.equal('binding');
  });

  it('invoice.paid in both layouts: tax out, subscription metadata, payment ids, renewal', () => {
    const legacy = readStripeEvent(fixture('stripe-invoice-paid-2024-06-20'));
    const basil = readStripeEvent(fixture('stripe-invoice-paid-basil'));
    if (legacy?.kind !== 'payment' || basil?.kind !== 'payment') throw new Error('payments expected');
    expect(legacy.payment).to.deep.include({ amountMinor: '4990', renewal: false });
    expect(legacy.payment.references).to.deep.equal([
      'in_1QcC4cLkdIwHu7ixLegacy01',
      'pi_3QcC4bLkdIwHu7ix0Legacy',
      'ch_3QcC4bLkdIwHu7ix1Legacy',
    ]);
    expect(legacy.payment.attribution.referralCodes).to.deep.equal(['MARIA10']);
    expect(basil.payment).to.deep.include({ amountMinor: '4990', renewal: true });
    expect(basil.payment.references).to.deep.equal(['in_1QcD5dLkdIwHu7ixBasil001', 'pi_3QcD5cLkdIwHu7ix0Basil0']);
    expect(basil.payment.attribution.referralCodes).to.deep.equal(['MARIA10']);
  });

  it('coupons from a discount, a discounts list, promotion codes', () => {
    const event = fixture('stripe-checkout-session-payment');
    Object.assign(objectOf(event), {
      discounts: [{ coupon: 'SUMMER', promotion_code: 'promo_1Abc' }, { coupon: { id: 'EXTRA' } }],
    });
    const read = readStripeEvent(event);
    if (read?.kind !== 'payment') throw new Error('payment expected');
    expect(read.payment.attribution.couponCodes).to.deep.equal(['SUMMER', 'promo_1Abc', 'EXTRA']);
  });

  it('charge.refunded: full or partial, by invoice (before basil), payment intent and charge', () => {
    const full = readStripeEvent(fixture('stripe-charge-refunded-2024-06-20'));
    if (full?.kind !== 'refund') throw new Error('refund expected');
    expect(full.refund).to.deep.include({
      full: true,
      refundedMinor: '5490',
      ofMinor: '5490',
      // A running total: its key is the charge and the total, so one total refunds once.
      cumulative: true,
      refundKey: `stripe:${String(objectOf(fixture('stripe-charge-refunded-2024-06-20')).id)}:5490`,
    });
    expect(full.refund.references[0]).to.equal('in_1QcC4cLkdIwHu7ixLegacy01');
    const partial = fixture('stripe-charge-refunded');
    Object.assign(objectOf(partial), { amount_refunded: 100 });
    const read = readStripeEvent(partial);
    expect(read?.kind === 'refund' && read.refund.full).to.equal(false);
  });

  it('Paddle: a completed transaction less tax, a renewal by its origin; approved refunds only', () => {
    const txn = readPaddleEvent(fixture('paddle-transaction-completed'));
    if (txn?.kind !== 'payment') throw new Error('payment expected');
    expect(txn.payment).to.deep.include({
      orderId: 'txn_01jd89zx0a1b2c3d4e5f6g7h8j',
      amountMinor: '4990',
      currency: 'BRL',
      renewal: false,
    });
    const renewal = fixture('paddle-transaction-completed');
    Object.assign(objectOf(renewal), { origin: 'subscription_recurring' });
    expect(readPaddleEvent(renewal)).to.have.nested.property('payment.renewal', true);
    const refund = readPaddleEvent(fixture('paddle-adjustment-refund'));
    expect(refund).to.deep.include({ kind: 'refund' });
    // One adjustment is one refund, whichever of its events (created, updated) says it is approved.
    expect(refund).to.have.nested.property('refund.refundKey', 'paddle:adj_01jd8b1b0a1b2c3d4e5f6g7h8j');
    expect(refund).to.have.nested.property('refund.cumulative', false);
    expect(refund).to.have.nested.property('refund.refundedMinor', '4990');
    const pending = fixture('paddle-adjustment-refund');
    Object.assign(objectOf(pending), { status: 'pending_approval' });
    expect(readPaddleEvent(pending)?.kind).to.equal('ignored');
  });

  it('never throws on what an attacker could sign: odd shapes are unreadable or not events', () => {
    for (const body of [
      null,
      1,
      'x',
      [],
      {},
      { id: 'evt', type: 'invoice.paid' },
      { id: 'e', type: 'invoice.paid', data: { object: { amount_paid: 1.5 } } },
    ]) {
      const read = readStripeEvent(body);
      expect(read === undefined || read.kind === 'unreadable', JSON.stringify(body)).to.equal(true);
    }
    expect(
      readPaddleEvent({ event_id: 'e', event_type: 'transaction.completed', data: { details: 7 } })?.kind,
    ).to.equal('unreadable');
  });
});

describe('billing: signatures', () => {
  const payload = Buffer.from(JSON.stringify(fixture('stripe-checkout-session-payment')));

  it('Stripe: any of the secrets, never a stale or a wrong one', () => {
    const header = stripeSignature(payload.toString(), 'whsec_two');
    expect(verifyStripe(payload, header, ['whsec_one', 'whsec_two']).ok).to.equal(true);
    expect(verifyStripe(payload, header, ['whsec_one'])).to.deep.equal({ ok: false, reason: 'signature' });
    const stale = stripeSignature(payload.toString(), 'whsec_one', Math.floor(Date.now() / 1000) - 400);
    expect(verifyStripe(payload, stale, ['whsec_one']).ok).to.equal(false);
    expect(verifyStripe(payload, undefined, ['whsec_one']).ok).to.equal(false);
  });

  it('Paddle: ts;h1 over "ts:body", constant-time, within 300 seconds either way', () => {
    const now = Date.now();
    const ts = Math.floor(now / 1000);
    expect(verifyPaddle(payload, paddleSignature(payload.toString(), 'pdl_a', ts), ['pdl_a'], now).ok).to.equal(true);
    expect(verifyPaddle(payload, paddleSignature(payload.toString(), 'pdl_a', ts + 301), ['pdl_a'], now).ok).to.equal(
      false,
    );
    expect(verifyPaddle(payload, paddleSignature(payload.toString(), 'pdl_a', ts - 301), ['pdl_a'], now).ok).to.equal(
      false,
    );
    expect(verifyPaddle(payload, `ts=${ts};h1=abc`, ['pdl_a'], now).ok).to.equal(false);
    expect(verifyPaddle(payload, 'garbage', ['pdl_a'], now).ok).to.equal(false);
    const notJson = Buffer.from('not json');
    expect(verifyPaddle(notJson, paddleSignature('not json', 'pdl_a', ts), ['pdl_a'], now)).to.deep.equal({
      ok: false,
      reason: 'json',
    });
  });
});
