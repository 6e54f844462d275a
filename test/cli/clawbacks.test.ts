import { expect } from 'chai';
import { clientEnv, parseJson, runCliInProcess } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { lifecycleApi } from '../helpers/lifecycleApi.js';
import { tempDir } from '../helpers/replay.js';

/** Clawbacks of full and partial refunds: one list, from the API and the CLI (docs/payouts.md). */
describe(`clawbacks: one list of what each affiliate owes back (${ENGINE})`, () => {
  const t = useTestDaemon();
  const life = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (...args: string[]) => runCliInProcess(args, { env });
  const api = (path: string) => call<any>(t.url, 'GET', path, { key: t.merchant.key });

  beforeEach(() => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
  });
  afterEach(() => files.remove());

  it('a partial refund of a paid sale says what it clawed back, and refunds list --clawbacks counts it', async () => {
    const { id: affiliateId, code } = await addAffiliate(t.db, t.merchant.campaignId);
    const [whole, part] = await life.arrive(code, [
      ['whole-1', 300],
      ['part-1', 200],
    ]);
    await life.approve(whole ?? 0, part ?? 0);
    const payout = (await life.payout(affiliateId)).body;
    expect((await life.settle(payout.id, 'paid')).status).to.equal(200);

    // 10 % of 200 is 20.00; 50 of it refunded leaves 150, which earns 15.00: 5.00 clawed back.
    const partial = await cli('refunds', 'create', 'part-1', '--amount', '50', '--reason', 'one item returned');
    expect(partial.code, partial.stderr).to.equal(0);
    expect(partial.stderr).to.include(`conversion ${part} now earns BRL 15.00`);
    expect(partial.stderr).to.include(
      `a clawback of BRL 5.00 is recorded against affiliate ${affiliateId} (its commission was in payout ${payout.id}, owed)`,
    );
    expect((await cli('refunds', 'create', 'whole-1')).code).to.equal(0);

    const listed = await cli('refunds', 'list', '--clawbacks');
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout).to.match(new RegExp(`\\s${part}\\s+part-1\\s+5\\.00\\s+${payout.id}\\s+owed\\s`));
    expect(listed.stdout).to.match(new RegExp(`\\s${whole}\\s+whole-1\\s+30\\.00\\s+${payout.id}\\s+owed\\s`));
    expect(listed.stderr).to.include('2 clawbacks: BRL 35.00 clawed back in all');
    expect(listed.stderr).to.include(`affiliate ${affiliateId} owes back BRL 35.00`);
    const json = parseJson(await cli('refunds', 'list', '--clawbacks', '--json'));
    expect(json.clawbacks.map((c: { orderId: string; amount: number }) => [c.orderId, c.amount])).to.deep.equal([
      ['whole-1', 30],
      ['part-1', 5],
    ]);
    expect(json.owedAmount).to.equal(35);

    // The list the API answers is the one the next payout nets: 35.00 off it.
    const clawbacks = await api(`/v1/clawbacks?affiliateId=${affiliateId}`);
    expect(clawbacks.status).to.equal(200);
    expect(clawbacks.body).to.include({ total: 2, owedAmount: 35 });
    const [next] = await life.arrive(code, [['next-1', 400]]);
    await life.approve(next ?? 0);
    const netting = (await life.payout(affiliateId)).body;
    expect(netting).to.include({ commissionAmount: 40, clawbackAmount: 35, amount: 5 });
    expect((await api('/v1/clawbacks?status=netting')).body.total).to.equal(2);
    expect((await life.settle(netting.id, 'paid')).status).to.equal(200);
    const settled = (await api(`/v1/clawbacks?affiliateId=${affiliateId}`)).body;
    expect(settled.clawbacks.map((c: { status: string }) => c.status)).to.deep.equal(['settled', 'settled']);
    expect(settled.owedAmount).to.equal(0);
  });

  it('a clawback of a refund inside a pending payout waits, and is void when that payout fails', async () => {
    const { id: affiliateId, code } = await addAffiliate(t.db, t.merchant.campaignId);
    const [sale] = await life.arrive(code, [['wait-1', 100]]);
    await life.approve(sale ?? 0);
    const payout = (await life.payout(affiliateId)).body;
    const partial = await cli('refunds', 'create', 'wait-1', '--amount', '40');
    expect(partial.stderr).to.include('a clawback of BRL 4.00');
    expect(partial.stderr).to.include(`payout ${payout.id}, waiting`);
    expect((await life.settle(payout.id, 'failed')).status).to.equal(200);
    const listed = await cli('refunds', 'list', '--clawbacks');
    expect(listed.stdout).to.match(/\swait-1\s+4\.00\s+\d+\s+void\s/);
    expect(listed.stderr).to.include('0 clawbacks: BRL 0.00 clawed back in all');
    const bad = await api('/v1/clawbacks?status=lost');
    expect(bad.status).to.equal(400);
  });
});
