import { expect } from 'chai';
import { decimalText, hundredthsToMinor, providerMinor } from '../../server/services/payouts/providers/amounts.js';
import {
  asaasTokenMatches,
  readAsaasCallback,
  type PayPalSignatureHeaders,
  readPayPalCallback,
  verifyPayPalSignature,
} from '../../server/services/payouts/providers/index.js';
import { certUrlAllowed } from '../../server/services/payouts/providers/paypal/callback.js';
import { FakePayPal, PAYPAL_FAKE_CERT, signatureOf } from '../helpers/fakes/paypal.js';

describe('payout amounts: minor units to each provider, exactly', () => {
  it('writes decimal text from the digits', () => {
    expect(decimalText(1, 2)).to.equal('0.01');
    expect(decimalText(123456, 2)).to.equal('1234.56');
    expect(decimalText(1500, 0)).to.equal('1500');
    expect(decimalText(1234, 3)).to.equal('1.234');
    expect(decimalText(9007199254740991, 2)).to.equal('90071992547409.91');
    expect(decimalText(-1, 2)).to.equal(undefined);
    expect(decimalText(0.5, 2)).to.equal(undefined);
  });

  it('turns the campaign’s hundredths into ISO minor units, refusing a fraction of a yen', () => {
    expect(hundredthsToMinor(1234, 'BRL')).to.deep.equal({ minor: 1234, currency: 'BRL' });
    expect(hundredthsToMinor(150_000, 'JPY')).to.deep.equal({ minor: 1500, currency: 'JPY' });
    expect(hundredthsToMinor(150, 'jpy')).to.equal(undefined);
    expect(hundredthsToMinor(1234, 'KWD')).to.deep.equal({ minor: 12340, currency: 'KWD' });
  });

  it('counts Stripe’s minor unit where it differs from ISO (ISK in hundredths)', () => {
    expect(providerMinor({ minor: 500, currency: 'ISK' }, 'stripe')).to.equal(50_000);
    expect(providerMinor({ minor: 500, currency: 'JPY' }, 'stripe')).to.equal(500);
    expect(providerMinor({ minor: 1999, currency: 'USD' }, 'stripe')).to.equal(1999);
  });
});

describe('Asaas callbacks', () => {
  it('the asaas-access-token matches only the rail’s webhook token', () => {
    expect(asaasTokenMatches('whk_secret', 'whk_secret')).to.equal(true);
    expect(asaasTokenMatches('whk_secreT', 'whk_secret')).to.equal(false);
    expect(asaasTokenMatches('whk_secret_longer', 'whk_secret')).to.equal(false);
    expect(asaasTokenMatches(undefined, 'whk_secret')).to.equal(false);
    expect(asaasTokenMatches('', '')).to.equal(false);
  });

  it('reads a TRANSFER_* event into the transfer’s outcome, by our reference', () => {
    const transfer = {
      object: 'transfer',
      id: '777eb7c8-b1a2-4356-8fd8-a1b0644b5282',
      status: 'DONE',
      value: 1000,
      endToEndIdentifier: 'E19540550202611271405abcdefghijk',
      failReason: null,
      externalReference: 'payout-12',
    };
    expect(readAsaasCallback({ id: 'evt_1', event: 'TRANSFER_DONE', transfer })).to.deep.equal({
      kind: 'transfer',
      eventId: 'evt_1',
      reference: 'payout-12',
      outcome: { status: 'paid', providerId: transfer.id, receipt: transfer.endToEndIdentifier },
    });
    const failed = { ...transfer, status: 'FAILED', endToEndIdentifier: null, failReason: 'Chave Pix inexistente' };
    expect(readAsaasCallback({ event: 'TRANSFER_FAILED', transfer: failed })).to.deep.include({
      outcome: { status: 'failed', code: 'refused', reason: 'Chave Pix inexistente', providerId: transfer.id },
    });
    expect(
      readAsaasCallback({ event: 'TRANSFER_PENDING', transfer: { ...transfer, status: 'PENDING' } }),
    ).to.deep.include({
      outcome: { status: 'processing', providerId: transfer.id },
    });
    expect(readAsaasCallback({ event: 'PAYMENT_RECEIVED', payment: { id: 'pay_1' } })).to.deep.equal({ kind: 'other' });
    expect(
      readAsaasCallback({ event: 'TRANSFER_DONE', transfer: { ...transfer, externalReference: null } }),
    ).to.deep.equal({
      kind: 'other',
    });
  });
});

