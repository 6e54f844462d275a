import { expect } from 'chai';
import { payoutsCsv } from '../../cli/commands/payouts/csv.js';
import { judgeTransition } from '../../server/services/conversionRules.js';
import { decimalTextToHundredths, formatCents, fromCents, toCents } from '../../shared/money.js';
import type { Payout } from '../../shared/schemas/payout.js';

describe('money: centavos, half up as written in decimal', () => {
  it('rounds what is written, not the float nearest to it', () => {
    // 1.045 is stored as 1.04499999999999992894572642398998141288757324218750, 1.005 as 1.00499999...
    expect((1.045).toFixed(2)).to.equal('1.04');
    expect(Math.round(1.005 * 100)).to.equal(100);
    expect(toCents(1.045)).to.equal(105);
    expect(toCents(1.005)).to.equal(101);
    expect(toCents(8.345)).to.equal(835);
    expect(toCents(0.285)).to.equal(29);
    expect(toCents(1.044999)).to.equal(104);
    expect(toCents(0.005)).to.equal(1);
    expect(toCents(0.0049)).to.equal(0);
    expect(toCents(19.99)).to.equal(1999);
    expect(toCents(5e-7)).to.equal(0);
    expect(toCents(10_000_000_000)).to.equal(1_000_000_000_000);
    expect(toCents(-1.045)).to.equal(-105);
    expect(() => toCents(Number.NaN)).to.throw(RangeError);
    expect(() => toCents(Number.POSITIVE_INFINITY)).to.throw(RangeError);
  });

  it('agrees with exact decimal arithmetic on every value of three decimals up to 100', () => {
    for (let thousandths = 0; thousandths <= 100_000; thousandths++) {
      const expected = Math.floor((thousandths + 5) / 10);
      const cents = toCents(thousandths / 1000);
      if (cents !== expected) expect.fail(`${thousandths / 1000} gave ${cents}, not ${expected}`);
    }
  });

  it('reads decimal text, as the CLI gets it', () => {
    expect(decimalTextToHundredths('12.345')).to.equal(1235);
    expect(decimalTextToHundredths(' 7 ')).to.equal(700);
    expect(decimalTextToHundredths('.5')).to.equal(50);
    expect(decimalTextToHundredths('1e2')).to.equal(10_000);
    expect(decimalTextToHundredths('abc')).to.equal(undefined);
    expect(decimalTextToHundredths('.')).to.equal(undefined);
  });

  it('turns centavos back into JSON numbers and two-decimal text exactly', () => {
    expect(fromCents(1005)).to.equal(10.05);
    expect(fromCents('30')).to.equal(0.3);
    expect(formatCents(1250)).to.equal('12.50');
    expect(formatCents(5)).to.equal('0.05');
    expect(formatCents(-101)).to.equal('-1.01');
    expect(formatCents(123_456_789_012)).to.equal('1234567890.12');
  });
});

describe('conversion transitions by hand', () => {
  const at = (status: 'pending' | 'approved' | 'rejected' | 'paid', payoutId: number | null = null) => ({
    id: 12,
    status,
    payoutId,
    sourceConversionId: null,
  });

  it('allows pending → approved, pending → rejected, approved → rejected outside a payout', () => {
    expect(judgeTransition(at('pending'), 'approved')).to.deep.equal({ kind: 'move' });
    expect(judgeTransition(at('pending'), 'rejected')).to.deep.equal({ kind: 'move' });
    expect(judgeTransition(at('approved'), 'rejected')).to.deep.equal({ kind: 'move' });
  });

  it('answers the status a conversion already has with no change', () => {
    expect(judgeTransition(at('approved', 4), 'approved')).to.deep.equal({ kind: 'unchanged' });
    expect(judgeTransition(at('rejected'), 'rejected')).to.deep.equal({ kind: 'unchanged' });
  });

  it('refuses everything else, naming both states', () => {
    expect(judgeTransition(at('rejected'), 'approved')).to.deep.equal({
      kind: 'conflict',
      message: 'Conversion cannot move from rejected to approved',
    });
    expect(judgeTransition(at('paid', 3), 'approved')).to.deep.equal({
      kind: 'conflict',
      message: 'Conversion cannot move from paid to approved',
    });
    expect(judgeTransition(at('paid', 3), 'rejected')).to.deep.include({ kind: 'conflict' });
    expect(judgeTransition(at('approved', 9), 'rejected')).to.deep.equal({
      kind: 'conflict',
      message:
        'Conversion cannot move from approved to rejected while it is in payout 9: refund the order instead (POST /v1/refunds)',
    });
  });

  it('never moves a second-tier conversion on its own: it follows its sale', () => {
    const follower = { ...at('pending'), sourceConversionId: 11 };
    expect(judgeTransition(follower, 'approved')).to.deep.equal({
      kind: 'conflict',
      message:
        'Conversion 12 is the second-tier commission of conversion 11: it follows that sale, so approve, reject or refund conversion 11 instead',
    });
    expect(judgeTransition({ ...follower, status: 'rejected' }, 'rejected')).to.deep.equal({ kind: 'unchanged' });
  });
});

