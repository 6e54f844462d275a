import { createServer } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Daemon } from '../../server/main.js';
import { clientEnv, parseJson, runCli, spawnCli } from '../helpers/cli.js';
import { createMerchant, type Merchant, startTestDaemon } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { countingProxy, countRows, makeAffiliate, tempDir, waitForCheckpoint, writeLines } from '../helpers/replay.js';

/**
 * The replay's files under interruption, a dry run in between, crashes and the rate limit: what
 * a support person does with a large export, checked end to end (real CLI, real daemon).
 */
describe(`events replay: interruptions, its files and the rate limit (${ENGINE})`, () => {
  let t: TestDatabase;
  let daemon: Daemon;
  let slow: Daemon;
  let merchant: Merchant;
  let files: ReturnType<typeof tempDir>;
  let affiliate: string;
  let env: Record<string, string | undefined>;

  before(async () => {
    t = await createTestDatabase();
    daemon = await startTestDaemon(t.url);
    // Four requests a second: a run of a few hundred lines is still going when the test steps in.
    slow = await startTestDaemon(t.url, { RATE_LIMIT_EVENTS_PER_MIN: '4', RATE_LIMIT_WINDOW_MS: '1000' });
  });
  beforeEach(async () => {
    await cleanTables(t.db);
    files = tempDir();
    merchant = await createMerchant(t.db);
    affiliate = (await makeAffiliate(daemon.url, merchant.key, { email: 'ana@example.com', referralId: 'ANA1' }))
      .referralId;
    env = clientEnv(files.file('config.json'), { baseUrl: slow.url, apiKey: merchant.key });
  });
  afterEach(() => files.remove());
  after(async () => {
    await slow.close();
    await daemon.close();
    await t.drop();
  });

  /** Every 7th line names another campaign, every 11th is broken JSON; the rest are stored. */
  const lineOf = (n: number) =>
    n % 11 === 0
      ? `{"event_type": "page_view", "campaign_id": "${n}`
      : JSON.stringify({
          event_type: 'page_view',
          campaign_id: n % 7 === 0 ? 'another-campaign' : merchant.publicId,
          affiliate_id: affiliate,
          session_id: `s${n}`,
        });
  const rejectedLines = (total: number) =>
    Array.from({ length: total }, (_, i) => i + 1).filter((n) => n % 7 === 0 || n % 11 === 0);
  const storedEvents = () => countRows(t.db, 'tracking_events', merchant.campaignId);

  /** Every row whole, every rejected line once, in line order, with its text. */
  function expectRejectsFile(path: string, total: number): void {
    const text = readFileSync(path, 'utf8');
    expect(text.endsWith('\n'), 'the last row is whole').to.equal(true);
    const rows = text
      .slice(0, -1)
      .split('\n')
      .map((row) => JSON.parse(row) as { line: number; reasons: string[]; raw: string });
    expect(rows.map((r) => r.line)).to.deep.equal(rejectedLines(total));
    for (const row of rows) expect(row.raw).to.equal(lineOf(row.line));
  }

  async function interruptedRun(file: string, total: number, signal: NodeJS.Signals, extra: string[] = []) {
    await writeLines(file, total, lineOf);
    const run = spawnCli(['events', 'replay', file, '--batch-size', '10', '--json', ...extra], { env });
    let running = true;
    void run.done.then(() => {
      running = false;
    });
    await waitForCheckpoint(`${file}.checkpoint.json`, 40, () => running);
    expect(running, 'the run was still going when interrupted').to.equal(true);
    run.child.kill(signal);
    return run.done;
  }

  it('Ctrl-C, then --dry-run, then --resume: every reject once, in order, no torn row, every event stored once', async function () {
    this.timeout(120_000);
    const file = files.file('export.ndjson');
    const total = 250;
    const rejectsPath = `${file}.rejects.ndjson`;
    const interrupted = await interruptedRun(file, total, 'SIGINT');
    expect(interrupted.code, interrupted.stderr).to.equal(1);
    const partial = JSON.parse(interrupted.stdout);
    expect(partial.stopped.reason).to.equal('interrupted');
    const rejectsAfterStop = readFileSync(rejectsPath);
    const checkpointAfterStop = readFileSync(`${file}.checkpoint.json`);

    const dry = await runCli(['events', 'replay', file, '--dry-run', '--json'], { env });
    expect(dry.code, dry.stderr).to.equal(1);
    expect(parseJson(dry)).to.deep.include({ dryRun: true, rejectsFile: `${file}.dry-run.rejects.ndjson` });
    // The dry run wrote its own file and left the real run's two alone, byte for byte.
    expect(readFileSync(rejectsPath).equals(rejectsAfterStop)).to.equal(true);
    expect(readFileSync(`${file}.checkpoint.json`).equals(checkpointAfterStop)).to.equal(true);
    // Only the server knows the key's campaign: the dry run rejects the broken lines alone.
    const dryRows = readFileSync(`${file}.dry-run.rejects.ndjson`, 'utf8').trimEnd().split('\n');
    expect(dryRows.map((r) => JSON.parse(r).line)).to.deep.equal(rejectedLines(total).filter((n) => n % 11 === 0));

    const resumed = await runCli(['events', 'replay', file, '--batch-size', '10', '--json', '--resume'], { env });
    expect(resumed.code, resumed.stderr).to.equal(1);
    const summary = parseJson(resumed);
    expect(summary.stopped).to.equal(null);
    expect(summary.resumedFromLine).to.equal(partial.stopped.checkpointLine);
    const valid = total - rejectedLines(total).length;
    expect(summary).to.deep.include({ lines: total, accepted: valid, rejected: rejectedLines(total).length });
    expect(summary.skipped.duplicate_event_id).to.equal(0);
    expectRejectsFile(rejectsPath, total);
    expect(await storedEvents()).to.equal(valid);
  });

  it('--resume refuses, and leaves alone, a rejects file or checkpoint that changed; a dry run refuses the real rejects file', async function () {
    this.timeout(120_000);
    const file = files.file('export.ndjson');
    const rejectsPath = `${file}.rejects.ndjson`;
    const checkpointPath = `${file}.checkpoint.json`;
    expect((await interruptedRun(file, 250, 'SIGINT')).code).to.equal(1);
    const original = readFileSync(rejectsPath);
    const resume = () => runCli(['events', 'replay', file, '--batch-size', '10', '--json', '--resume'], { env });

    const dryOnReal = await runCli(['events', 'replay', file, '--dry-run', '--rejects', rejectsPath], { env });
    expect(dryOnReal.code).to.equal(2);
    expect(dryOnReal.stderr).to.include('a dry run never writes a real run');
    expect(readFileSync(rejectsPath).equals(original)).to.equal(true);

    // Rewritten with other rows (as an older dry run did): shorter than the checkpoint says.
    const rewritten = `${JSON.stringify({ line: 11, reasons: ['line is not valid JSON'], raw: lineOf(11) })}\n`;
    writeFileSync(rejectsPath, rewritten);
    const shorter = await resume();
    expect(shorter.code).to.equal(1);
    expect(shorter.stderr).to.include(`the rejects file ${rejectsPath} changed since the run stopped`);
    expect(shorter.stderr).to.include('start over without --resume');
    expect(readFileSync(rejectsPath, 'utf8')).to.equal(rewritten);

    // Same size, other bytes.
    writeFileSync(rejectsPath, Buffer.from(original.toString('utf8').replace(/"line":7,/, '"line":8,')));
    const altered = await resume();
    expect(altered.code).to.equal(1);
    expect(altered.stderr).to.include('are not the ones');

    // Rows someone else appended after the checkpoint are not cut.
    const foreign = Buffer.concat([original, Buffer.from('{"note":"mine"}\n')]);
    writeFileSync(rejectsPath, foreign);
    const appended = await resume();
    expect(appended.code).to.equal(1);
    expect(appended.stderr).to.include('that this replay did not write');
    expect(readFileSync(rejectsPath).equals(foreign)).to.equal(true);

    writeFileSync(rejectsPath, original);
    const checkpoint = readFileSync(checkpointPath, 'utf8');
    writeFileSync(checkpointPath, checkpoint.slice(0, 40));
    const broken = await resume();
    expect(broken.code).to.equal(1);
    expect(broken.stderr).to.include(`${checkpointPath} cannot be used (it is not valid JSON)`);

    writeFileSync(checkpointPath, checkpoint);
    const input = readFileSync(file, 'utf8');
    writeFileSync(file, input.replace('"session_id":"s2"', '"session_id":"S2"'));
    const edited = await resume();
    expect(edited.code).to.equal(1);
    expect(edited.stderr).to.match(/changed before line \d+|belongs to another file/);

    // Put back as the run left them, the resume goes through.
    writeFileSync(file, input);
    const resumed = await resume();
    expect(resumed.code, resumed.stderr).to.equal(1);
    expect(parseJson(resumed).stopped).to.equal(null);
    expectRejectsFile(rejectsPath, 250);
  });

  it('--concurrency 4 killed mid-run (SIGKILL): --resume loses nothing and stores nothing twice', async function () {
    this.timeout(120_000);
    const file = files.file('export.ndjson');
    const total = 300;
    const killed = await interruptedRun(file, total, 'SIGKILL', ['--concurrency', '4']);
    expect(killed.signal).to.equal('SIGKILL');
    const resumed = await runCli(
      ['events', 'replay', file, '--batch-size', '10', '--concurrency', '4', '--json', '--resume'],
      { env },
    );
    expect(resumed.code, resumed.stderr).to.equal(1);
    const summary = parseJson(resumed);
    const valid = total - rejectedLines(total).length;
    expect(summary.stopped).to.equal(null);
    expect(summary.lines).to.equal(total);
    expect(summary.rejected).to.equal(rejectedLines(total).length);
    // Batches the daemon stored after the last checkpoint come back as duplicates, never twice.
    expect(summary.accepted + summary.skipped.duplicate_event_id).to.equal(valid);
    expectRejectsFile(`${file}.rejects.ndjson`, total);
    expect(await storedEvents()).to.equal(valid);
  });

  it('under a tiny rate limit: waits instead of earning 429s, says so in the summary, sends each batch once', async function () {
    this.timeout(120_000);
    const limited = await startTestDaemon(t.url, { RATE_LIMIT_EVENTS_PER_MIN: '2', RATE_LIMIT_WINDOW_MS: '1500' });
    const proxy = await countingProxy(limited.url);
    try {
      const file = files.file('limited.ndjson');
      // A line for another campaign in every batch: once, each such batch was refused whole and sent again.
      await writeLines(file, 36, (n) =>
        JSON.stringify({
          event_type: 'page_view',
          campaign_id: n % 6 === 1 ? 'another-campaign' : merchant.publicId,
          affiliate_id: affiliate,
          session_id: `r${n}`,
        }),
      );
      const result = await runCli(['events', 'replay', file, '--batch-size', '5', '--concurrency', '3'], {
        env: { ...env, AFFILIATED_BASE_URL: proxy.url },
      });
      expect(result.code, result.stderr).to.equal(1);
      expect(result.stdout).to.match(/accepted\s+30/);
      expect(result.stdout).to.match(/rejected\s+6/);
      expect(result.stderr).to.match(
        /Waited \d+\.\d s of \d+\.\d s for the rate limit \(the daemon allows 2 requests a window per key\)/,
      );
      expect(result.stderr).to.include('RATE_LIMIT_EVENTS_PER_MIN');
      // 30 valid events in batches of 5: six requests, none refused and none repeated.
      expect(proxy.eventPosts()).to.equal(6);
      expect(await storedEvents()).to.equal(30);
    } finally {
      await proxy.close();
      await limited.close();
    }
  });

  it('with the daemon down, says so at once with the address and what to check', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const file = files.file('down.ndjson');
    await writeLines(file, 3, lineOf);
    const url = `http://127.0.0.1:${port}`;
    const result = await runCli(['events', 'replay', file, '--json'], { env: { ...env, AFFILIATED_BASE_URL: url } });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include(`no daemon answers at ${url}`);
    expect(result.stderr).to.include('affiliated serve');
    expect(result.stderr).to.include('AFFILIATED_BASE_URL');
    // Reported on the first refused connection, not after a batch's retries.
    expect(result.stderr).to.not.include('retrying');
    expect(parseJson(result).stopped).to.deep.include({ reason: 'network', checkpointLine: 0 });
    expect(existsSync(`${file}.checkpoint.json`)).to.equal(false);
  });
});
