import { expect } from 'chai';
import { checkPayoutDetails, isValidCnpj, isValidCpf, normalisePixPhone } from '../../shared/payoutDetails.js';

describe('payout details: CPF, CNPJ and Pix keys', () => {
  it('accepts CPFs whose two check digits are right, with or without punctuation', () => {
    for (const cpf of ['529.982.247-25', '52998224725', '111.444.777-35', '390.533.447-05']) {
      expect(isValidCpf(cpf), cpf).to.equal(true);
    }
  });

  it('refuses a wrong check digit, a repeated digit, the wrong length and letters', () => {
    for (const cpf of [
      '529.982.247-26',
      '529.982.247-15',
      '111.111.111-11',
      '000.000.000-00',
      '5299822472',
      '529982247250',
      '52998224a25',
      '',
    ]) {
      expect(isValidCpf(cpf), cpf).to.equal(false);
    }
  });

  it('accepts numeric CNPJs and the alphanumeric ones of July 2026, by their check digits', () => {
    for (const cnpj of ['11.222.333/0001-81', '11222333000181', '12.ABC.345/01DE-35', '12abc34501de35']) {
      expect(isValidCnpj(cnpj), cnpj).to.equal(true);
    }
    for (const cnpj of [
      '11.222.333/0001-82',
      '11.222.333/0001-18',
      '00.000.000/0000-00',
      '12.ABC.345/01DE-36',
      '1122233300018',
      '12.ABC.345/01DE-3A',
      '',
    ]) {
      expect(isValidCnpj(cnpj), cnpj).to.equal(false);
    }
  });

  it('normalises Brazilian phone keys to +55 with the area code', () => {
    expect(normalisePixPhone('+55 11 91234-5678')).to.equal('+5511912345678');
    expect(normalisePixPhone('(11) 91234-5678')).to.equal('+5511912345678');
    expect(normalisePixPhone('11 3123-4567')).to.equal('+551131234567');
    expect(normalisePixPhone('5521987654321')).to.equal('+5521987654321');
    for (const bad of [
      '+1 415 555 0100',
      '91234-5678',
      '(01) 91234-5678',
      '11 81234-5678',
      '+55 11 91234-567',
      'phone',
    ]) {
      expect(normalisePixPhone(bad), bad).to.equal(undefined);
    }
  });

  it('checks each kind of Pix key and PayPal, normalising the account and naming the identity', () => {
    expect(checkPayoutDetails({ method: 'pix', pixKeyType: 'cpf', account: ' 529.982.247-25 ' })).to.deep.equal({
      ok: true,
      details: { method: 'pix', pixKeyType: 'cpf', account: '52998224725' },
      identity: 'cpf:52998224725',
    });
    expect(checkPayoutDetails({ method: 'pix', pixKeyType: 'cnpj', account: '12.abc.345/01de-35' })).to.deep.include({
      identity: 'cnpj:12ABC34501DE35',
    });
    expect(checkPayoutDetails({ method: 'pix', pixKeyType: 'email', account: 'Ana@Example.com' })).to.deep.include({
      identity: 'email:ana@example.com',
    });
    expect(
      checkPayoutDetails({ method: 'pix', pixKeyType: 'random', account: '123E4567-E89B-12D3-A456-426614174000' }),
    ).to.deep.include({ identity: 'random:123e4567-e89b-12d3-a456-426614174000' });
    expect(checkPayoutDetails({ method: 'paypal', account: 'Ana@Example.com' })).to.deep.equal({
      ok: true,
      details: { method: 'paypal', pixKeyType: null, account: 'ana@example.com' },
      identity: 'email:ana@example.com',
    });
    const refusals = [
      [{ method: 'pix', pixKeyType: 'cpf', account: '529.982.247-26' }, 'cpf'],
      [{ method: 'pix', pixKeyType: 'cnpj', account: '11.222.333/0001-82' }, 'cnpj'],
      [{ method: 'pix', pixKeyType: 'email', account: `${'a'.repeat(70)}@example.com` }, 'email'],
      [{ method: 'pix', pixKeyType: 'phone', account: '12345' }, 'phone'],
      [{ method: 'pix', pixKeyType: 'random', account: 'not-a-uuid' }, 'random'],
      [{ method: 'paypal', account: 'nope' }, 'paypal'],
    ] as const;
    for (const [input, problem] of refusals) {
      expect(checkPayoutDetails(input), JSON.stringify(input)).to.deep.equal({ ok: false, problem });
    }
  });
});
