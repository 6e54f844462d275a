import { expect } from 'chai';
import { clientEnv, parseJson, runCliInProcess } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { tempDir } from '../helpers/replay.js';

describe(`audit log from the CLI: operator changes, audit list (${ENGINE})`, () => {
  const t = useTestDaemon();
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (...args: string[]) => runCliInProcess(args, { env });
  const ok = async (...args: string[]) => {
    const result = await cli(...args);
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(0);
    return result;
  };

  beforeEach(() => {
    files = tempDir();
    env = {
      ...clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key }),
      // Operator commands act on the daemon's database, as the shell's user.
      DATABASE_URL: t.database.url,
      USER: 'ops-ana',
    };
  });
  afterEach(() => files.remove());

  it('operator commands are recorded as the operator; audit list shows them with the key’s own changes', async () => {
    const { campaignId, keyId } = t.merchant;
    await ok('campaigns', 'update', String(campaignId), '--payout-minimum', '50', '--json');
    const made = parseJson(await ok('keys', 'create', '--campaign', String(campaignId), '--json'));
    await ok('keys', 'revoke', String(made.id), '--yes', '--json');
    await ok('groups', 'create', '--name', 'VIP', '--commission-percent', '20', '--json');

    const listed = parseJson(await ok('audit', 'list', '--json'));
    const rows = (listed.changes as Array<Record<string, any>>).map((change) => [
      change.action,
      change.actor.type,
      change.actor.id,
      change.address,
      change.target.id,
    ]);
    expect(rows.slice(0, 4)).to.deep.equal([
      ['group.create', 'key', String(keyId), '127.0.0.1', rows[0]?.[4]],
      ['key.revoke', 'operator', 'ops-ana', null, String(made.id)],
      ['key.create', 'operator', 'ops-ana', null, String(made.id)],
      ['campaign.update', 'operator', 'ops-ana', null, String(campaignId)],
    ]);
    expect((listed.changes as Array<Record<string, any>>)[3]?.details.fields).to.deep.equal(['payoutMinimum']);
    // The key printed once by `keys create` is nowhere in the log.
    expect(JSON.stringify(listed)).to.not.contain(made.key);

    const table = await ok('audit', 'list', '--actor', 'operator');
    expect(table.stdout).to.match(/ID\s+AT\s+ACTOR\s+ADDRESS\s+ACTION\s+TARGET\s+FIELDS\s+FIGURES/);
    expect(table.stdout).to.contain('operator ops-ana');
    expect(table.stdout).to.contain('campaign.update');
    expect(table.stdout).to.not.contain('group.create');
    expect(table.stderr).to.contain('3 changes');

    const csv = await ok('audit', 'list', '--action', 'group.create', '--all', '--output', 'csv');
    expect(csv.stdout.split('\r\n')[0]).to.equal('id,at,actor,address,action,target,fields,figures');
    expect(csv.stdout).to.contain(`key ${keyId} (${t.merchant.key.slice(0, 8)})`);
  });

  it('refuses bad filters before asking: an unknown action, --target without --target-type, a reversed range', async () => {
    const action = await cli('audit', 'list', '--action', 'affiliate.explode');
    expect(action.code).to.equal(2);
    expect(action.stderr).to.contain('affiliate.explode');
    const target = await cli('audit', 'list', '--target', '42');
    expect(target.code).to.equal(2);
    expect(target.stderr).to.contain('--target needs --target-type');
    const range = await cli('audit', 'list', '--from', '2026-12-01', '--to', '2026-11-01');
    expect(range.code).to.equal(2);
  });
});
