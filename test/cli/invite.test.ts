import { expect } from 'chai';
import { clientEnv, parseJson, runCli } from '../helpers/cli.js';
import { createMerchant, type Merchant, servicesFor, startTestDaemon, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { PortalBrowser, textOf } from '../helpers/portal.js';
import { tempDir } from '../helpers/replay.js';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.js';

const LINK = /https?:\/\/\S+\/portal\/[\w-]+\/reset\?token=[A-Za-z0-9_-]{43}/;

/** Opens the invitation's link in a browser, chooses the password, and logs in with it. */
async function acceptInvitation(link: string, email: string, password: string): Promise<PortalBrowser> {
  const url = new URL(link);
  const base = url.pathname.replace(/\/reset$/, '');
  const browser = new PortalBrowser(url.origin, base);
  const form = await browser.get(`/reset${url.search}`);
  expect(form.status, textOf(form.html)).to.equal(200);
  const done = await browser.post('/reset', { token: url.searchParams.get('token') ?? '', password });
  expect(done.status, textOf(done.html)).to.equal(303);
  await browser.get('/');
  const login = await browser.post('/login', { email, password });
  expect(login.status, textOf(login.html)).to.equal(303);
  expect(login.location).to.equal(`${base}/dashboard`);
  return browser;
}

/**
 * issue 36 §6: affiliates the merchant creates choose their own password through an invitation
 * (docs/portal.md#inviting-affiliates): mailed when the daemon sends mail, printed when not.
 * Against daemons with a low rate limit, as a merchant's CLI meets them.
 */
describe(`affiliates invite, the CLI against a real daemon (${ENGINE})`, function () {
  this.timeout(60_000);
  const t = useTestDaemon({ RATE_LIMIT_DEFAULT_PER_MIN: '20' });
  let files: ReturnType<typeof tempDir>;
  let merchant: Merchant;
  const envOf = (url: string, key = merchant.key) =>
    clientEnv(files.file('config.json'), { baseUrl: url, apiKey: key });

  beforeEach(async () => {
    files = tempDir();
    merchant = t.merchant;
    await servicesFor(t.db).campaigns.update(merchant.campaignId, { portal: true });
  });
  afterEach(() => files.remove());

  it('without SMTP, create --invite prints the link; it sets the password once, and the affiliate logs in', async () => {
    const created = await runCli(
      ['affiliates', 'create', '--email', 'leo@example.com', '--name', 'Leo Lima', '--invite'],
      { env: envOf(t.url) },
    );
    expect(created.code, created.stderr).to.equal(0);
    const link = LINK.exec(created.stdout)?.[0] ?? '';
    expect(link, created.stdout).to.match(new RegExp(`^${t.url}/portal/${merchant.publicId}/reset\\?token=`));
    expect(created.stderr).to.include(
      'This daemon sends no mail (no SMTP_URL): give the link above to leo@example.com yourself.',
    );
    await acceptInvitation(link, 'leo@example.com', 'chosen-by-leo');
    // The link works once.
    const again = await new PortalBrowser(new URL(link).origin, `/portal/${merchant.publicId}`).get(
      `/reset${new URL(link).search}`,
    );
    expect(again.status).to.equal(410);

    const { id } = await addAffiliate(t.db, merchant.campaignId);
    const json = await runCli(['affiliates', 'invite', String(id), '--json'], { env: envOf(t.url) });
    expect(json.code, json.stderr).to.equal(0);
    const answer = parseJson(json);
    expect(answer).to.include({ affiliateId: id, mailed: false });
    expect(answer.link).to.match(LINK);
    const days = (Date.parse(answer.expiresAt) - Date.now()) / 86_400_000;
    expect(days).to.be.within(6.99, 7.01);
  });

  it('with SMTP, invite mails the link (only the mail holds it) and the mailed link sets the password', async () => {
    let smtp: TestSmtp | undefined;
    let daemon: Awaited<ReturnType<typeof startTestDaemon>> | undefined;
    try {
      smtp = await startTestSmtp();
      daemon = await startTestDaemon(t.database.url, {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'partners@acme.example',
        MAIL_POLL_MS: '50',
        RATE_LIMIT_DEFAULT_PER_MIN: '20',
      });
      const { id } = await addAffiliate(t.db, merchant.campaignId);
      const email = String((await t.db('affiliates').where({ id }).first())?.email);
      const invited = await runCli(['affiliates', 'invite', String(id)], { env: envOf(daemon.url) });
      expect(invited.code, invited.stderr).to.equal(0);
      expect(invited.stdout).to.equal('');
      expect(invited.stderr).to.include(`Invitation mailed to ${email}`);
      const [mail] = await smtp.waitFor(1);
      expect(mail?.to).to.deep.equal([email]);
      expect(mail?.subject).to.include('Your affiliate account at');
      expect(mail?.text).to.include(`you log in with ${email}`);
      const link = LINK.exec(mail?.text ?? '')?.[0] ?? '';
      expect(link, mail?.text).to.not.equal('');
      expect(await t.db('mail_outbox').where('data', 'like', '%token%').count({ n: '*' }).first()).to.deep.include({
        n: 0,
      });
      await acceptInvitation(link, email, 'chosen-by-them');
    } finally {
      await daemon?.close();
      await smtp?.close();
    }
  });

  it('refuses with the fix: the portal off (before create --invite creates anything), an inactive affiliate', async () => {
    const off = await createMerchant(t.db);
    const refused = await runCli(['affiliates', 'create', '--email', 'nia@example.com', '--invite'], {
      env: envOf(t.url, off.key),
    });
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.include(
      `The campaign's affiliate portal is off, and an invitation's link points there: turn it on first (affiliated campaigns update ${off.publicId} --portal on)`,
    );
    expect(await t.db('affiliates').where('campaign_id', off.campaignId).count({ n: '*' }).first()).to.deep.include({
      n: 0,
    });
    const { id } = await addAffiliate(t.db, merchant.campaignId, { status: 'inactive' });
    const inactive = await runCli(['affiliates', 'invite', String(id)], { env: envOf(t.url) });
    expect(inactive.code).to.equal(1);
    expect(inactive.stderr).to.include(
      `error 409: Affiliate ${id} is inactive and cannot log in: make it active first (PATCH its status), then invite it`,
    );
  });

  it('POST /v1/affiliates/{id}/invite is in the audit log (no e-mail, no link); its link, 7 days on, says to ask again', async () => {
    const { id } = await addAffiliate(t.db, merchant.campaignId);
    const email = (await t.db('affiliates').where({ id }).first())?.email;
    expect(email).to.include('@');
    const answer = await call(t.url, 'POST', `/v1/affiliates/${id}/invite`, { key: merchant.key });
    expect(answer.status, answer.text).to.equal(200);
    const link = String(answer.body.link);
    const rows = await t.db('audit_log').where({ action: 'affiliate.invite' });
    expect(rows.map((r) => [r.actor_type, r.target_id, Number(r.campaign_id)])).to.deep.equal([
      ['key', String(id), merchant.campaignId],
    ]);
    const stored = JSON.stringify(rows);
    expect(stored).not.to.include(email);
    expect(stored).not.to.include(new URL(link).searchParams.get('token'));
    // A refused invitation changes nothing and is not recorded.
    const { id: gone } = await addAffiliate(t.db, merchant.campaignId, { status: 'inactive' });
    expect((await call(t.url, 'POST', `/v1/affiliates/${gone}/invite`, { key: merchant.key })).status).to.equal(409);
    expect(await t.db('audit_log').where({ action: 'affiliate.invite' })).to.have.length(1);

    // As if 7 days and a minute had gone by since the link was made.
    const shift = (7 * 24 * 60 + 1) * 60_000;
    const token = await t.db('portal_reset_tokens').where({ affiliate_id: id }).first();
    if (!token) throw new Error('the invitation made no link');
    await t
      .db('portal_reset_tokens')
      .where({ affiliate_id: id })
      .update({
        created_at: new Date(new Date(token.created_at).getTime() - shift),
        expires_at: new Date(new Date(token.expires_at).getTime() - shift),
      });
    const url = new URL(link);
    const page = await new PortalBrowser(url.origin, url.pathname.replace(/\/reset$/, '')).get(`/reset${url.search}`);
    expect(page.status).to.equal(410);
    expect(textOf(page.html)).to.include(
      'This invitation is more than 7 days old. Ask the programme to invite you again',
    );
    expect(textOf(page.html)).not.to.include('more than an hour old');
  });
});
