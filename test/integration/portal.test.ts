import { expect } from 'chai';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { createMerchant, type Merchant, servicesFor, testConfig } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { conversion, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { PortalBrowser, textOf } from '../helpers/portal.js';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.js';

const MINUTE = 60_000;

/**
 * The affiliate portal over real HTTP, as a browser without JavaScript uses it, with a real SMTP
 * server on loopback receiving the mails. The daemon's clock can be moved forward (`later`) for
 * the rules that count time: throttling windows, reset links' hour.
 */
describe(`the affiliate portal over HTTP (${ENGINE})`, function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let smtp: TestSmtp;
  let daemon: Daemon;
  let merchant: Merchant;
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const later = (ms: number) => {
    offset += ms;
  };
  const browser = (language = 'en', publicId = merchant.publicId) =>
    new PortalBrowser(daemon.url, `/portal/${publicId}`, language);
  const api = (method: string, path: string, body?: unknown) =>
    call(daemon.url, method, path, { key: merchant.key, body });
  const affiliateRow = async (email: string) => {
    const row = await database.db('affiliates').where('email_key', email.toLowerCase()).first();
    if (!row) throw new Error(`no affiliate ${email}`);
    return row;
  };

  before(async () => {
    smtp = await startTestSmtp();
    database = await createTestDatabase();
    const config = testConfig(database.url, {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Acme partners <partners@acme.example>',
      MAIL_POLL_MS: '50',
      MAIL_RETRY_SCHEDULE: '200ms,200ms',
      PORTAL_POSTS_PER_IP: '40',
      TRUST_PROXY: 'true',
    });
    daemon = await startDaemon(config, { logger: createLogger('silent'), now });
  });
  after(async () => {
    await daemon?.close();
    await smtp?.close();
    await database?.drop();
  });
  beforeEach(async () => {
    offset = 0;
    smtp.mails.length = 0;
    await cleanTables(database.db);
    merchant = await createMerchant(database.db);
    await servicesFor(database.db).campaigns.update(merchant.campaignId, {
      portal: true,
      contactEmail: 'partners@acme.example',
      siteUrl: 'https://shop.example/',
    });
  });

  /** Signs up through the form; answers the browser, its page read. */
  async function signUp(email: string, fields: Record<string, string> = {}, language = 'en') {
    const b = browser(language);
    await b.get('/signup');
    const reply = await b.post('/signup', { name: 'Ana Lima', email, password: 'correct-horse', ...fields });
    return { b, reply };
  }

  /** Waits until every recorded mail has been sent, then forgets them (a sign-up mails the merchant). */
  async function mailsSettled() {
    for (let i = 0; i < 100; i++) {
      const [row] = await database.db('mail_outbox').where('status', 'pending').count({ n: '*' });
      if (Number(row?.n) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    smtp.mails.length = 0;
  }

  async function logIn(email: string, password = 'correct-horse', b = browser()) {
    await b.get('/');
    const reply = await b.post('/login', { email, password });
    return { b, reply };
  }

  it('is a 404 page while the campaign’s portal is off, and for a campaign that does not exist', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { portal: false });
    for (const path of ['/', '/signup', '/dashboard']) {
      const reply = await browser().get(path);
      expect(reply.status, path).to.equal(404);
      expect(reply.headers['content-type']).to.match(/^text\/html/);
      expect(textOf(reply.html)).to.include('Page not found');
    }
    expect((await browser('en', 'no-such-campaign').get('/')).status).to.equal(404);
  });

  it('signs up a pending affiliate under the plan’s limit, tells the merchant, and answers a taken e-mail the same way', async () => {
    const { reply } = await signUp('ana@example.com', { phone: '+55 11 91234-5678' });
    expect(reply.status).to.equal(200);
    expect(textOf(reply.html)).to.include('Your application awaits the programme’s approval');
    const row = await affiliateRow('ana@example.com');
    expect(row).to.include({ status: 'pending', name: 'Ana Lima', phone: '+55 11 91234-5678', locale: 'en' });
    const [mail] = await smtp.waitFor(1);
    expect(mail?.to).to.deep.equal(['partners@acme.example']);
    expect(mail?.subject).to.match(/^New affiliate application at Campaign \d+$/);
    expect(mail?.text).to.include(`Ana Lima (ana@example.com) applied to your affiliate programme`);
    expect(mail?.text).to.include(`affiliated affiliates approve ${row.id}`);
    const events = await database.db('webhook_messages').select('event_type');
    expect(events).to.deep.equal([]);

    // A second sign-up with the same address: the same page, and nothing else happens.
    const again = await signUp('ANA@example.com', { name: 'Someone else' });
    expect(again.reply.status).to.equal(200);
    expect(textOf(again.reply.html)).to.equal(textOf(reply.html));
    expect(await database.db('affiliates').count({ n: '*' }).first()).to.deep.include({ n: 1 });
    expect((await affiliateRow('ana@example.com')).name).to.equal('Ana Lima');

    // With auto approval the applicant is active at once.
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    const auto = await signUp('bia@example.com');
    expect(textOf(auto.reply.html)).to.include('Your account is ready');
    expect(await affiliateRow('bia@example.com')).to.include({ status: 'active' });
  });

  it('makes the affiliate of a ?ref= code the applicant’s parent, who earns the second tier of its sales', async () => {
    const referrer = await api('POST', '/v1/affiliates', {
      email: 'rafa@example.com',
      password: 'rafa-password',
      referralId: 'RAFA10',
    });
    const other = await createMerchant(database.db);
    const stranger = await call(daemon.url, 'POST', '/v1/affiliates', {
      key: other.key,
      body: { email: 'sol@example.com', password: 'sol-password', referralId: 'SOL10' },
    });
    expect([referrer.status, stranger.status]).to.deep.equal([201, 201]);
    await servicesFor(database.db).campaigns.update(merchant.campaignId, {
      approveAffiliates: 'auto',
      secondTierPercent: 10,
    });

    // The form names the code (any case) and carries it to the post.
    const b = browser();
    const form = await b.get('/signup?ref=rafa10');
    expect(textOf(form.html)).to.include('Referred by rafa10.');
    const reply = await b.post('/signup', {
      name: 'Ana Lima',
      email: 'ana@example.com',
      password: 'correct-horse',
      ref: 'rafa10',
    });
    expect(reply.status).to.equal(200);
    const ana = await affiliateRow('ana@example.com');
    const seen = await api('GET', `/v1/affiliates/${ana.id}`);
    expect(seen.body).to.include({ parentAffiliateId: referrer.body.id, status: 'active' });

    // Ana's sale earns Rafa 10 % of her commission, as for a parent the merchant set.
    await api('POST', '/v1/events', { events: [conversion(merchant.publicId, ana.referral_id, 'A-1', 200)] });
    const tiers = await api('GET', `/v1/conversions?kind=second_tier&affiliateId=${referrer.body.id}`);
    expect(tiers.body.conversions).to.have.length(1);
    expect(tiers.body.conversions[0]).to.include({ affiliateId: referrer.body.id, commission: 2, orderId: 'A-1' });
    // Rafa's dashboard lists it, marked, and earns from it without counting it as a sale of his.
    const { b: rafa } = await logIn('rafa@example.com', 'rafa-password');
    const dashboard = textOf((await rafa.get('/dashboard')).html);
    expect(dashboard).to.include('Sales 0 0');
    expect(dashboard).to.include('Commission pending R$2.00 R$2.00');
    expect(dashboard).to.include('A-1 (second tier: a sale of someone you referred) R$200.00 R$2.00 pending');

    // A code of nobody, or of another campaign's affiliate, is not shown and sets no parent.
    for (const [email, code] of [
      ['bia@example.com', 'NOBODY1'],
      ['caio@example.com', 'SOL10'],
    ] as const) {
      const page = await browser().get(`/signup?ref=${code}`);
      expect(textOf(page.html)).not.to.include('Referred by');
      await signUp(email, { ref: code });
      const row = await affiliateRow(email);
      expect(row.parent_affiliate_id, code).to.equal(null);
    }

    // A referrer deleted between finding its code and the insert: the applicant still applies.
    const gone = await api('POST', '/v1/affiliates', { email: 'gone@example.com', password: 'gone-password' });
    expect((await api('DELETE', `/v1/affiliates/${gone.body.id}`)).status).to.equal(200);
    const outcome = await servicesFor(database.db).affiliates.signUp(merchant.campaignId, {
      email: 'dora@example.com',
      password: 'correct-horse',
      name: 'Dora',
      phone: null,
      status: 'pending',
      locale: 'en',
      parentAffiliateId: gone.body.id,
    });
    expect(outcome.outcome).to.equal('created');
    expect((await affiliateRow('dora@example.com')).parent_affiliate_id).to.equal(null);
  });

  it('refuses a sign-up form with bad fields, naming each, and a closed or full programme', async () => {
    const { reply } = await signUp('not-an-address', { name: '', password: '123' });
    expect(reply.status).to.equal(400);
    const text = textOf(reply.html);
    for (const line of ['Fill this in.', 'Give a valid e-mail address.', 'Use at least 6 characters.']) {
      expect(text).to.include(line);
    }
    expect(reply.html).to.include('value="not-an-address"');
    expect(await database.db('affiliates').count({ n: '*' }).first()).to.deep.include({ n: 0 });

    await servicesFor(database.db).campaigns.update(merchant.campaignId, { signup: 'closed' });
    expect(textOf((await browser().get('/signup')).html)).to.include('not taking applications');
    expect((await signUp('c@example.com')).reply.status).to.equal(403);

    const small = await createMerchant(database.db, { limits: { maxAffiliates: 0 } });
    await servicesFor(database.db).campaigns.update(small.campaignId, { portal: true });
    const b = browser('en', small.publicId);
    await b.get('/signup');
    const full = await b.post('/signup', { name: 'X', email: 'x@example.com', password: 'correct-horse' });
    expect(full.status).to.equal(403);
    expect(textOf(full.html)).to.include('not taking new affiliates');
  });

  it('logs in: an unknown e-mail and a wrong password get the same page; a pending affiliate sees it awaits approval', async () => {
    await signUp('ana@example.com');
    const unknown = await logIn('nobody@example.com');
    const wrong = await logIn('ana@example.com', 'wrong-password');
    expect(unknown.reply.status).to.equal(401);
    expect(wrong.reply.status).to.equal(401);
    expect(textOf(wrong.reply.html)).to.equal(
      textOf(unknown.reply.html).replace('nobody@example.com', 'ana@example.com'),
    );
    expect(wrong.b.session).to.equal(undefined);

    const { b, reply } = await logIn('ana@example.com');
    expect(reply.status).to.equal(303);
    expect(reply.location).to.equal(`/portal/${merchant.publicId}/dashboard`);
    const cookie = [reply.headers['set-cookie']].flat().find((line) => line?.startsWith('affiliated_session='));
    expect(cookie)
      .to.match(/HttpOnly/i)
      .and.match(/SameSite=Lax/i)
      .and.match(new RegExp(`path=/portal/${merchant.publicId}/`, 'i'));
    expect(b.session).to.match(/^[A-Za-z0-9_-]{43}$/);
    const stored = await database.db('portal_sessions').select('token_hash');
    expect(stored).to.have.length(1);
    expect(stored[0]?.token_hash)
      .to.match(/^[0-9a-f]{64}$/)
      .and.not.equal(b.session);

    const dashboard = await b.get('/dashboard');
    expect(textOf(dashboard.html)).to.include('Application awaiting approval');
    expect(dashboard.html).not.to.include('referral-link');
  });

  it('throttles log-in: five failures for one e-mail refuse the sixth attempt for 15 minutes whatever the password', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    await signUp('ana@example.com');
    for (let i = 0; i < 5; i++) expect((await logIn('ana@example.com', `wrong-${i}`)).reply.status).to.equal(401);
    const refused = await logIn('ana@example.com');
    expect(refused.reply.status).to.equal(429);
    expect(textOf(refused.reply.html)).to.include('Too many attempts');
    expect(Number(refused.reply.headers['retry-after'])).to.be.within(14 * 60, 15 * 60);
    expect(refused.b.session).to.equal(undefined);
    // The same for an e-mail nobody has: throttling tells nobody which addresses exist.
    for (let i = 0; i < 5; i++) await logIn('ghost@example.com', `wrong-${i}`);
    expect((await logIn('ghost@example.com')).reply.status).to.equal(429);

    later(14 * MINUTE);
    expect((await logIn('ana@example.com')).reply.status).to.equal(429);
    later(1 * MINUTE + 1000);
    const { reply } = await logIn('ana@example.com');
    expect(reply.status).to.equal(303);
  });

  it('counts failures in a window of 15 minutes: spread-out failures do not lock, and a success is no failure', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    await signUp('ana@example.com');
    for (let i = 0; i < 4; i++) await logIn('ana@example.com', 'wrong');
    later(16 * MINUTE);
    for (let i = 0; i < 4; i++) await logIn('ana@example.com', 'wrong');
    expect((await logIn('ana@example.com')).reply.status).to.equal(303);
    expect((await logIn('ana@example.com', 'wrong')).reply.status).to.equal(401);
    expect((await logIn('ana@example.com', 'wrong')).reply.status).to.equal(429);
  });

  it('limits the form posts of one IP, across e-mails', async () => {
    const ip = { 'x-forwarded-for': '203.0.113.7' };
    const b = browser();
    await b.get('/');
    for (let i = 0; i < 40; i++) {
      expect((await b.post('/login', { email: `u${i}@example.com`, password: 'x' }, ip)).status).to.equal(401);
    }
    expect((await b.post('/login', { email: 'u41@example.com', password: 'x' }, ip)).status).to.equal(429);
    const elsewhere = await b.post(
      '/login',
      { email: 'u42@example.com', password: 'x' },
      { 'x-forwarded-for': '198.51.100.2' },
    );
    expect(elsewhere.status).to.equal(401);
  });

  it('approves through the API: affiliate.approved, the mail in the affiliate’s language, the dashboard with the link', async () => {
    await call(daemon.url, 'POST', '/v1/webhooks', {
      key: merchant.key,
      body: {
        url: 'https://hooks.example/x',
        events: ['affiliate.applied', 'affiliate.approved', 'affiliate.created'],
      },
    });
    await signUp('ana@example.com', {}, 'pt-BR,pt;q=0.9,en;q=0.5');
    const row = await affiliateRow('ana@example.com');
    expect(row.locale).to.equal('pt-BR');
    expect((await api('POST', `/v1/affiliates/${row.id}/approve`)).status).to.equal(200);
    const again = await api('POST', `/v1/affiliates/${row.id}/approve`);
    expect(again.status).to.equal(409);
    expect(again.body.message).to.equal(
      `Affiliate ${row.id} is active, not pending: only a pending affiliate can be approved (PATCH its status to change it)`,
    );
    expect((await api('POST', '/v1/affiliates/999999/approve')).status).to.equal(404);
    const types = (await database.db('webhook_messages').orderBy('id').select('event_type')).map((r) => r.event_type);
    expect(types).to.deep.equal(['affiliate.created', 'affiliate.applied', 'affiliate.approved']);

    const mails = await smtp.waitFor(2);
    const approval = mails.find((m) => m.to[0] === 'ana@example.com');
    expect(approval?.subject).to.match(/^Sua candidatura a .+ foi aprovada$/);
    expect(approval?.text).to.include(`${daemon.url}/portal/${merchant.publicId}/`);

    const { b } = await logIn('ana@example.com');
    const page = browser('pt-BR');
    page.cookies.set('affiliated_session', b.session ?? '');
    const dashboard = await page.get('/dashboard');
    expect(dashboard.status).to.equal(200);
    expect(dashboard.html).to.include(`value="https://shop.example/?ref=${row.referral_id}"`);
    expect(textOf(dashboard.html)).to.include('Seu link de indicação');
    expect(dashboard.html).not.to.include('coupons-title');

    // A coupon the merchant gives her shows on her dashboard.
    expect((await api('POST', `/v1/affiliates/${row.id}/coupons`, { code: 'ANA10' })).status).to.equal(201);
    const withCoupon = textOf((await page.get('/dashboard')).html);
    expect(withCoupon).to.include('ANA10');
  });

  it('approves every pending applicant with approve-pending, and by PATCH of the status, each once', async () => {
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) await signUp(email);
    const c = await affiliateRow('c@example.com');
    expect((await api('PATCH', `/v1/affiliates/${c.id}`, { status: 'active' })).status).to.equal(200);
    const all = await api('POST', '/v1/affiliates/approve-pending');
    expect(all.status).to.equal(200);
    expect(all.body.remaining).to.equal(0);
    expect(all.body.approved.map((a: { email: string }) => a.email).sort()).to.deep.equal([
      'a@example.com',
      'b@example.com',
    ]);
    await smtp.waitFor(6);
    const approvals = smtp.mails
      .filter((m) => /approved/.test(m.subject))
      .map((m) => m.to[0])
      .sort();
    expect(approvals).to.deep.equal(['a@example.com', 'b@example.com', 'c@example.com']);
  });

  it('refuses a post with a wrong CSRF token or from another origin, and changes nothing', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    await signUp('ana@example.com');
    const { b } = await logIn('ana@example.com');
    await b.get('/settings');
    const token = b.lastToken;
    const forged = await b.post('/settings/profile', { csrf: 'x'.repeat(43), name: 'Changed' });
    expect(forged.status).to.equal(403);
    expect(textOf(forged.html)).to.include('This form has expired');
    const foreign = await b.post('/settings/profile', { name: 'Changed' }, { origin: 'https://evil.example' });
    expect(foreign.status).to.equal(403);
    const noOrigin = await b.send(
      'POST',
      '/settings/profile',
      new URLSearchParams({ csrf: token, name: 'Changed' }).toString(),
      {
        origin: '',
      },
    );
    expect(noOrigin.status).to.equal(403);
    // Another browser's token does not work with this browser's cookies.
    const other = browser();
    await other.get('/');
    const stolen = await b.post('/settings/profile', { csrf: other.lastToken, name: 'Changed' });
    expect(stolen.status).to.equal(403);
    expect((await affiliateRow('ana@example.com')).name).to.equal('Ana Lima');

    const saved = await b.post('/settings/profile', { csrf: token, name: 'Ana Souza', phone: '' });
    expect(saved.status).to.equal(303);
    expect(await affiliateRow('ana@example.com')).to.include({ name: 'Ana Souza', phone: null });
  });

  it('shows an affiliate only its own data: another’s payout is a 404, a session does not cross campaigns', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    await signUp('ana@example.com');
    await signUp('bia@example.com');
    const bia = await affiliateRow('bia@example.com');
    await api('POST', '/v1/events', { events: [conversion(merchant.publicId, bia.referral_id, 'B-1', 100)] });
    const [biaConversion] = await database.db('conversions').where('affiliate_id', bia.id).pluck('id');
    await api('PATCH', `/v1/conversions/${biaConversion}`, { status: 'approved' });
    const payout = await api('POST', '/v1/payouts', { affiliateId: bia.id });
    expect(payout.status).to.equal(201);

    const { b: ana } = await logIn('ana@example.com');
    const theirs = await ana.get(`/payouts/${payout.body.id}`);
    expect(theirs.status).to.equal(404);
    expect(theirs.html).not.to.include('B-1');
    const { b: biaBrowser } = await logIn('bia@example.com');
    const own = await biaBrowser.get(`/payouts/${payout.body.id}`);
    expect(own.status).to.equal(200);
    expect(textOf(own.html)).to.include('B-1');

    const other = await createMerchant(database.db);
    await servicesFor(database.db).campaigns.update(other.campaignId, { portal: true });
    const crossing = browser('en', other.publicId);
    crossing.cookies.set('affiliated_session', ana.session ?? '');
    const reply = await crossing.get('/dashboard');
    expect(reply.status).to.equal(303);
    expect(reply.location).to.equal(`/portal/${other.publicId}/`);
  });

  it('shows a payout’s status (processing too), rail and receipt, in the affiliate’s language', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    await signUp('bia@example.com');
    const bia = await affiliateRow('bia@example.com');
    await api('POST', '/v1/events', { events: [conversion(merchant.publicId, bia.referral_id, 'B-1', 100)] });
    const [biaConversion] = await database.db('conversions').where('affiliate_id', bia.id).pluck('id');
    await api('PATCH', `/v1/conversions/${biaConversion}`, { status: 'approved' });
    const payout = await api('POST', '/v1/payouts', { affiliateId: bia.id });
    expect(payout.status).to.equal(201);
    const { b } = await logIn('bia@example.com');
    const manual = textOf((await b.get(`/payouts/${payout.body.id}`)).html);
    expect(manual).not.to.include('Paid through');
    expect(manual).not.to.include('Receipt');

    // What the Pix rail writes once Asaas confirms (test/integration/payoutSends.test.ts sends it for real).
    const receipt = 'E19540550202611271200abcdef12345';
    await database
      .db('payouts')
      .where('id', payout.body.id)
      .update({ status: 'processing', rail: 'pix', reference: 'aff-x' });
    expect(textOf((await b.get(`/payouts/${payout.body.id}`)).html)).to.match(/Status\s*processing/);
    await database.db('payouts').where('id', payout.body.id).update({ status: 'paid', paid_at: new Date(), receipt });
    const paid = textOf((await b.get(`/payouts/${payout.body.id}`)).html);
    expect(paid).to.match(/Paid through\s*Pix/);
    expect(paid).to.match(new RegExp(`Receipt\\s*${receipt}`));
    const { b: pt } = await logIn('bia@example.com', 'correct-horse', browser('pt-BR'));
    const ptText = textOf((await pt.get(`/payouts/${payout.body.id}`)).html);
    expect(ptText).to.match(/Pago por\s*Pix/);
    expect(ptText).to.match(new RegExp(`Comprovante\\s*${receipt}`));
  });

  it('shows the figures of the last 30 days and of all time, the sales with their commission, and names as text', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    await signUp('ana@example.com', { name: '<script>alert("x")</script> O\'Hara & Co' });
    const ana = await affiliateRow('ana@example.com');
    const old = new Date(Date.now() - 45 * 24 * 3600 * 1000).toISOString();
    await api('POST', '/v1/events', {
      events: [
        pageView(merchant.publicId, ana.referral_id),
        pageView(merchant.publicId, ana.referral_id, { properties: { timestamp: old } }),
        conversion(merchant.publicId, ana.referral_id, '<b>ORDER-1</b>', 1234.5),
        conversion(merchant.publicId, ana.referral_id, 'ORDER-2', 10),
      ],
    });
    const { b } = await logIn('ana@example.com');
    const page = browser('pt-BR');
    page.cookies.set('affiliated_session', b.session ?? '');
    const reply = await page.get('/dashboard');
    const text = textOf(reply.html);
    expect(reply.html).to.include('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; O&#39;Hara &amp; Co');
    expect(reply.html).not.to.include('<script>alert');
    expect(reply.html).to.include('&lt;b&gt;ORDER-1&lt;/b&gt;');
    expect(text).to.include('Visitas 1 2');
    expect(text).to.include('Vendas 2 2');
    expect(text).to.include('Comissão pendente R$ 124,45 R$ 124,45');
    expect(text).to.include('R$ 1.234,50');
  });

  it('validates payout details, saves them normalised, and flags two affiliates paid to one account', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    await signUp('ana@example.com');
    await signUp('bia@example.com');
    const { b: ana } = await logIn('ana@example.com');
    await ana.get('/settings');
    const bad = await ana.post('/settings/payout', { method: 'pix', pixKeyType: 'cpf', pixKey: '529.982.247-26' });
    expect(bad.status).to.equal(400);
    expect(textOf(bad.html)).to.include('This is not a valid CPF');
    expect(bad.html).to.include('value="529.982.247-26"');
    expect(
      (await ana.post('/settings/payout', { method: 'pix', pixKeyType: 'cpf', pixKey: '529.982.247-25' })).status,
    ).to.equal(303);
    const anaRow = await affiliateRow('ana@example.com');
    const got = await api('GET', `/v1/affiliates/${anaRow.id}`);
    expect(got.body).to.include({ payoutMethod: 'pix', pixKeyType: 'cpf', payoutAccount: '52998224725' });
    expect(got.body.flags).to.deep.equal([]);

    const { b: bia } = await logIn('bia@example.com');
    await bia.get('/settings');
    await bia.post('/settings/payout', { method: 'pix', pixKeyType: 'cpf', pixKey: '52998224725' });
    const list = await api('GET', '/v1/affiliates');
    for (const affiliate of list.body.affiliates) expect(affiliate.flags).to.deep.equal(['duplicate_payout_identity']);
    // The same e-mail as a Pix key and as a PayPal account is one identity too.
    await ana.get('/settings');
    await ana.post('/settings/payout', { method: 'paypal', paypalEmail: 'Ana.Pay@Example.com' });
    await bia.get('/settings');
    await bia.post('/settings/payout', { method: 'pix', pixKeyType: 'email', pixKey: 'ana.pay@example.com' });
    expect((await api('GET', `/v1/affiliates/${anaRow.id}`)).body).to.include({
      payoutMethod: 'paypal',
      pixKeyType: null,
      payoutAccount: 'ana.pay@example.com',
    });
    expect((await api('GET', `/v1/affiliates/${anaRow.id}`)).body.flags).to.deep.equal(['duplicate_payout_identity']);
  });

  it('offers Stripe in the payout details: a connected account id is checked, kept as typed, and shown by the API', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    await signUp('ana@example.com');
    const { b: ana } = await logIn('ana@example.com');
    const form = await ana.get('/settings');
    expect(form.html).to.include('name="method" value="stripe"');
    expect(form.html).to.include('id="stripeAccount"');
    const bad = await ana.post('/settings/payout', { method: 'stripe', stripeAccount: 'ba_1NotAnAccount' });
    expect(bad.status).to.equal(400);
    expect(textOf(bad.html)).to.include('Give your Stripe connected account id');
    expect(bad.html).to.include('value="ba_1NotAnAccount"');
    const good = await ana.post('/settings/payout', { method: 'stripe', stripeAccount: ' acct_1A2b3C4d5E6f7G8h ' });
    expect(good.status).to.equal(303);
    const anaRow = await affiliateRow('ana@example.com');
    expect((await api('GET', `/v1/affiliates/${anaRow.id}`)).body).to.include({
      payoutMethod: 'stripe',
      pixKeyType: null,
      payoutAccount: 'acct_1A2b3C4d5E6f7G8h',
    });
    const again = await ana.get('/settings');
    expect(again.html).to.match(/value="stripe" checked/);
    expect(again.html).to.include('value="acct_1A2b3C4d5E6f7G8h"');
  });

  it('resets a password through the mailed link once; a second use and an hour-old link get a page that says so', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    await signUp('ana@example.com');
    const { b: loggedIn } = await logIn('ana@example.com');
    await mailsSettled();

    const b = browser();
    await b.get('/reset');
    const unknown = await b.post('/reset', { email: 'nobody@example.com' });
    const sent = await b.post('/reset', { email: 'ana@example.com' });
    expect(sent.status).to.equal(200);
    expect(textOf(sent.html)).to.equal(textOf(unknown.html));
    const [mail] = await smtp.waitFor(1);
    expect(mail?.to).to.deep.equal(['ana@example.com']);
    const link = /https?:\/\/\S+\/reset\?token=[A-Za-z0-9_-]{43}/.exec(mail?.text ?? '')?.[0];
    expect(link, mail?.text).to.be.a('string');
    expect(await database.db('mail_outbox').where('data', 'like', '%token%').count({ n: '*' }).first()).to.deep.include(
      { n: 0 },
    );
    const path = new URL(link ?? '').pathname.replace(`/portal/${merchant.publicId}`, '') + new URL(link ?? '').search;

    const form = await b.get(path);
    expect(form.status).to.equal(200);
    expect(
      (await b.post('/reset', { token: new URL(link ?? '').searchParams.get('token') ?? '', password: '123' })).status,
    ).to.equal(400);
    const done = await b.post('/reset', {
      token: new URL(link ?? '').searchParams.get('token') ?? '',
      password: 'new-password-1',
    });
    expect(done.status).to.equal(303);
    expect(done.location).to.equal(`/portal/${merchant.publicId}/?notice=passwordReset`);
    // Every session of the account ended; the new password works, the old one not.
    expect((await loggedIn.get('/dashboard')).status).to.equal(303);
    expect((await logIn('ana@example.com')).reply.status).to.equal(401);
    expect((await logIn('ana@example.com', 'new-password-1')).reply.status).to.equal(303);

    const twice = await b.get(path);
    expect(twice.status).to.equal(410);
    expect(textOf(twice.html)).to.include('already been used');

    await b.post('/reset', { email: 'ana@example.com' });
    const [, second] = await smtp.waitFor(2);
    const late = /\/reset\?token=[A-Za-z0-9_-]{43}/.exec(second?.text ?? '')?.[0] ?? '';
    later(61 * MINUTE);
    const expired = await b.get(late);
    expect(expired.status).to.equal(410);
    expect(textOf(expired.html)).to.include('more than an hour old');
    expect((await b.get('/reset?token=nonsense')).status).to.equal(404);
  });

  it('ends sessions by log-out, a password change (elsewhere), inactive and deletion', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    await signUp('ana@example.com');
    const ana = await affiliateRow('ana@example.com');
    const { b: first } = await logIn('ana@example.com');
    const { b: second } = await logIn('ana@example.com');
    expect(first.session).not.to.equal(second.session);

    await second.get('/settings');
    const wrong = await second.post('/settings/password', { currentPassword: 'nope-nope', newPassword: 'another-one' });
    expect(wrong.status).to.equal(400);
    expect(textOf(wrong.html)).to.include('This is not your current password.');
    const changed = await second.post('/settings/password', {
      currentPassword: 'correct-horse',
      newPassword: 'another-one',
    });
    expect(changed.status).to.equal(303);
    expect((await first.get('/dashboard')).status).to.equal(303);
    expect((await second.get('/dashboard')).status).to.equal(200);

    await second.get('/dashboard');
    const out = await second.post('/logout', {});
    expect(out.status).to.equal(303);
    expect((await second.get('/dashboard')).status).to.equal(303);

    const { b: third } = await logIn('ana@example.com', 'another-one');
    await api('PATCH', `/v1/affiliates/${ana.id}`, { status: 'inactive' });
    expect((await third.get('/dashboard')).status).to.equal(303);
    const refused = await logIn('ana@example.com', 'another-one');
    expect(refused.reply.status).to.equal(403);
    expect(textOf(refused.reply.html)).to.include('This account is inactive');

    await api('PATCH', `/v1/affiliates/${ana.id}`, { status: 'active' });
    const { b: fourth } = await logIn('ana@example.com', 'another-one');
    await api('DELETE', `/v1/affiliates/${ana.id}`);
    expect((await fourth.get('/dashboard')).status).to.equal(303);
    expect(await database.db('portal_sessions').count({ n: '*' }).first()).to.deep.include({ n: 0 });
  });

  it('mails a paid payout unless the affiliate turned it off', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { approveAffiliates: 'auto' });
    await signUp('ana@example.com');
    const ana = await affiliateRow('ana@example.com');
    const pay = async (order: string) => {
      await api('POST', '/v1/events', { events: [conversion(merchant.publicId, ana.referral_id, order, 100)] });
      const [id] = await database.db('conversions').where('order_id', order).pluck('id');
      await api('PATCH', `/v1/conversions/${id}`, { status: 'approved' });
      const payout = await api('POST', '/v1/payouts', { affiliateId: ana.id });
      expect((await api('PATCH', `/v1/payouts/${payout.body.id}`, { status: 'paid' })).status).to.equal(200);
      return payout.body.id as number;
    };
    await mailsSettled();
    const first = await pay('P-1');
    const [mail] = await smtp.waitFor(1);
    expect(mail?.subject).to.match(/^You were paid by /);
    expect(mail?.text).to.include('A payout of R$10.00 was paid to you.');
    expect(mail?.text).to.include(`/portal/${merchant.publicId}/payouts/${first}`);

    const { b } = await logIn('ana@example.com');
    await b.get('/settings');
    expect((await b.post('/settings/notifications', {})).status).to.equal(303);
    await pay('P-2');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.mails).to.have.length(1);
  });
});
