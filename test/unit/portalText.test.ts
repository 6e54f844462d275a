import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../server/config.js';
import { formatMoney } from '../../server/views/format.js';
import { negotiateLocale } from '../../server/views/locale.js';

describe('the portal’s language, money and mail configuration', () => {
  it('picks pt-BR or English from Accept-Language by quality, English otherwise', () => {
    expect(negotiateLocale('pt-BR,pt;q=0.9,en;q=0.8')).to.equal('pt-BR');
    expect(negotiateLocale('pt-PT')).to.equal('pt-BR');
    expect(negotiateLocale('en-US,en;q=0.9')).to.equal('en');
    expect(negotiateLocale('en;q=0.4, pt;q=0.8')).to.equal('pt-BR');
    expect(negotiateLocale('fr-FR, de;q=0.9')).to.equal('en');
    expect(negotiateLocale('pt;q=0, en')).to.equal('en');
    expect(negotiateLocale(undefined)).to.equal('en');
    expect(negotiateLocale(';;;,q=,')).to.equal('en');
  });

  it('writes money from centavos as R$ 1.234,56 in pt-BR and R$1,234.56 in English, exactly', () => {
    expect(formatMoney(123456, 'pt-BR')).to.equal('R$ 1.234,56');
    expect(formatMoney(123456, 'en')).to.equal('R$1,234.56');
    expect(formatMoney(5, 'pt-BR')).to.equal('R$ 0,05');
    expect(formatMoney(-1050, 'pt-BR')).to.equal('-R$ 10,50');
    expect(formatMoney(900719925474099, 'pt-BR')).to.equal('R$ 9.007.199.254.740,99');
  });

  it('wants MAIL_FROM with SMTP_URL, smtp:// or smtps://, and never echoes the URL', () => {
    expect(() => loadConfig({ SMTP_URL: 'smtp://u:secret@mail.example:587' })).to.throw(
      ConfigError,
      /^MAIL_FROM must be set/,
    );
    const bad = () => loadConfig({ SMTP_URL: 'http://u:secret@mail.example', MAIL_FROM: 'a@b.c' });
    expect(bad).to.throw(ConfigError, /^SMTP_URL must start with smtp:\/\/ or smtps:\/\//);
    expect(bad).not.to.throw(/secret/);
    expect(() => loadConfig({ MAIL_FROM: 'not an address' })).to.throw(ConfigError, /^MAIL_FROM must be an address/);
    expect(() => loadConfig({ PUBLIC_URL: 'https://x.example/portal' })).to.throw(
      ConfigError,
      /^PUBLIC_URL must be an origin/,
    );
    const config = loadConfig({
      SMTP_URL: 'smtps://mail.example:465',
      MAIL_FROM: 'Acme <partners@acme.example>',
      PUBLIC_URL: 'https://affiliates.example/',
    });
    expect(config.mail).to.deep.include({ smtpUrl: 'smtps://mail.example:465', from: 'Acme <partners@acme.example>' });
    expect(config.publicUrl).to.equal('https://affiliates.example');
    expect(loadConfig({}).mail.retryScheduleMs).to.deep.equal([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000]);
  });
});