describe('PayPal callbacks (self-verification)', () => {
  const fake = new FakePayPal();
  const item = {
    payout_item_id: '8AELMXH8UB2P8',
    transaction_id: '0C413693MN970190K',
    transaction_status: 'SUCCESS',
    payout_batch_id: 'Q8KVJG9TZTNN4',
    sender_batch_id: 'batch-7',
    payout_item: {
      recipient_type: 'EMAIL',
      amount: { value: '9.87', currency: 'USD' },
      receiver: 'a@example.com',
      sender_item_id: 'payout-7',
    },
  };

  it('verifies PayPal’s SHA256withRSA signature over id|time|webhook id|CRC32(body), and nothing else', () => {
    const { body, headers } = fake.signedEvent('PAYMENT.PAYOUTS-ITEM.SUCCEEDED', item);
    const signed = signatureOf(headers);
    const verifies = (
      changes: Partial<PayPalSignatureHeaders>,
      text = body,
      webhookId = fake.webhookId,
      now = new Date(),
    ) => verifyPayPalSignature({ ...signed, ...changes }, Buffer.from(text), webhookId, PAYPAL_FAKE_CERT, now);
    expect(verifies({})).to.equal(true);
    expect(verifies({}, body.replace('9.87', '98.70'))).to.equal(false);
    expect(verifies({}, body, 'WH-ANOTHER-HOOK')).to.equal(false);
    expect(verifies({ transmissionId: 'other' })).to.equal(false);
    expect(verifies({ authAlgo: 'SHA1withRSA' })).to.equal(false);
    expect(verifies({ transmissionSig: undefined })).to.equal(false);
    expect(verifies({}, body, fake.webhookId, new Date('2200-01-01T00:00:00Z'))).to.equal(false);
    expect(verifyPayPalSignature(signed, Buffer.from(body), fake.webhookId, 'not a certificate')).to.equal(false);
  });

  it('fetches a certificate only from PayPal’s hosts over HTTPS, or the configured PayPal origin', () => {
    const live = 'https://api-m.paypal.com';
    expect(
      certUrlAllowed('https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77', live),
    ).to.equal(true);
    expect(certUrlAllowed('https://api.sandbox.paypal.com/v1/notifications/certs/CERT-1', live)).to.equal(true);
    expect(certUrlAllowed('http://api.paypal.com/v1/notifications/certs/CERT-1', live)).to.equal(false);
    expect(certUrlAllowed('https://api.paypal.com.evil.example/v1/notifications/certs/CERT-1', live)).to.equal(false);
    expect(certUrlAllowed('https://api.paypal.com:8443/v1/notifications/certs/CERT-1', live)).to.equal(false);
    expect(certUrlAllowed('https://api.paypal.com/v1/oauth2/token', live)).to.equal(false);
    expect(certUrlAllowed('https://user@api.paypal.com/v1/notifications/certs/CERT-1', live)).to.equal(false);
    expect(certUrlAllowed('http://127.0.0.1:4010/v1/notifications/certs/CERT-1', 'http://127.0.0.1:4010')).to.equal(
      true,
    );
    expect(certUrlAllowed('http://127.0.0.1:4011/v1/notifications/certs/CERT-1', 'http://127.0.0.1:4010')).to.equal(
      false,
    );
    expect(certUrlAllowed('not a url', live)).to.equal(false);
  });

  it('reads an item event into its outcome, and a batch event into the batch to look up', () => {
    const { body } = fake.signedEvent('PAYMENT.PAYOUTS-ITEM.SUCCEEDED', item);
    expect(readPayPalCallback(JSON.parse(body))).to.deep.include({
      kind: 'item',
      reference: 'payout-7',
      batchReference: 'batch-7',
      outcome: {
        status: 'paid',
        receipt: '0C413693MN970190K',
        providerId: '8AELMXH8UB2P8',
        providerBatchId: 'Q8KVJG9TZTNN4',
      },
    });
    const unclaimed = { ...item, transaction_id: undefined, transaction_status: 'UNCLAIMED' };
    expect(readPayPalCallback({ event_type: 'PAYMENT.PAYOUTS-ITEM.UNCLAIMED', resource: unclaimed })).to.deep.include({
      outcome: { status: 'processing', providerId: '8AELMXH8UB2P8', providerBatchId: 'Q8KVJG9TZTNN4' },
    });
    const batch = {
      batch_header: {
        payout_batch_id: 'Q8KVJG9TZTNN4',
        batch_status: 'SUCCESS',
        sender_batch_header: { sender_batch_id: 'batch-7' },
      },
    };
    expect(
      readPayPalCallback({ id: 'WH-1', event_type: 'PAYMENT.PAYOUTSBATCH.SUCCESS', resource: batch }),
    ).to.deep.equal({
      kind: 'batch',
      eventId: 'WH-1',
      batchReference: 'batch-7',
      providerBatchId: 'Q8KVJG9TZTNN4',
    });
    expect(readPayPalCallback({ event_type: 'PAYMENT.CAPTURE.COMPLETED', resource: {} })).to.deep.equal({
      kind: 'other',
    });
  });
});
