import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parseJson, runCli, runCliInProcess, startServe } from '../helpers/cli.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';

describe(`operator commands as a child process (${ENGINE})`, () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    t = await createTestDatabase();
    env = { DATABASE_URL: t.url };
  });
  beforeEach(async () => cleanTables(t.db));
  after(async () => t.drop());

  it('plans create and list, with --json', async () => {
    const made = await runCli(
      ['plans', 'create', '--name', 'growth', '--max-affiliates', '500', '--max-monthly-conversions', '5000', '--json'],
      { env },
    );
    expect(made.code, made.stderr).to.equal(0);
    expect(parseJson(made)).to.include({ name: 'growth', maxAffiliates: 500, maxMonthlyConversions: 5000 });
    const unlimited = parseJson(await runCli(['plans', 'create', '--name', 'open', '--json'], { env }));
    expect(unlimited).to.include({ maxAffiliates: null, maxMonthlyConversions: null });
    const list = parseJson<{ plans: Array<{ name: string }>; total: number }>(
      await runCli(['plans', 'list', '--json'], { env }),
    );
    expect(list.total).to.equal(6);
    expect(list.plans.map((p) => p.name)).to.deep.equal(['free', 'starter', 'pro', 'unlimited', 'growth', 'open']);
    const again = await runCli(['plans', 'create', '--name', 'growth'], { env });
    expect(again.code).to.equal(1);
    expect(again.stderr).to.include('A plan named "growth" already exists');
  });

  it('campaigns create prints id and publicId; list and get find it', async () => {
    const made = await runCli(
      ['campaigns', 'create', '--name', 'Spring', '--plan', 'starter', '--commission-fixed', '12.5', '--json'],
      { env },
    );
    expect(made.code, made.stderr).to.equal(0);
    const campaign = parseJson(made);
    expect(campaign).to.include({
      name: 'Spring',
      plan: 'starter',
      commissionType: 'fixed',
      commissionValue: 12.5,
    });
    expect(campaign.id).to.be.a('number');
    // A readable public id from the name; the same name again gets the next free one.
    expect(campaign.publicId).to.equal('spring');
    const again = parseJson(await runCli(['campaigns', 'create', '--name', 'Spring', '--json'], { env }));
    expect(again.publicId).to.equal('spring-2');
    const named = parseJson(
      await runCli(['campaigns', 'create', '--name', 'Named', '--public-id', 'black-friday', '--json'], {
        env,
      }),
    );
    expect(named).to.include({
      publicId: 'black-friday',
      plan: 'free',
      commissionType: 'percent',
      commissionValue: 10,
    });
    const list = parseJson<{ campaigns: Array<{ id: number }> }>(
      await runCli(['campaigns', 'list', '--json'], { env }),
    );
    expect(list.campaigns.map((c) => c.id)).to.deep.equal([campaign.id, again.id, named.id]);
    const got = parseJson(await runCli(['campaigns', 'get', 'black-friday', '--json'], { env }));
    expect(got).to.deep.include({
      id: named.id,
      limits: { maxAffiliates: 10, maxMonthlyConversions: 100 },
    });
    expect(got.usage).to.include({ affiliates: 0, conversions: 0 });
  });

  it('keys create prints the key once; list shows only prefix and last four; revoke stops it', async () => {
    const campaign = parseJson(await runCli(['campaigns', 'create', '--name', 'C', '--json'], { env }));
    const made = await runCli(['keys', 'create', '--campaign', campaign.publicId, '--name', 'backend', '--json'], {
      env,
    });
    expect(made.code, made.stderr).to.equal(0);
    const key = parseJson(made);
    expect(key).to.include({ campaignId: campaign.id, name: 'backend', status: 'active' });
    expect(key.id).to.be.a('number');
    expect(key.key).to.match(/^afk_[0-9A-Za-z]{32}$/);
    const row = await t.db('api_keys').where({ id: key.id }).first();
    expect(JSON.stringify(row)).to.not.include(key.key);

    const listed = await runCli(['keys', 'list'], { env });
    expect(listed.stdout).to.include(`${key.key.slice(0, 8)}…${key.key.slice(-4)}`);
    expect(listed.stdout).to.not.include(key.key);
    const listedJson = await runCli(['keys', 'list', '--campaign', String(campaign.id), '--json'], { env });
    expect(listedJson.stdout).to.not.include(key.key);

    const asked = await runCli(['keys', 'revoke', String(key.id)], { env });
    expect(asked.code).to.equal(2);
    expect(asked.stderr).to.include('--yes is required when not running interactively');
    const revoked = parseJson(await runCli(['keys', 'revoke', String(key.id), '--yes', '--json'], { env }));
    expect(revoked).to.include({ id: key.id, status: 'revoked' });
    expect((await t.db('api_keys').where({ id: key.id }).first())?.status).to.equal('revoked');
  });

  it('exit 2 for usage errors, 1 for failed operations, with a message and no stack', async () => {
    const missing = await runCli(['campaigns', 'create'], { env });
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include("required option '--name <name>' not specified");
    const badNumber = await runCli(['plans', 'create', '--name', 'x', '--max-affiliates', '-3'], { env });
    expect(badNumber.code).to.equal(2);
    const both = await runCli(
      ['campaigns', 'create', '--name', 'x', '--commission-fixed', '1', '--commission-percent', '2'],
      { env },
    );
    expect(both.code).to.equal(2);
    const unknown = await runCli(['keys', 'create', '--campaign', 'nope', '--json'], { env });
    expect(unknown.code).to.equal(1);
    expect(parseJson(unknown)).to.deep.equal({
      statusCode: 404,
      message: 'Campaign nope not found: see `affiliated campaigns list`',
      error: 'Not Found',
    });
    for (const r of [missing, badNumber, both, unknown]) expect(r.stderr).to.not.match(/\n\s+at /);
  });

  it('bad configuration stops with one clear line and exit 1', async () => {
    const res = await runCli(['plans', 'list'], { env: { ...env, BCRYPT_ROUNDS: 'many' } });
    expect(res.code).to.equal(1);
    expect(res.stderr.trim()).to.equal('error: BCRYPT_ROUNDS must be a whole number (got "many")');
  });

  it('db status, rollback and migrate', async () => {
    const all = [
      '20261121100000_initial_schema',
      '20261122100000_payouts_lifecycle',
      '20261122110000_webhooks',
      '20261122120000_affiliate_daily_stats',
      '20261122140000_byte_exact_dedupe_keys',
      '20261122140100_search_key_worst_case',
      '20261122150000_affiliate_search',
      '20261126100000_commission_rules',
      '20261126200000_webhook_fanout_at_delivery',
      '20261126300000_portal_and_mail',
      '20261126400000_billing_integrations',
      '20261127100000_counter_shards',
      '20261127110000_dedupe_keys_without_null',
      '20261128400000_dedupe_keys_for_older_daemons',
      '20261128400100_dedupe_key_defaults_dropped',
      '20261129100000_payout_rails',
      '20261129200000_clicks',
      '20261129200100_click_attribution',
      '20261129200200_analytics_rollups',
      '20261129300000_dashboard_users',
      '20261129300100_dashboard_totp_sealed',
      '20261129400000_audit_log',
      '20261129500000_dashboard_passkeys',
      '20261129500100_payout_runs',
      '20261130135000_analytics_day_rows',
      '20261130600000_payout_send_batches',
      '20261201010000_dashboard_passkey_names',
      '20261201030000_campaign_daily_stats',
      '20261201030100_campaign_daily_stats_reconciled',
      '20261202010000_analytics_rollup_clustered',
      '20261203010000_clicks_rollup_pending',
    ];
    // The contract step waits for `db migrate --contract` (docs/operations.md, "Upgrades").
    const contractSteps = [
      '20261128400100_dedupe_key_defaults_dropped',
      '20261201030100_campaign_daily_stats_reconciled',
    ];
    const expanded = all.filter((name) => !contractSteps.includes(name));
    const status = parseJson(await runCli(['db', 'status', '--json'], { env }));
    expect(status).to.deep.equal({ applied: expanded, pending: contractSteps });
    const back = parseJson(await runCli(['db', 'rollback', '--json'], { env }));
    expect(back.rolledBack).to.deep.equal([...expanded].reverse());
    expect(parseJson(await runCli(['db', 'status', '--json'], { env }))).to.deep.equal({
      applied: [],
      pending: all,
    });
    const forward = parseJson(await runCli(['db', 'migrate', '--json'], { env }));
    expect(forward.applied).to.deep.equal(expanded);
    const contracted = parseJson(await runCli(['db', 'migrate', '--contract', '--json'], { env }));
    expect(contracted.applied).to.deep.equal(contractSteps);
  });

  it('in process, an operator command takes its database from the environment it is given', async () => {
    // The process's own DATABASE_URL points nowhere: only the one passed in reaches the database.
    const own = process.env.DATABASE_URL;
    process.env.DATABASE_URL = `sqlite:${path.join(os.tmpdir(), 'affiliated-missing', 'elsewhere.sqlite3')}`;
    try {
      const made = await runCliInProcess(['plans', 'create', '--name', 'passed-in', '--json'], { env });
      expect(made.code, made.stderr).to.equal(0);
    } finally {
      if (own === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = own;
    }
    expect(await t.db('plans').where({ name: 'passed-in' }).first()).to.include({ name: 'passed-in' });
  });
});

