import { expect } from 'chai';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { createMerchant, type Merchant, servicesFor, testConfig } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { PortalBrowser, textOf } from '../helpers/portal.js';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.js';

/**
 * The mail outbox and its worker against a real SMTP server on loopback: retries, refusals,
 * two daemons on one database sending each mail once, nothing secret in the logs, and a daemon
 * without SMTP_URL recording nothing.
 */
describe(`mail: the outbox and its worker (${ENGINE})`, function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let smtp: TestSmtp;
  const daemons: Daemon[] = [];
  const logs: string[] = [];
  let merchant: Merchant;
  const env = () => ({
    SMTP_URL: smtp.url,
    MAIL_FROM: 'partners@acme.example',
    MAIL_POLL_MS: '30',
    MAIL_RETRY_SCHEDULE: '100ms,100ms',
    LOG_LEVEL: 'debug',
  });
  const start = async (extra: Record<string, string> = {}) => {
    const daemon = await startDaemon(testConfig(database.url, { ...env(), ...extra }), {
      logger: createLogger('debug', (line) => logs.push(line)),
    });
    daemons.push(daemon);
    return daemon;
  };
  const outbox = () => database.db('mail_outbox').orderBy('id').select('*');
  const settled = async (count: number) => {
    for (let i = 0; i < 200; i++) {
      const rows = await outbox();
      if (rows.length >= count && rows.every((row) => row.status !== 'pending')) return rows;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('mails still pending');
  };
  /** Pending affiliates made through the API, approved at once: one approval mail each. */
  const approveMany = async (daemon: Daemon, n: number) => {
    for (let i = 0; i < n; i++) {
      const reply = await call(daemon.url, 'POST', '/v1/affiliates', {
        key: merchant.key,
        body: { email: `a${i}@example.com`, password: 'correct-horse', status: 'pending' },
      });
      expect(reply.status).to.equal(201);
    }
    const approved = await call(daemon.url, 'POST', '/v1/affiliates/approve-pending', { key: merchant.key });
    expect(approved.body.approved).to.have.length(n);
  };

  before(async () => {
    smtp = await startTestSmtp();
    database = await createTestDatabase();
  });
  after(async () => {
    for (const daemon of daemons) await daemon.close();
    await smtp?.close();
    await database?.drop();
  });
  beforeEach(async () => {
    for (const daemon of daemons.splice(0)) await daemon.close();
    smtp.mails.length = 0;
    smtp.refuseNext(0, 0);
    logs.length = 0;
    await cleanTables(database.db);
    merchant = await createMerchant(database.db);
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { portal: true });
  });

  it('sends each mail once when two daemons share the database', async () => {
    const first = await start();
    await start();
    await approveMany(first, 24);
    const rows = await settled(24);
    await smtp.waitFor(24);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const addresses = smtp.mails.map((mail) => mail.to[0]).sort();
    expect(addresses).to.have.length(24);
    expect(new Set(addresses).size).to.equal(24);
    expect(rows.every((row) => row.status === 'sent' && Number(row.attempt_count) === 1)).to.equal(true);
  });

  it('tries a mail again after a temporary refusal, and fails it at once on a permanent one or after its last try', async () => {
    const daemon = await start();
    smtp.refuseNext(1, 451);
    await approveMany(daemon, 1);
    let [row] = await settled(1);
    expect(row).to.include({ status: 'sent', last_error: null });
    expect(Number(row?.attempt_count)).to.equal(2);
    expect(smtp.mails).to.have.length(1);

    await cleanTables(database.db);
    merchant = await createMerchant(database.db);
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { portal: true });
    smtp.refuseNext(1, 550);
    await approveMany(daemon, 1);
    [row] = await settled(1);
    expect(row).to.include({ status: 'failed' });
    expect(Number(row?.attempt_count)).to.equal(1);
    expect(row?.last_error).to.match(/^550: /);

    await cleanTables(database.db);
    merchant = await createMerchant(database.db);
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { portal: true });
    smtp.refuseNext(3, 421);
    await approveMany(daemon, 1);
    [row] = await settled(1);
    expect(row).to.include({ status: 'failed' });
    expect(Number(row?.attempt_count)).to.equal(3);

    const list = await servicesFor(database.db).mail.list({ limit: 10 });
    expect(list[0]).to.include({ kind: 'application_approved', to: 'a0@example.com', status: 'failed', attempts: 3 });
    expect(JSON.stringify(list)).not.to.match(/portal\//);
  });

  it('keeps reset tokens out of the database’s outbox and out of the logs', async () => {
    const daemon = await start();
    await approveMany(daemon, 1);
    await settled(1);
    const b = new PortalBrowser(daemon.url, `/portal/${merchant.publicId}`);
    await b.get('/reset');
    await b.post('/reset', { email: 'a0@example.com' });
    await settled(2);
    const [, mail] = await smtp.waitFor(2);
    const token = /token=([A-Za-z0-9_-]{43})/.exec(mail?.text ?? '')?.[1];
    expect(token).to.be.a('string');
    const stored = JSON.stringify(await outbox());
    expect(stored).not.to.include(token);
    expect(stored).not.to.include('reset?token');
    const tokenRows = await database.db('portal_reset_tokens').select('token_hash');
    expect(tokenRows.map((row) => row.token_hash)).not.to.include(token);
    expect(logs.join('')).not.to.include(token);
    expect(logs.join('')).not.to.include('a0@example.com');
    expect(logs.some((line) => line.includes('"mail attempt"'))).to.equal(true);
  });

  it('records no mail without SMTP_URL, and the portal says password reset is not available', async () => {
    const daemon = await start({ SMTP_URL: '', MAIL_FROM: '' });
    await approveMany(daemon, 2);
    expect(await outbox()).to.deep.equal([]);
    const b = new PortalBrowser(daemon.url, `/portal/${merchant.publicId}`);
    const page = await b.get('/reset');
    expect(textOf(page.html)).to.include('Password reset is not available');
    expect(page.html).not.to.include('name="email"');
    await b.get('/');
    const posted = await b.post('/reset', { email: 'a0@example.com' });
    expect(posted.status).to.equal(503);
    expect(await outbox()).to.deep.equal([]);
  });

  it('sends no mail for a campaign whose portal is off', async () => {
    await servicesFor(database.db).campaigns.update(merchant.campaignId, { portal: false });
    const daemon = await start();
    await approveMany(daemon, 2);
    expect(await outbox()).to.deep.equal([]);
  });
});