describe('payouts CSV', () => {
  const payout = (fields: Partial<Payout>): Payout => ({
    id: 1,
    affiliateId: 2,
    affiliateName: 'Ana',
    affiliateEmail: 'ana@example.com',
    payoutMethod: null,
    pixKeyType: null,
    payoutAccount: null,
    amount: 12.5,
    commissionAmount: 12.5,
    clawbackAmount: 0,
    currency: 'BRL',
    status: 'pending',
    conversionIds: [],
    createdAt: '2026-11-01T00:00:00.000Z',
    paidAt: null,
    failedAt: null,
    rail: null,
    reference: null,
    receipt: null,
    failureReason: null,
    ...fields,
  });

  it('writes a header and one line per payout, amounts with two decimals', () => {
    const rules = new Map([[1, 'campaign 10%: 2; group 3 15%: 1']]);
    expect(
      payoutsCsv(
        [
          payout({}),
          payout({
            id: 7,
            affiliateName: null,
            amount: 0.3,
            payoutMethod: 'pix',
            pixKeyType: 'cpf',
            payoutAccount: '52998224725',
          }),
        ],
        rules,
      ),
    ).to.equal(
      'payout_id,affiliate_id,name,email,payout_method,pix_key_type,payout_account,amount,currency,rail,reference,receipt,failure_reason,commission_rules\r\n' +
        '1,2,Ana,ana@example.com,,,,12.50,BRL,,,,,campaign 10%: 2; group 3 15%: 1\r\n' +
        '7,2,,ana@example.com,pix,cpf,52998224725,0.30,BRL,,,,,\r\n',
    );
  });

  it('quotes commas, quotes and line breaks, and defuses spreadsheet formulas', () => {
    const line = payoutsCsv([payout({ affiliateName: 'Silva, "Zé"\nJr', affiliateEmail: '=cmd@x.io' })]).split(
      '\r\n',
    )[1];
    expect(line).to.equal(`1,2,"Silva, ""Zé""\nJr",'=cmd@x.io,,,,12.50,BRL,,,,,`);
  });

  it('names the rail, reference and receipt of a sent payout, and a failed one’s reason as the provider gave it', () => {
    const [, paid, failed] = payoutsCsv([
      payout({
        status: 'paid',
        payoutMethod: 'pix',
        pixKeyType: 'cpf',
        payoutAccount: '52998224725',
        rail: 'pix',
        reference: 'aff-1-3f9c0a1b2c4d',
        receipt: 'E19540550202611271200abcdef12345',
      }),
      payout({
        id: 8,
        status: 'failed',
        payoutMethod: 'paypal',
        payoutAccount: 'ana@example.com',
        rail: 'paypal',
        reference: 'aff-8-0a1b2c3d4e5f',
        failureReason: 'RECEIVER_UNREGISTERED: no PayPal account, "unclaimed"',
      }),
    ]).split('\r\n');
    expect(paid).to.equal(
      '1,2,Ana,ana@example.com,pix,cpf,52998224725,12.50,BRL,pix,aff-1-3f9c0a1b2c4d,E19540550202611271200abcdef12345,,',
    );
    expect(failed).to.equal(
      '8,2,Ana,ana@example.com,paypal,,ana@example.com,12.50,BRL,paypal,aff-8-0a1b2c3d4e5f,,' +
        '"RECEIVER_UNREGISTERED: no PayPal account, ""unclaimed""",',
    );
  });
});
