import { expect } from 'chai';
import { clientEnv, spawnCli } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { lifecycleApi } from '../helpers/lifecycleApi.js';
import { tempDir } from '../helpers/replay.js';

/**
 * `affiliated ... | head -1`: the reader goes away before the command is done writing. Here the
 * reading end is closed before the built CLI writes a byte, so every write meets a closed pipe.
 */
describe(`a closed pipe ends the command quietly (${ENGINE})`, () => {
  const t = useTestDaemon();
  const life = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );
  let files: ReturnType<typeof tempDir>;
  beforeEach(() => {
    files = tempDir();
  });
  afterEach(() => files.remove());

  it('tables, records and payouts get: no stack trace, exit 141 like a Unix tool on SIGPIPE', async () => {
    const { id: affiliateId, code } = await addAffiliate(t.db, t.merchant.campaignId);
    const ids = await life.arrive(code, [
      ['a', 100],
      ['b', 50],
    ]);
    await life.approve(...ids);
    const payout = (await life.payout(affiliateId)).body;
    const env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
    for (const args of [
      ['affiliates', 'list'],
      ['affiliates', 'get', String(affiliateId)],
      ['conversions', 'list', '--all'],
      ['payouts', 'get', String(payout.id)],
      ['affiliates', 'list', '--json'],
    ]) {
      const run = spawnCli(args, { env });
      run.child.stdout.destroy();
      const result = await run.done;
      expect(result.stderr, args.join(' ')).to.not.match(/EPIPE|Error|\n\s+at /);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(141);
    }
  });
});
