import { expect } from 'chai';
import { clientEnv, parseJson, runCliInProcess } from '../helpers/cli.js';
import { ENGINE } from '../helpers/database.js';
import { useRailDaemon } from '../helpers/payoutRails.js';
import { tempDir } from '../helpers/replay.js';

describe(`payouts run and the campaign's payout settings, in-process CLI against a real daemon (${ENGINE})`, function () {
  this.timeout(60_000);
  const { t, fakes, rails } = useRailDaemon({ PAYOUT_SCHEDULE_INTERVAL_MS: '0' });
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (args: string[]) => runCliInProcess(args, { env });

  beforeEach(() => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
  });
  afterEach(() => files.remove());

  it('shows who gets what and who is left out, asks for --yes off a terminal, then pays', async () => {
    await rails.connect(fakes);
    const paid = await rails.owed({ method: 'pix', pixKeyType: 'email', account: 'ana@example.com' }, [12_345.6]);
    const none = await rails.owed(null, [500]);

    const dry = await cli(['payouts', 'run', '--dry-run']);
    expect(dry.code, dry.stderr).to.equal(0);
    // The currency's own formatting: R$ 1,234.56 of 12,345.60 at 10 %.
    expect(dry.stdout).to.match(
      new RegExp(`${paid.id}\\s+-\\s+affiliate\\d+@example\\.com\\s+pix\\s+1,234\\.56\\s+-\\s+-`),
    );
    expect(dry.stdout).to.include('Would pay 1 affiliate, BRL 1,234.56 in all.');
    expect(dry.stderr).to.match(new RegExp(`${none.id} affiliate\\d+@example\\.com BRL 50\\.00: no_payout_details: `));
    expect(await t.db('payouts').count({ n: '*' })).to.deep.equal([{ n: 0 }]);

    const refused = await cli(['payouts', 'run']);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.include('--yes is required when not running interactively');
    expect(await t.db('payouts').count({ n: '*' })).to.deep.equal([{ n: 0 }]);

    const ran = await cli(['payouts', 'run', '--yes', '--json']);
    expect(ran.code, ran.stderr).to.equal(0);
    const answer = parseJson(ran);
    expect(answer).to.include({ status: 'sent', total: 1234.56 });
    expect(answer.payouts).to.have.length(1);
    expect(answer.payouts[0]).to.include({ affiliateId: paid.id, rail: 'pix', status: 'processing' });
    expect(answer.leftOut.map((left: { reason: string }) => left.reason)).to.deep.equal(['no_payout_details']);
  });

  it('campaigns update sets the payout schedule and the approval threshold; off clears it', async () => {
    const operator = { DATABASE_URL: t.database.url };
    const set = await runCliInProcess(
      [
        'campaigns',
        'update',
        t.merchant.publicId,
        '--payout-schedule',
        'weekly',
        '--payout-approval-above',
        '5000',
        '--json',
      ],
      { env: operator },
    );
    expect(set.code, set.stderr).to.equal(0);
    expect(parseJson(set)).to.include({ payoutSchedule: 'weekly', payoutApprovalAbove: 5000 });
    const cleared = await runCliInProcess(
      ['campaigns', 'update', t.merchant.publicId, '--payout-approval-above', 'off'],
      { env: operator },
    );
    expect(cleared.code, cleared.stderr).to.equal(0);
    expect(cleared.stdout).to.match(/payoutSchedule:\s+weekly/);
    expect(cleared.stdout).to.match(/payoutApprovalAbove:\s+off/);
    const wrong = await runCliInProcess(['campaigns', 'update', t.merchant.publicId, '--payout-schedule', 'daily'], {
      env: operator,
    });
    expect(wrong.code).to.equal(2);
    const campaign = await rails.api('GET', '/v1/campaign');
    expect(campaign.body).to.include({ payoutSchedule: 'weekly', payoutApprovalAbove: null });
  });
});
