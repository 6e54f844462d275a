import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { report } from '../../cli/commands/report/actions.js';
import { RATE_LEGEND } from '../../cli/commands/report/chart.js';
import type { Io } from '../../cli/io.js';
import { TRACKER_SCRIPT_URL } from '../../server/services/trackerScript.js';
import { createApiClient } from '../../shared/client/index.js';
import { clientEnv, parseJson, runCli, runCliInProcess, startServe } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { tempDir } from '../helpers/replay.js';

const DAY = '2026-06-10';
const at = { properties: { timestamp: `${DAY}T10:00:00.000Z` } };

describe(`affiliated report and snippet (${ENGINE})`, () => {
  const t = useTestDaemon();
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (args: string[]) => runCliInProcess(args, { env });

  beforeEach(async () => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
    const { merchant } = t;
    const maria = await addAffiliate(t.db, merchant.campaignId, { code: 'MARIA10' });
    const joao = await addAffiliate(t.db, merchant.campaignId, { code: 'JOAO' });
    await t.db('affiliates').where({ id: maria.id }).update({ name: 'Maria Silva' });
    const sent = await call(t.url, 'POST', '/v1/events', {
      key: merchant.key,
      body: {
        events: [
          pageView(merchant.publicId, 'MARIA10', at),
          pageView(merchant.publicId, 'MARIA10', at),
          pageView(merchant.publicId, 'JOAO', at),
          conversion(merchant.publicId, 'MARIA10', 'o-1', 300, {
            properties: { order_id: 'o-1', order_value: 300, timestamp: `${DAY}T11:00:00Z` },
          }),
          conversion(merchant.publicId, joao.code, 'o-2', 100, {
            properties: { order_id: 'o-2', order_value: 100, timestamp: `${DAY}T12:00:00Z` },
          }),
        ],
      },
    });
    expect(sent.body).to.include({ accepted: 5 });
  });
  afterEach(() => files.remove());

  it('report --json prints the API answer and nothing else', async () => {
    const result = await cli(['report', '--from', DAY, '--to', DAY, '--json']);
    expect(result.code, result.stderr).to.equal(0);
    const api = await call(t.url, 'GET', `/v1/reports/affiliates?from=${DAY}&to=${DAY}`, { key: t.merchant.key });
    expect(parseJson(result)).to.deep.equal(api.body);
    expect(parseJson(result).totals).to.include({ pageViews: 3, conversions: 2, revenue: 400, commissions: 40 });
  });

  it('report prints a table with a totals line; the bars only on a terminal', async () => {
    const piped = await cli(['report', '--from', DAY, '--to', DAY]);
    expect(piped.code, piped.stderr).to.equal(0);
    expect(piped.stdout.split('\n')).to.deep.equal([
      'AFFILIATE    REFERRAL  VIEWS  LEADS  CONVERSIONS    RATE  REVENUE  COMMISSIONS',
      'Maria Silva  MARIA10       2      0            1   50.0%   300.00        30.00',
      '-            JOAO          1      0            1  100.0%   100.00        10.00',
      '------------------------------------------------------------------------------',
      'TOTAL                      3      0            2   66.7%   400.00        40.00',
      '',
    ]);
    expect(piped.stderr).to.equal(
      `${DAY} to ${DAY} (UTC days, both included): 2 affiliates with activity\n${RATE_LEGEND}\n`,
    );

    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 120 });
    let text = '';
    stdout.on('data', (chunk) => {
      text += chunk;
    });
    const io: Io = { stdout, stderr: new PassThrough(), env: {}, interactive: false };
    const client = createApiClient({ baseUrl: t.url, apiKey: t.merchant.key });
    await report(io, client, {}, { from: DAY, to: DAY });
    const lines = text.split('\n');
    expect(lines[0]).to.match(/COMMISSIONS {2}SHARE OF REVENUE$/);
    // Maria has three times João's revenue: the whole width left on a 120-column terminal
    // (40 cells, the most a bar takes), and a third of it, to the eighth of a cell.
    const bars = lines.slice(1, 3).map((line) => /[█▏▎▍▌▋▊▉]+$/.exec(line)?.[0] ?? '');
    expect(bars[0]).to.equal('█'.repeat(40));
    expect(bars[1]).to.equal(`${'█'.repeat(13)}▍`);
    expect(Math.max(...lines.map((line) => line.length))).to.be.at.most(120);
  });

  it('report refuses a malformed date and a reversed range as usage errors', async () => {
    const bad = await cli(['report', '--from', 'last-week']);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.contain('--from must be a date like 2026-11-01');
    const reversed = await cli(['report', '--from', '2026-06-10', '--to', '2026-06-01']);
    expect(reversed.code).to.equal(2);
    expect(reversed.stderr).to.contain('error: --from 2026-06-10 is after --to 2026-06-01');
  });

  it('snippet prints the script tag for the key’s campaign', async () => {
    const local = await cli(['snippet']);
    expect(local.code, local.stderr).to.equal(0);
    expect(local.stdout).to.equal(
      `<script src="${t.url}/v1/sdk/tracker.js" data-campaign="${t.merchant.publicId}" defer></script>\n`,
    );
    expect(local.stderr).to.contain("visitors' browsers cannot reach it");

    const public_ = await cli(['snippet', '--public-url', 'https://aff.example.com/tracking/', '--json']);
    expect(public_.code, public_.stderr).to.equal(0);
    expect(parseJson(public_)).to.deep.equal({
      tag: `<script src="https://aff.example.com/tracking/v1/sdk/tracker.js" data-campaign="${t.merchant.publicId}" defer></script>`,
      src: 'https://aff.example.com/tracking/v1/sdk/tracker.js',
      campaign: t.merchant.publicId,
      cookieDays: 30,
    });
    expect((await cli(['snippet', '--public-url', 'ftp://aff.example.com'])).code).to.equal(2);
  });

  it('both commands are in the built bin', async () => {
    const result = await runCli(['report', '--from', DAY, '--to', DAY, '--json'], { env });
    expect(result.code, result.stderr).to.equal(0);
    expect(parseJson(result).affiliates).to.have.length(2);
    const help = await runCli(['--help']);
    expect(help.stdout)
      .to.match(/report \[options\]/)
      .and.to.match(/snippet \[options\]/);
  });

  it('the built daemon (affiliated serve) serves the tracking script: npm run build copies it', async () => {
    const { url, child, done } = await startServe({ env: { DATABASE_URL: t.database.url } });
    try {
      const reply = await call(url, 'GET', '/v1/sdk/tracker.js');
      expect(reply.status).to.equal(200);
      expect(reply.text).to.equal(readFileSync(TRACKER_SCRIPT_URL, 'utf8'));
    } finally {
      child.kill('SIGTERM');
      await done;
    }
  });
});
