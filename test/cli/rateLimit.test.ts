import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { clientEnv, parseJson, runCli } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { insertConversion, insertPayout } from '../helpers/rows.js';
import { tempDir } from '../helpers/replay.js';

describe(`CLI commands under a low rate limit (${ENGINE})`, function () {
  this.timeout(120_000);
  // 20 requests a window; a window long enough that the CLI starts inside the one the test used up, even on a busy machine.
  const t = useTestDaemon({ RATE_LIMIT_DEFAULT_PER_MIN: '20', RATE_LIMIT_WINDOW_MS: '15000' });
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  beforeEach(() => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
  });
  afterEach(() => files.remove());

  /** Spends the key's window, so the command's first request meets a 429. */
  async function useUpWindow(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const reply = await call(t.url, 'GET', '/v1/campaign', { key: t.merchant.key });
      if (reply.status === 429) return;
    }
    throw new Error('the window never ran out');
  }

  async function seed(): Promise<{ payoutIds: number[] }> {
    const { campaignId } = t.merchant;
    const affiliate = await addAffiliate(t.db, campaignId);
    const payoutIds: number[] = [];
    for (const cents of [1500, 2500]) {
      const payout = await insertPayout(t.db, campaignId, affiliate.id, cents, 'pending');
      await insertConversion(t.db, campaignId, affiliate.id, cents, 'approved', payout);
      payoutIds.push(payout);
    }
    for (let i = 0; i < 24; i++) await insertConversion(t.db, campaignId, affiliate.id, 100, 'pending');
    return { payoutIds };
  }

  it('payouts export waits out the 429 (Retry-After), says so on stderr, and writes the whole file', async () => {
    await seed();
    await useUpWindow();
    const out = files.file('payouts.csv');
    const result = await runCli(['payouts', 'export', '--status', 'pending', '--output', out], { env });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.match(/rate limited \(429\): waiting \d+ s/);
    expect(result.stdout).to.include('Wrote 2 pending payouts');
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines).to.have.length(3);
  });

  it('conversions list --all reads more pages than a window allows; --json keeps stdout one document', async () => {
    await seed();
    await useUpWindow();
    const result = await runCli(['conversions', 'list', '--all', '--limit', '1', '--json'], { env });
    expect(result.code, result.stderr).to.equal(0);
    const answer = parseJson(result);
    expect(answer.total).to.equal(26);
    expect(answer.conversions).to.have.length(26);
    // 26 pages through windows of 20: a 429 waited out first, then a window waited for.
    expect(result.stderr).to.match(/rate limited \(429\): waiting \d+ s/);
    expect(result.stderr).to.match(
      /rate limit reached: waiting \d+ s for the next window|rate limited \(429\)[^]*rate limited \(429\)/,
    );
  });

  it('affiliates list --all waits too', async () => {
    for (let i = 0; i < 3; i++) await addAffiliate(t.db, t.merchant.campaignId);
    await useUpWindow();
    const result = await runCli(['affiliates', 'list', '--all', '--output', 'csv'], { env });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout.trim().split('\n')).to.have.length(4);
    expect(result.stderr).to.match(/rate limited \(429\): waiting \d+ s/);
  });

  it('a single request refused by the rate limit says when to run it again', async () => {
    const { payoutIds } = await seed();
    await useUpWindow();
    const result = await runCli(['payouts', 'get', String(payoutIds[0])], { env });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('error 429');
    expect(result.stderr).to.match(/run it again in \d+ s/);
  });
});
