import { expect } from 'chai';
import fc from 'fast-check';
import { minorUnitExponent } from '../../shared/currency.js';
import {
  amountOf,
  formatMoney,
  MoneyInputError,
  moneyOfAmount,
  moneyOfHundredths,
  parseMoney,
  plainAmount,
} from '../../shared/money.js';

const money = (minor: number, currency: string) => ({ minor, currency });

describe('money with its currency: one formatter, one parser', () => {
  it('uses ISO 4217 exponents, which Intl agrees with for BRL, USD, JPY and KWD', () => {
    for (const [code, exponent] of [
      ['BRL', 2],
      ['USD', 2],
      ['JPY', 0],
      ['KWD', 3],
    ] as const) {
      expect(minorUnitExponent(code)).to.equal(exponent);
      const intl = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions();
      expect(intl.maximumFractionDigits, code).to.equal(exponent);
    }
    // Where CLDR's display digits drop a real minor unit, ISO's exponent is the one kept.
    expect(
      new Intl.NumberFormat('en', { style: 'currency', currency: 'IQD' }).resolvedOptions().maximumFractionDigits,
    ).to.equal(0);
    expect(minorUnitExponent('IQD')).to.equal(3);
    expect(formatMoney(money(1500, 'IQD'), 'en-US')).to.equal('IQD 1.500');
  });

  it('writes money as the reader’s locale does, with a plain space for Intl’s no-break one', () => {
    expect(formatMoney(money(123456, 'BRL'), 'pt-BR')).to.equal('R$ 1.234,56');
    expect(formatMoney(money(123456, 'BRL'), 'en-US')).to.equal('R$1,234.56');
    expect(formatMoney(money(123456, 'USD'), 'en-US')).to.equal('$1,234.56');
    expect(formatMoney(money(1235, 'JPY'), 'en-US')).to.equal('¥1,235');
    expect(formatMoney(money(1235, 'KWD'), 'en-US')).to.equal('KWD 1.235');
    expect(formatMoney(money(123456, 'USD'), 'pt-BR')).to.equal('US$ 1.234,56');
    expect(formatMoney(money(123456, 'USD'), 'en-US', 'code')).to.equal('USD 1,234.56');
    expect(formatMoney(money(1235, 'JPY'), 'en-US', 'none')).to.equal('1,235');
    expect(formatMoney(money(5, 'BRL'), 'pt-BR')).to.equal('R$ 0,05');
    expect(formatMoney(money(1235, 'KWD'), 'en-US')).to.not.match(/[\u00a0\u202f]/);
  });

  it('writes clawbacks with their minus sign, and amounts past 2^53 / 100 without a float', () => {
    expect(formatMoney(money(-1050, 'BRL'), 'pt-BR')).to.equal('-R$ 10,50');
    expect(formatMoney(money(-2000, 'USD'), 'en-US', 'code')).to.equal('-USD 20.00');
    expect(formatMoney(money(-7, 'JPY'), 'en-US')).to.equal('-¥7');
    expect(formatMoney(money(-1, 'KWD'), 'en-US')).to.equal('-KWD 0.001');
    expect(formatMoney(money(Number.MAX_SAFE_INTEGER, 'BRL'), 'pt-BR')).to.equal('R$ 90.071.992.547.409,91');
    expect(formatMoney(money(Number.MAX_SAFE_INTEGER, 'KWD'), 'en-US')).to.equal('KWD 9,007,199,254,740.991');
    expect(plainAmount(money(Number.MAX_SAFE_INTEGER, 'JPY'))).to.equal('9007199254740991');
  });

  it('turns the stored hundredths into each currency’s minor unit', () => {
    expect(moneyOfHundredths(123456, 'BRL')).to.deep.equal(money(123456, 'BRL'));
    expect(moneyOfHundredths(123456, 'kwd')).to.deep.equal(money(1234560, 'KWD'));
    // A yen has no subunit: half a yen is shown (and paid) as a whole one, away from zero.
    expect(moneyOfHundredths(123450, 'JPY')).to.deep.equal(money(1235, 'JPY'));
    expect(moneyOfHundredths(123449, 'JPY')).to.deep.equal(money(1234, 'JPY'));
    expect(moneyOfHundredths(-150, 'JPY')).to.deep.equal(money(-2, 'JPY'));
    expect(moneyOfHundredths(-40, 'JPY')).to.deep.equal(money(0, 'JPY'));
    expect(formatMoney(moneyOfHundredths(-40, 'JPY'), 'en-US')).to.equal('¥0');
    expect(moneyOfAmount(12.5, 'USD')).to.deep.equal(money(1250, 'USD'));
    expect(plainAmount(moneyOfAmount(0.3, 'KWD'))).to.equal('0.300');
  });

  it('reads an operator’s amount exactly in the currency’s own decimals', () => {
    expect(parseMoney('12.34', 'USD')).to.deep.equal(money(1234, 'USD'));
    expect(parseMoney(' 500 ', 'jpy')).to.deep.equal(money(500, 'JPY'));
    expect(parseMoney('1.235', 'KWD')).to.deep.equal(money(1235, 'KWD'));
    expect(parseMoney('5', 'KWD')).to.deep.equal(money(5000, 'KWD'));
    expect(parseMoney('.5', 'BRL')).to.deep.equal(money(50, 'BRL'));
    expect(parseMoney('-51.52', 'BRL')).to.deep.equal(money(-5152, 'BRL'));
    expect(parseMoney('90071992547409.91', 'BRL')).to.deep.equal(money(Number.MAX_SAFE_INTEGER, 'BRL'));
    expect(amountOf(parseMoney('1.235', 'KWD'))).to.equal(1.235);
    expect(amountOf(parseMoney('500', 'JPY'))).to.equal(500);
  });

  it('refuses, saying what to write, more decimals than the currency has and what is not an amount', () => {
    const refusal = (text: string, currency: string) => {
      try {
        parseMoney(text, currency);
      } catch (err) {
        expect(err).to.be.instanceOf(MoneyInputError);
        return (err as Error).message;
      }
      return expect.fail(`${text} ${currency} was read`);
    };
    expect(refusal('5.5', 'JPY')).to.equal('5.5 has more decimals than JPY has: JPY amounts have no decimals');
    expect(refusal('12.345', 'USD')).to.equal(
      '12.345 has more decimals than USD has: USD amounts have at most 2 decimals',
    );
    expect(refusal('1.2345', 'KWD')).to.equal(
      '1.2345 has more decimals than KWD has: KWD amounts have at most 3 decimals',
    );
    expect(refusal('1,234.56', 'BRL')).to.equal(
      '"1,234.56" is not an amount: write digits, with a dot before the decimals and no thousands separators (e.g. 12.34)',
    );
    expect(refusal('12,5', 'JPY')).to.include('(e.g. 1234)');
    for (const text of ['', '.', 'abc', '1e3', 'R$ 5', '5 USD', 'Infinity', '--1', '0x10']) {
      expect(refusal(text, 'USD')).to.include('is not an amount');
    }
    expect(refusal('90071992547409.92', 'BRL')).to.equal('90071992547409.92 is too large an amount');
  });

  it('reads back exactly what it writes, for every exponent', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
        fc.constantFrom('BRL', 'USD', 'JPY', 'KWD', 'CLF'),
        (minor, currency) => {
          const written = plainAmount(money(minor, currency));
          expect(parseMoney(written, currency)).to.deep.equal(money(minor, currency));
          // The reader's text holds the same digits, separators aside.
          const shown = formatMoney(money(minor, currency), 'en-US', 'none').replace(/,/g, '');
          expect(shown).to.equal(written);
        },
      ),
    );
  });
});
