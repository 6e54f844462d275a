import { expect } from 'chai';
import { clientEnv, parseJson, runCliInProcess } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { tempDir } from '../helpers/replay.js';

describe(`affiliated analytics (${ENGINE})`, () => {
  const t = useTestDaemon();
  let env: Record<string, string | undefined>;
  const cli = (args: string[]) => runCliInProcess(args, { env });

  beforeEach(async () => {
    env = clientEnv(tempDir().file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
    const { code } = await addAffiliate(t.db, t.merchant.campaignId);
    const sale = (order: string, value: number, timestamp: string) =>
      conversion(t.merchant.publicId, code, order, value, {
        properties: { order_id: order, order_value: value, timestamp },
      });
    const sent = await call(t.url, 'POST', '/v1/events', {
      key: t.merchant.key,
      body: {
        events: [
          sale('o-1', 100, '2026-06-01T12:00:00Z'),
          sale('o-2', 50.25, '2026-06-01T13:00:00Z'),
          // 01:00Z on the 3rd is still the 2nd in São Paulo.
          sale('o-3', 25, '2026-06-03T01:00:00Z'),
        ],
      },
    });
    expect(sent.body).to.include({ accepted: 3 });
  });

  it('draws one bar per day in the zone asked, with the total', async () => {
    const res = await cli([
      'analytics',
      '--metric',
      'revenue',
      '--from',
      '2026-06-01',
      '--to',
      '2026-06-03',
      '--timezone',
      'America/Sao_Paulo',
    ]);
    expect(res.code, res.stderr).to.equal(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).to.have.length(3);
    expect(lines[0]).to.match(/^2026-06-01 {2}150\.25 {2}█+$/);
    expect(lines[1]).to.match(/^2026-06-02 {3}25\.00 {2}█+$/);
    expect(lines[2]).to.equal('2026-06-03    0.00');
  });

  it('--json prints the API answer', async () => {
    const res = await cli([
      'analytics',
      '--metric',
      'conversions',
      '--interval',
      'month',
      '--from',
      '2026-06-01',
      '--to',
      '2026-06-30',
      '--json',
    ]);
    expect(res.code, res.stderr).to.equal(0);
    const answer = parseJson(res);
    expect(answer.totals).to.deep.equal({ conversions: 3 });
    expect(answer.series[0].points).to.deep.equal([{ start: '2026-06-01T00:00:00+00:00', conversions: 3 }]);
  });

  it('a bad zone is the daemon’s message and exit code', async () => {
    const res = await cli(['analytics', '--timezone', 'Mars/Olympus']);
    expect(res.code).to.not.equal(0);
    expect(res.stderr).to.contain('timezone must be an IANA time zone name');
  });
});
