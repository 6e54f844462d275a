import { expect } from 'chai';
import { clientEnv, parseJson, runCliInProcess } from '../helpers/cli.js';
import { type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { tempDir } from '../helpers/replay.js';

/**
 * The merchant's side of the portal from the CLI: the campaign's portal settings (operator),
 * approving applicants (client) and the mail log (operator). The daemon's SMTP server is a
 * closed port, so mails stay pending with their error: what `mail list` is for.
 */
describe(`the portal's commands, in-process CLI against a real daemon (${ENGINE})`, () => {
  const t = useTestDaemon({
    SMTP_URL: 'smtp://127.0.0.1:9',
    MAIL_FROM: 'partners@acme.example',
    MAIL_POLL_MS: '50',
    MAIL_RETRY_SCHEDULE: '1h',
  });
  let merchant: Merchant;
  let files: ReturnType<typeof tempDir>;
  let client: Record<string, string | undefined>;
  let operator: Record<string, string | undefined>;

  beforeEach(() => {
    merchant = t.merchant;
    files = tempDir();
    client = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: merchant.key });
    operator = {
      DATABASE_URL: t.database.url,
      SMTP_URL: 'smtp://127.0.0.1:9',
      MAIL_FROM: 'partners@acme.example',
    };
  });
  afterEach(() => files.remove());

  it('campaigns update turns the portal on and sets sign-up, approval, contact e-mail and site', async () => {
    const updated = await runCliInProcess(
      [
        'campaigns',
        'update',
        merchant.publicId,
        '--portal',
        'on',
        '--signup',
        'closed',
        '--approve-affiliates',
        'auto',
        '--contact-email',
        'partners@acme.example',
        '--site-url',
        'https://shop.example',
        '--json',
      ],
      { env: operator },
    );
    expect(updated.code, updated.stderr).to.equal(0);
    const portal = {
      enabled: true,
      signup: 'closed',
      approveAffiliates: 'auto',
      contactEmail: 'partners@acme.example',
      siteUrl: 'https://shop.example',
    };
    expect(parseJson(updated).portal).to.deep.equal(portal);
    expect((await call(t.url, 'GET', '/v1/campaign', { key: merchant.key })).body.portal).to.deep.equal(portal);

    const human = await runCliInProcess(['campaigns', 'get', merchant.publicId], { env: operator });
    expect(human.stdout)
      .to.match(/portal:\s+on, at \/portal\//)
      .and.include(`/portal/${merchant.publicId}/`);

    const cleared = await runCliInProcess(['campaigns', 'update', merchant.publicId, '--contact-email', '', '--json'], {
      env: operator,
    });
    expect(parseJson(cleared).portal.contactEmail).to.equal(null);
    const bad = await runCliInProcess(['campaigns', 'update', merchant.publicId, '--contact-email', 'nope'], {
      env: operator,
    });
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('contact e-mail must be a valid e-mail address');
    const usage = await runCliInProcess(['campaigns', 'update', merchant.publicId, '--portal', 'maybe'], {
      env: operator,
    });
    expect(usage.code).to.equal(2);
  });

  it('affiliates approve by id and --all-pending; affiliates get shows the payout details; mail list shows the mails', async () => {
    await runCliInProcess(['campaigns', 'update', merchant.publicId, '--portal', 'on'], { env: operator });
    const ids: number[] = [];
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      const made = await call(t.url, 'POST', '/v1/affiliates', {
        key: merchant.key,
        body: { email, password: 'correct-horse', status: 'pending' },
      });
      ids.push(made.body.id);
    }
    const one = await runCliInProcess(['affiliates', 'approve', String(ids[0])], { env: client });
    expect(one.code, one.stderr).to.equal(0);
    expect(one.stdout).to.equal(`approved ${ids[0]}\n`);
    const again = await runCliInProcess(['affiliates', 'approve', String(ids[0]), '999999'], { env: client });
    expect(again.code).to.equal(1);
    expect(again.stdout).to.include(`${ids[0]}: 409: Affiliate ${ids[0]} is active, not pending`);
    expect(again.stdout).to.include('999999: 404: Affiliate not found');

    const rest = await runCliInProcess(['affiliates', 'approve', '--all-pending', '--json'], { env: client });
    expect(rest.code, rest.stderr).to.equal(0);
    expect(
      parseJson(rest)
        .approved.map((a: { id: number }) => a.id)
        .sort(),
    ).to.deep.equal(ids.slice(1).sort());
    const none = await runCliInProcess(['affiliates', 'approve', '--all-pending'], { env: client });
    expect(none.stdout).to.equal('No pending affiliate to approve.\n');
    const neither = await runCliInProcess(['affiliates', 'approve'], { env: client });
    expect(neither.code).to.equal(2);

    const shown = await runCliInProcess(['affiliates', 'get', String(ids[0])], { env: client });
    expect(shown.stdout).to.match(/payout method:\s+\(none given\)/);

    // The closed SMTP port: each mail tried once, kept pending with the connection's error.
    let mails: { kind: string; to: string; status: string; attempts: number; lastError: string | null }[] = [];
    for (let i = 0; i < 100 && !(mails.length === 3 && mails.every((m) => m.attempts === 1)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      mails = parseJson(await runCliInProcess(['mail', 'list', '--json'], { env: operator }));
    }
    expect(mails.map((m) => m.to).sort()).to.deep.equal(['a@example.com', 'b@example.com', 'c@example.com']);
    for (const mail of mails) {
      expect(mail).to.include({ kind: 'application_approved', status: 'pending', attempts: 1 });
      expect(mail.lastError).to.match(/ECONNREFUSED|ECONNECTION/);
    }
    const table = await runCliInProcess(['mail', 'list', '--status', 'pending', '--campaign', merchant.publicId], {
      env: operator,
    });
    expect(table.code, table.stderr).to.equal(0);
    expect(table.stdout).to.include('application_approved');
    expect(table.stdout).not.to.include('/portal/');
  });
});
