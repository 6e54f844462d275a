import { expect } from 'chai';
import { clientEnv, runCli } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { insertConversion, insertPayout } from '../helpers/rows.js';
import { makeAffiliate, tempDir } from '../helpers/replay.js';
import { openTerminal } from '../helpers/terminal.js';

describe(`affiliates delete names what the cascade erases (${ENGINE})`, function () {
  this.timeout(60_000);
  const t = useTestDaemon({ RATE_LIMIT_DEFAULT_PER_MIN: '20' });
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  beforeEach(() => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
  });
  afterEach(() => files.remove());

  /** An affiliate with two paid payouts (BRL 25.00 and 1,000.50), one pending, and their conversions. */
  async function paidAffiliate(): Promise<number> {
    const { campaignId, key } = t.merchant;
    const { id } = await makeAffiliate(t.url, key, { email: 'eva@example.com', referralId: 'EVA1', name: 'Eva' });
    for (const [cents, status] of [
      [2500, 'paid'],
      [100050, 'paid'],
      [700, 'pending'],
    ] as const) {
      const payout = await insertPayout(t.db, campaignId, id, cents, status);
      await insertConversion(t.db, campaignId, id, cents, status === 'paid' ? 'paid' : 'approved', payout);
    }
    return id;
  }

  it('with --yes (a script), deletes as before and prints what was erased', async () => {
    const id = await paidAffiliate();
    const result = await runCli(['affiliates', 'delete', String(id), '--yes'], { env });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.match(
      new RegExp(
        `Affiliate ${id} deleted, with \\d+ conversions? and 3 payouts, 2 of them paid \\(BRL 1,?025\\.50\\)\\.`,
      ),
    );
    const gone = await call(t.url, 'GET', `/v1/affiliates/${id}`, { key: t.merchant.key });
    expect(gone.status).to.equal(404);
  });

  it('on a terminal, names the paid payouts and their total and suggests --status inactive before asking', async () => {
    const id = await paidAffiliate();
    const term = openTerminal(['affiliates', 'delete', String(id)], { env, cwd: files.dir, dir: files.dir });
    try {
      // The question is longer than the terminal is wide: read it with its wraps undone.
      const asked = (await term.waitFor('(y/N)')).replace(/\n/g, '');
      expect(asked).to.include('This cannot be undone');
      expect(asked).to.include(`affiliated affiliates update ${id} --status inactive`);
      expect(asked).to.match(/and 3 payouts, 2 of them paid \(BRL 1,?025\.50\)/);
      term.type('n');
      term.press('Enter');
      expect(await term.exitCode()).to.equal(1);
      expect(term.screen()).to.include('Not deleted.');
    } finally {
      term.close();
    }
    const kept = await call(t.url, 'GET', `/v1/affiliates/${id}`, { key: t.merchant.key });
    expect(kept.status).to.equal(200);
  });
});