describe('serve on a fresh directory (the README quick start)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-serve-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('creates data/affiliated.sqlite3, answers 401 without a key, and stops cleanly on SIGTERM', async () => {
    const { url, child, done } = await startServe({ cwd: dir, env: { DATABASE_URL: undefined } });
    expect(existsSync(path.join(dir, 'data/affiliated.sqlite3'))).to.equal(true);
    const res = await call(url, 'GET', '/v1/affiliates');
    expect(res.status).to.equal(401);
    expect(res.text).to.equal('{"statusCode":401,"message":"API Key is required","error":"Unauthorized"}');
    child.kill('SIGTERM');
    const { code, stderr } = await done;
    expect(code).to.equal(0);
    expect(stderr).to.include(`Created a new SQLite database at ${path.join(dir, 'data/affiliated.sqlite3')}.`);
    expect(stderr).to.include('"msg":"stopped"');
    expect(stderr).to.not.match(/afk_|password/i);
  });

  it('SIGTERM lets a request in flight finish before the daemon exits', async () => {
    const env = { BCRYPT_ROUNDS: '13', DATABASE_URL: 'sqlite:./graceful.sqlite3' };
    const campaign = parseJson(await runCli(['campaigns', 'create', '--name', 'G', '--json'], { cwd: dir, env }));
    const { key } = parseJson(
      await runCli(['keys', 'create', '--campaign', String(campaign.id), '--json'], { cwd: dir, env }),
    );
    const { url, child, done } = await startServe({ cwd: dir, env });
    // bcrypt at cost 13 keeps this request busy long enough to be in flight at SIGTERM.
    const inFlight = call(url, 'POST', '/v1/affiliates', {
      key,
      body: { email: 'slow@x.co', password: 'secret1' },
    });
    await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).to.equal(201);
    const { code, stderr } = await done;
    expect(code).to.equal(0);
    expect(stderr).to.include('"path":"/v1/affiliates","status":201');
  });

  it('reads a .env file in the working directory; the environment wins over it', async () => {
    writeFileSync(path.join(dir, '.env'), 'DATABASE_URL=sqlite:./from-dotenv.sqlite3\nBCRYPT_ROUNDS=oops\n');
    try {
      const res = await runCli(['plans', 'list', '--json'], {
        cwd: dir,
        env: { DATABASE_URL: undefined, BCRYPT_ROUNDS: '5' },
      });
      expect(res.code, res.stderr).to.equal(0);
      expect(existsSync(path.join(dir, 'from-dotenv.sqlite3'))).to.equal(true);
    } finally {
      rmSync(path.join(dir, '.env'));
    }
  });

  it('a port in use stops the start with one line, exit 1, and what to do about it', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const res = await runCli(['serve', '--port', String(port)], { cwd: dir, env: { DATABASE_URL: '' } });
      expect(res.code).to.equal(1);
      expect(res.stderr.trim()).to.equal(
        `error: cannot listen on 127.0.0.1:${port} (EADDRINUSE): another program listens there, perhaps a daemon ` +
          'already running (`affiliated status` asks it). Stop it, or choose another port: --port N or PORT=N',
      );
    } finally {
      blocker.close();
    }
  });
});
