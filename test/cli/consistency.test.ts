import { PassThrough } from 'node:stream';
import bcrypt from 'bcrypt';
import { expect } from 'chai';
import { report } from '../../cli/commands/report/actions.js';
import type { Io } from '../../cli/io.js';
import { createApiClient } from '../../shared/client/index.js';
import { clientEnv, parseJson, runCli, runCliInProcess } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { lifecycleApi } from '../helpers/lifecycleApi.js';
import { tempDir } from '../helpers/replay.js';
import { openTerminal } from '../helpers/terminal.js';

/** One voice across commands: prefixes, exit codes, numbers, wording, shapes, hints. */
describe(`the CLI says things one way (${ENGINE})`, () => {
  const t = useTestDaemon({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  const life = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (...args: string[]) => runCliInProcess(args, { env });

  beforeEach(() => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
  });
  afterEach(() => files.remove());

  it('every failure line starts with a lower-case "error:", and option messages read as sentences', async () => {
    const noDatabase = await runCli(['campaigns', 'list'], { cwd: files.dir, env: { DATABASE_URL: undefined } });
    expect(noDatabase.code).to.equal(1);
    expect(noDatabase.stderr).to.match(/^error: No database at /);
    const badLimit = await cli('affiliates', 'list', '--limit', '500');
    expect(badLimit.code).to.equal(2);
    expect(badLimit.stderr).to.include("argument '500' is invalid. It must be a whole number from 1 to 100.");
  });

  it('init --id with a bad public id is a usage error (exit 2), before anything is created', async () => {
    const operator = { ...env, DATABASE_URL: t.database.url };
    const bad = await runCliInProcess(['init', '--name', 'Shop', '--plan', 'free', '--id', 'a!', '--base-url', t.url], {
      env: operator,
    });
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.include('It must be 3 to 64 letters, digits, "-" or "_"');
    const { campaigns } = parseJson(await runCliInProcess(['campaigns', 'list', '--json'], { env: operator }));
    expect(campaigns.map((c: { name: string }) => c.name)).to.not.include('Shop');
  });

  it('list footers write numbers with thousands separators', async () => {
    const { code } = await addAffiliate(t.db, t.merchant.campaignId);
    await life.send(
      code,
      Array.from({ length: 1001 }, (_, n) => [`o-${n}`, 1] as const),
    );
    const listed = await cli('conversions', 'list', '--limit', '1');
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stderr).to.include('page 1 of 1,001 (1,001 conversions; --all for every page)');
  });

  it('mark-paid and mark-failed say what happened in words, not "Payout 4 is failed."', async () => {
    const { id: affiliateId, code } = await addAffiliate(t.db, t.merchant.campaignId);
    const ids = await life.arrive(code, [
      ['a', 100],
      ['b', 100],
    ]);
    await life.approve(...ids);
    const first = (await life.payout(affiliateId)).body;
    const failed = await cli('payouts', 'mark-failed', String(first.id));
    expect(failed.code, failed.stderr).to.equal(0);
    expect(failed.stderr).to.include(`Marked payout ${first.id} failed: its conversions wait for the next payout.`);
    const second = (await life.payout(affiliateId)).body;
    const paid = await cli('payouts', 'mark-paid', String(second.id));
    expect(paid.stderr).to.include(`Marked payout ${second.id} paid: its 2 conversions are paid.`);
  });

  it('the report fits an 80-column terminal, names cut and bars left out when there is no room', async () => {
    const { merchant } = t;
    const day = { properties: { timestamp: '2026-06-10T10:00:00Z' } };
    const events = [];
    for (const [n, name] of ['Maria Aparecida dos Santos Oliveira', 'João'].entries()) {
      const affiliate = await addAffiliate(t.db, merchant.campaignId, { code: `LONGCODE${n}` });
      await t.db('affiliates').where({ id: affiliate.id }).update({ name });
      events.push(pageView(merchant.publicId, affiliate.code, day), pageView(merchant.publicId, affiliate.code, day));
      events.push(
        conversion(merchant.publicId, affiliate.code, `o-${n}`, 123456.78, {
          properties: { order_id: `o-${n}`, order_value: 123456.78, timestamp: '2026-06-10T11:00:00Z' },
        }),
      );
    }
    expect((await call(t.url, 'POST', '/v1/events', { key: merchant.key, body: { events } })).status).to.equal(200);
    for (const columns of [80, 120]) {
      const stdout = Object.assign(new PassThrough(), { isTTY: true, columns });
      let text = '';
      stdout.on('data', (chunk) => {
        text += chunk;
      });
      const io: Io = { stdout, stderr: new PassThrough(), env: {}, interactive: false };
      await report(
        io,
        createApiClient({ baseUrl: t.url, apiKey: merchant.key }),
        {},
        { from: '2026-06-10', to: '2026-06-10' },
      );
      const lines = text.trimEnd().split('\n');
      expect(Math.max(...lines.map((line) => line.length)), `${columns} columns:\n${text}`).to.be.at.most(columns);
      // The whole name when the table fits, cut with … when it does not.
      if (columns === 80) expect(text).to.match(/Maria Apar[^\n]*…/);
      else expect(text).to.include('Maria Aparecida dos Santos Oliveira');
      expect(text).to.include('123456.78');
      // A bar needs ten cells: at 80 columns there is no room for one, at 120 there is.
      expect(lines[0]?.includes('SHARE'), `${columns} columns`).to.equal(columns === 120);
    }
  });

  it('noun-level help has examples too (affiliated affiliates --help)', async () => {
    for (const noun of [
      'affiliates',
      'campaigns',
      'config',
      'conversions',
      'db',
      'events',
      'keys',
      'payouts',
      'plans',
      'refunds',
      'webhooks',
    ]) {
      const help = await runCliInProcess([noun, '--help']);
      expect(help.code, noun).to.equal(0);
      expect(help.stdout, noun).to.match(new RegExp(`Examples:\\n  \\$ affiliated ${noun} `));
    }
  });

  it('operator lists print --json shaped like the other lists: the rows under their noun, and a total', async () => {
    const operator = { DATABASE_URL: t.database.url };
    for (const noun of ['campaigns', 'keys', 'plans']) {
      const listed = parseJson(await runCliInProcess([noun, 'list', '--json'], { env: operator }));
      expect(listed, noun).to.have.keys([noun, 'total']);
      expect(listed[noun], noun).to.have.length(listed.total);
    }
    const affiliates = parseJson(await cli('affiliates', 'list', '--all', '--json'));
    expect(affiliates).to.have.keys(['affiliates', 'total']);
  });

  it('hints name the CLI command that fixes it, not the HTTP call', async () => {
    const added = await cli('webhooks', 'add', 'http://127.0.0.1:9/hooks', '--events', 'conversion.created');
    expect(added.code, added.stderr).to.equal(0);
    const id = Number(/Webhook (\d+)/.exec(added.stderr)?.[1]);
    expect((await cli('webhooks', 'update', String(id), '--status', 'disabled')).code).to.equal(0);
    const test = await cli('webhooks', 'test', String(id));
    expect(test.code).to.equal(1);
    expect(test.stderr).to.include(`Enable it first: affiliated webhooks update ${id} --status enabled`);

    const { id: affiliateId, code } = await addAffiliate(t.db, t.merchant.campaignId);
    const [conversionId] = await life.arrive(code, [['paid-1', 100]]);
    await life.approve(conversionId ?? 0);
    const payout = (await life.payout(affiliateId)).body;
    await life.settle(payout.id, 'paid');
    for (const args of [
      ['conversions', 'reject', String(conversionId)],
      ['conversions', 'reject', String(conversionId), String((conversionId ?? 0) + 1000)],
    ]) {
      const rejected = await cli(...args);
      expect(rejected.stderr, args.join(' ')).to.include('affiliated refunds create ORDER_ID');
    }
  });

  it('a password typed at the prompt is asked twice; two that differ are asked again', async () => {
    const term = openTerminal(['affiliates', 'create', '--email', 'twice@example.com'], {
      env,
      cwd: files.dir,
      dir: files.dir,
    });
    try {
      // Each answer goes in once its question is on the screen (the n-th time it is asked).
      const answer = async (question: RegExp, times: number, text: string) => {
        await term.waitFor(new RegExp(`(${question.source}[\\s\\S]*){${times}}`));
        term.type(text);
        term.press('Enter');
      };
      const first = /Password(?! \(again)/;
      const again = /Password \(again, to confirm\)/;
      await answer(first, 1, 'secret-one');
      await answer(again, 1, 'secret-two');
      await term.waitFor('The two passwords differ; type it again.');
      await answer(first, 2, 'secret-one');
      await answer(again, 2, 'secret-one');
      expect(await term.exitCode()).to.equal(0);
      expect(term.screen()).to.include('Created affiliate');
    } finally {
      term.close();
    }
    const row = await t.db('affiliates').where({ email: 'twice@example.com' }).first<{ password_hash: string }>();
    expect(await bcrypt.compare('secret-one', row?.password_hash ?? '')).to.equal(true);
  });
});
