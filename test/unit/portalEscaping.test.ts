import { expect } from 'chai';
import { mailContent } from '../../server/services/mail/content.js';
import { renderView } from '../../server/views/engine.js';
import { textsFor } from '../../server/views/texts/index.js';

/** What an affiliate could type into any field: markup, a script, both quotes, an ampersand. */
const HOSTILE = `<script>alert("x")</script><img src=x onerror='y'>&amp;`;
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&#39;y&#39;&gt;&amp;amp;';

const t = textsFor('en');
const common = {
  t,
  campaign: { name: 'Acme', publicId: 'acme' },
  base: '/portal/acme',
  user: { name: HOSTILE, referralId: HOSTILE },
  csrf: 'token',
  notice: null,
  errors: {},
  hasErrors: false,
};
const echoed = { name: HOSTILE, email: HOSTILE, phone: HOSTILE, pixKey: HOSTILE, paypalEmail: HOSTILE };

/** Every page, filled with the hostile text in each field an affiliate controls (and what it sent back). */
const PAGES: Record<string, Record<string, unknown>> = {
  login: { ...common, user: null, title: 'Log in', signupOpen: true, failure: null, values: { email: HOSTILE } },
  signup: {
    ...common,
    user: null,
    title: 'Sign up',
    closed: null,
    ref: HOSTILE,
    values: echoed,
    errors: {
      name: t.errors.required,
      email: t.errors.email,
      phone: t.errors.phoneLong,
      password: t.errors.passwordShort,
    },
    hasErrors: true,
  },
  dashboard: {
    ...common,
    title: 'Dashboard',
    nav: 'dashboard',
    link: `https://shop.example/?ref=${HOSTILE}`,
    coupons: [HOSTILE],
    hasPayoutDetails: false,
    figureRows: [{ label: 'Visits', recent: '1', total: '2' }],
    conversions: [
      {
        date: '1 Nov',
        orderId: HOSTILE,
        value: 'R$1.00',
        commission: 'R$0.10',
        status: 'pending',
        statusText: 'pending',
      },
    ],
    pages: 2,
    pageNumber: 1,
    payouts: [{ id: 1, date: '1 Nov', amount: 'R$1.00', status: 'paid', statusText: 'paid', paidAt: '2 Nov' }],
    // The terms card: a product rule's name is whatever the merchant (or a billing provider) named it.
    terms: {
      rate: '10%',
      source: 'programme',
      products: [{ product: HOSTILE, rate: '20%' }],
      cookie: '30 days',
      minimum: 'R$50.00',
      hold: '14 days',
    },
  },
  payout: {
    ...common,
    title: 'Payout 1',
    payout: {
      id: 1,
      status: 'paid',
      statusText: 'paid',
      commission: 'R$1',
      clawback: 'R$0',
      amount: 'R$1',
      date: 'x',
      paidAt: 'y',
    },
    conversions: [{ date: 'x', orderId: HOSTILE, commission: 'R$1', statusText: 'paid' }],
  },
  settings: {
    ...common,
    title: 'Settings',
    nav: 'settings',
    pixKeyTypes: ['cpf', 'cnpj', 'email', 'phone', 'random'],
    values: { ...echoed, method: 'pix', pixKeyType: 'cpf', notifyPayouts: true },
    errors: { name: t.errors.nameLong, pixKey: t.errors.payout.cpf, paypalEmail: t.errors.payout.paypal },
    hasErrors: true,
  },
  resetRequest: {
    ...common,
    user: null,
    title: 'Reset',
    available: true,
    values: { email: HOSTILE },
    errors: { email: t.errors.email },
  },
  resetNew: {
    ...common,
    user: null,
    title: 'New password',
    token: HOSTILE,
    errors: { password: t.errors.passwordShort },
  },
  message: { ...common, title: HOSTILE, heading: HOSTILE, lines: [HOSTILE], link: { href: '/x', text: HOSTILE } },
  error: { title: HOSTILE, text: HOSTILE, lang: 'en', css: '/portal/acme/assets/portal.css' },
};

describe('the portal’s templates escape every field an affiliate controls', () => {
  for (const [view, data] of Object.entries(PAGES)) {
    it(`${view}: the text is shown, never markup`, () => {
      const html = renderView(view, data);
      expect(html).not.to.include('<script>alert');
      expect(html).not.to.include('<img src=x');
      expect(html).not.to.include(`'y'`);
      expect(html).to.include(ESCAPED);
    });
  }

  it('the mails: HTML escaped, the text part as typed', () => {
    for (const kind of ['application_received', 'application_approved', 'password_reset', 'payout_paid']) {
      const mail = mailContent(
        {
          kind,
          locale: 'en',
          data: { name: HOSTILE, email: HOSTILE, campaignName: 'Acme', status: 'pending', amountCents: 100 },
        },
        'https://affiliates.example/portal/acme/',
      );
      expect(mail.html, kind).not.to.include('<script>alert');
      expect(mail.html, kind).to.include('&lt;script&gt;');
      expect(mail.text, kind).to.include(HOSTILE);
    }
  });

  it('the payout-paid mail names the provider’s receipt when the payout went through a rail, and none otherwise', () => {
    const paid = (data: Record<string, unknown>, locale = 'en') =>
      mailContent(
        { kind: 'payout_paid', locale, data: { campaignName: 'Acme', amountCents: 11235, currency: 'BRL', ...data } },
        'https://affiliates.example/portal/acme/',
      );
    const receipt = 'E19540550202611271200abcdef12345';
    expect(paid({ receipt }).text).to.include(`Receipt: ${receipt}`);
    expect(paid({ receipt }).html).to.include(receipt);
    expect(paid({ receipt }, 'pt-BR').text).to.include(`Comprovante: ${receipt}`);
    expect(paid({}).text).not.to.include('Receipt');
  });
});
