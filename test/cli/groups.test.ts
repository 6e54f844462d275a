import { expect } from 'chai';
import { clientEnv, parseJson, runCliInProcess } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { conversion } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { tempDir } from '../helpers/replay.js';

describe(`commission rules from the CLI: groups, affiliates, campaigns, conversions (${ENGINE})`, () => {
  const t = useTestDaemon();
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (...args: string[]) => runCliInProcess(args, { env });
  const json = async (...args: string[]) => {
    const result = await cli(...args, '--json');
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(0);
    return parseJson(result);
  };

  beforeEach(() => {
    files = tempDir();
    env = {
      ...clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key }),
      // Operator commands (campaigns update) act on the daemon's database.
      DATABASE_URL: t.database.url,
    };
  });
  afterEach(() => files.remove());

  it('groups create, list, get, update and delete', async () => {
    const made = await json(
      'groups',
      'create',
      '--name',
      'Top partners',
      '--commission-percent',
      '15',
      '--recurring',
      '12m',
      '--product',
      'Team plan=20%',
      '--product',
      'Starter=5',
    );
    expect(made).to.deep.include({
      name: 'Top partners',
      commissionType: 'percent',
      commissionValue: 15,
      recurring: { months: 12 },
      secondTierPercent: null,
      products: [
        { product: 'Team plan', commissionType: 'percent', commissionValue: 20 },
        { product: 'Starter', commissionType: 'fixed', commissionValue: 5 },
      ],
    });
    const table = await cli('groups', 'list');
    expect(table.code, table.stderr).to.equal(0);
    expect(table.stdout).to.match(/ID\s+NAME\s+RATE\s+RECURRING\s+SECOND TIER\s+PRODUCTS\s+AFFILIATES/);
    expect(table.stdout).to.match(
      /Top partners\s+15%\s+12 months\s+the campaign's\s+Team plan 20%, Starter BRL 5\.00\s+0/,
    );
    const got = await cli('groups', 'get', String(made.id));
    expect(got.stdout).to.match(/recurring:\s+12 months/);

    const updated = await json(
      'groups',
      'update',
      String(made.id),
      '--commission-fixed',
      '12.5',
      '--recurring',
      'campaign',
      '--second-tier-percent',
      '5',
      '--no-products',
    );
    expect(updated).to.deep.include({
      commissionType: 'fixed',
      commissionValue: 12.5,
      recurring: null,
      secondTierPercent: 5,
      products: [],
    });
    expect(await json('groups', 'delete', String(made.id), '--yes')).to.deep.equal({
      success: true,
      message: 'Group deleted successfully',
    });
    const gone = await cli('groups', 'get', String(made.id));
    expect(gone.code).to.equal(1);
    expect(gone.stderr).to.include('404').and.include('Group not found');
  });

  it('usage errors exit 2; a taken name is the API’s 409, exit 1', async () => {
    for (const args of [
      ['groups', 'create', '--name', 'X'],
      ['groups', 'create', '--name', 'X', '--commission-percent', '150'],
      ['groups', 'create', '--name', 'X', '--commission-percent', '5', '--commission-fixed', '5'],
      ['groups', 'create', '--name', 'X', '--commission-percent', '5', '--recurring', 'monthly'],
      ['groups', 'create', '--name', 'X', '--commission-percent', '5', '--product', 'no-rate'],
      ['groups', 'update', '1'],
      ['groups', 'delete', '1'],
      ['affiliates', 'update', '1', '--commission-percent', '5', '--no-commission-override'],
      ['affiliates', 'update', '1', '--group', 'x'],
      ['campaigns', 'update', t.merchant.publicId, '--recurring', '0m'],
      ['campaigns', 'update', t.merchant.publicId, '--second-tier-percent', '101'],
    ]) {
      const result = await cli(...args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(2);
    }
    await json('groups', 'create', '--name', 'Taken', '--commission-fixed', '1');
    const again = await cli('groups', 'create', '--name', 'taken', '--commission-fixed', '1');
    expect(again.code).to.equal(1);
    expect(again.stderr).to.include('Group name is not available');
  });

  it('affiliates update --group, --commission-percent, --no-commission-override, --parent; lists show the rule', async () => {
    const group = await json('groups', 'create', '--name', 'VIP', '--commission-percent', '20');
    const ana = await json(
      'affiliates',
      'create',
      '--email',
      'ana@example.com',
      '--password',
      'secret1',
      '--referral-id',
      'ANA',
    );
    const bia = await json(
      'affiliates',
      'create',
      '--email',
      'bia@example.com',
      '--password',
      'secret1',
      '--referral-id',
      'BIA',
      '--group',
      String(group.id),
      '--parent',
      String(ana.id),
    );
    expect(bia).to.include({ groupId: group.id, parentAffiliateId: ana.id, commissionOverride: null });
    expect(await json('affiliates', 'update', String(ana.id), '--commission-percent', '12.5')).to.deep.include({
      commissionOverride: { commissionType: 'percent', commissionValue: 12.5 },
    });
    const list = await cli('affiliates', 'list');
    expect(list.stdout).to.match(/ANA\s+active\s+override 12\.5%\s+-/);
    expect(list.stdout).to.match(new RegExp(`BIA\\s+active\\s+group ${group.id}\\s+${ana.id}`));
    const inGroup = await json('affiliates', 'list', '--group', String(group.id));
    expect(inGroup.affiliates.map((a: { id: number }) => a.id)).to.deep.equal([bia.id]);
    const cycle = await cli('affiliates', 'update', String(ana.id), '--parent', String(bia.id));
    expect(cycle.code).to.equal(1);
    expect(cycle.stderr).to.include(`parentAffiliateId ${bia.id} would make a cycle`);
    expect(
      await json(
        'affiliates',
        'update',
        String(bia.id),
        '--group',
        'none',
        '--parent',
        'none',
        '--no-commission-override',
      ),
    ).to.include({ groupId: null, parentAffiliateId: null, commissionOverride: null });
    const got = await cli('affiliates', 'get', String(ana.id));
    expect(got.stdout).to.match(/earns by:\s+override 12\.5%/);
  });

  it('campaigns update --recurring, --second-tier-percent, --product; conversions show the rule that decided', async () => {
    const updated = await json(
      'campaigns',
      'update',
      t.merchant.publicId,
      '--recurring',
      'first',
      '--second-tier-percent',
      '10',
      '--product',
      'Pro plan=30%',
    );
    expect(updated).to.deep.include({
      recurring: 'first',
      secondTierPercent: 10,
      products: [{ product: 'Pro plan', commissionType: 'percent', commissionValue: 30 }],
    });
    const shown = await cli('campaigns', 'get', t.merchant.publicId);
    expect(shown.stdout).to.match(/recurring:\s+first payment only/);
    expect(shown.stdout).to.match(/products:\s+Pro plan 30%/);
    const parent = await json(
      'affiliates',
      'create',
      '--email',
      'p@example.com',
      '--password',
      'secret1',
      '--referral-id',
      'PAR',
    );
    await json(
      'affiliates',
      'create',
      '--email',
      'c@example.com',
      '--password',
      'secret1',
      '--referral-id',
      'KID',
      '--parent',
      String(parent.id),
    );
    const sale = conversion(t.merchant.publicId, 'KID', 'o-1', 200);
    const sent = await call(t.url, 'POST', '/v1/events', {
      key: t.merchant.key,
      body: {
        events: [{ ...sale, properties: { ...sale.properties, product: 'Pro plan', customer_email: 'c@example.com' } }],
      },
    });
    expect(sent.body.accepted).to.equal(1);
    const list = await cli('conversions', 'list', '--flagged');
    expect(list.stdout).to.match(/o-1\s+200\.00\s+60\.00\s+product\s+pending\s+-\s+self_referral/);
    const { conversions } = await json('conversions', 'list', '--kind', 'second_tier');
    expect(conversions).to.have.length(1);
    const tier = await cli('conversions', 'get', String(conversions[0].id));
    expect(tier.stdout).to.match(/kind:\s+second tier of conversion \d+/);
    expect(tier.stdout).to.match(/rule:\s+second tier 10% of the sale's commission/);
    const saleId = conversions[0].sourceConversionId;
    const got = await cli('conversions', 'get', String(saleId));
    expect(got.stdout).to.match(/rule:\s+product rule \(campaign\) 30% · payment 1, first payment only/);
    expect(got.stdout).to.match(/flags:\s+self_referral/);
    const partly = await cli('refunds', 'create', 'o-1', '--amount', '50', '--refund-id', 're_1');
    expect(partly.code, partly.stderr).to.equal(0);
    expect(partly.stdout).to.match(/commission \(BRL\):\s+45\.00/);
    expect(partly.stdout).to.match(/refunded \(BRL\):\s+50\.00/);
    expect(partly.stderr).to.match(
      /Refunded BRL 50\.00 of BRL 200\.00 of order o-1 so far: conversion \d+ now earns BRL 45\.00\./,
    );
    const cleared = await json('campaigns', 'update', t.merchant.publicId, '--no-products');
    expect(cleared.products).to.deep.equal([]);
  });
});
