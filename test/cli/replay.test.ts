import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Daemon } from '../../server/main.js';
import { clientEnv, parseJson, runCli, spawnCli } from '../helpers/cli.js';
import { createMerchant, type Merchant, revokeKey, startTestDaemon } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { countRows, makeAffiliate, tempDir, writeLines } from '../helpers/replay.js';

const pageView = (campaign: string, affiliate: string, extra: object = {}) =>
  JSON.stringify({ event_type: 'page_view', campaign_id: campaign, affiliate_id: affiliate, ...extra });

describe(`events replay as a child process (${ENGINE})`, () => {
  let t: TestDatabase;
  let daemon: Daemon;
  let merchant: Merchant;
  let files: ReturnType<typeof tempDir>;
  let active: string;
  let env: Record<string, string | undefined>;

  const replay = (args: string[], extraEnv: Record<string, string | undefined> = {}) =>
    runCli(['events', 'replay', ...args, '--json'], { env: { ...env, ...extraEnv } });
  const stored = async () => ({
    events: await countRows(t.db, 'tracking_events', merchant.campaignId),
    conversions: await countRows(t.db, 'conversions', merchant.campaignId),
  });

  before(async () => {
    t = await createTestDatabase();
    daemon = await startTestDaemon(t.url);
  });
  beforeEach(async () => {
    await cleanTables(t.db);
    files = tempDir();
    merchant = await createMerchant(t.db);
    active = (await makeAffiliate(daemon.url, merchant.key, { email: 'ana@example.com', referralId: 'ANA1' }))
      .referralId;
    env = clientEnv(files.file('config.json'), { baseUrl: daemon.url, apiKey: merchant.key });
  });
  afterEach(() => files.remove());
  after(async () => {
    await daemon.close();
    await t.drop();
  });

  describe('a file with broken JSON, invalid events, duplicates, unknown codes and blank lines', () => {
    let file: string;
    let lines: string[];
    beforeEach(async () => {
      await makeAffiliate(daemon.url, merchant.key, {
        email: 'ivo@example.com',
        referralId: 'IVO1',
        status: 'inactive',
      });
      const c = merchant.publicId;
      const conversion = (orderId: string, value?: number) =>
        JSON.stringify({
          event_type: 'conversion',
          campaign_id: c,
          affiliate_id: active,
          properties: value === undefined ? { order_id: orderId } : { order_id: orderId, order_value: value },
        });
      lines = [
        pageView(c, active, { session_id: 's1' }), // 1 accepted
        '', // 2 blank
        '{"event_type": "page_view", "campaign_id": ', // 3 broken JSON
        conversion('o-1', 100), // 4 accepted
        conversion('o-1', 100), // 5 duplicate order
        JSON.stringify({ event_type: 'lead', campaign_id: c, affiliate_id: active, event_id: 'evt-7' }), // 6 accepted
        JSON.stringify({ event_type: 'lead', campaign_id: c, affiliate_id: active, event_id: 'evt-7' }), // 7 duplicate id
        pageView(c, 'NOBODY9'), // 8 unknown code
        pageView(c, 'IVO1'), // 9 inactive affiliate
        conversion('o-2'), // 10 invalid: no order_value
        '   ', // 11 blank
        pageView('someone-else', active), // 12 invalid on the server only: another campaign
        JSON.stringify({ event_type: 'click', campaign_id: c, affiliate_id: active }), // 13 invalid type
        pageView(c, active, { foo: 1 }), // 14 unknown field
        '[1, 2]', // 15 not an object
        pageView(c, active, { session_id: 's2' }), // 16 accepted
      ];
      file = files.file('events.ndjson');
      writeFileSync(file, `${lines.join('\n')}\n`);
    });

    const expectedRejects = () => [
      { line: 3, reasons: ['line is not valid JSON'], raw: lines[2] },
      { line: 10, reasons: ['properties.order_value is required for conversion events'], raw: lines[9] },
      {
        line: 12,
        reasons: [`campaign_id must be the public id of the API key's campaign ("${merchant.publicId}")`],
        raw: lines[11],
      },
      {
        line: 13,
        reasons: ['event_type must be one of the following values: conversion, lead, page_view'],
        raw: lines[12],
      },
      { line: 14, reasons: ['property foo should not exist'], raw: lines[13] },
      { line: 15, reasons: ['line must be a JSON object'], raw: lines[14] },
    ];
    const readRejects = (path: string) =>
      readFileSync(path, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));

    it('counts every line exactly, writes the rejects file, and exits 1', async () => {
      const result = await replay([file, '--batch-size', '4']);
      expect(result.code, result.stderr).to.equal(1);
      const summary = parseJson(result);
      expect(summary).to.deep.include({
        lines: 14,
        // Lines 3 and 15 are not JSON objects, and line 12 names another campaign (the key's
        // campaign is known from GET /v1/campaign): those are rejected here. Lines 10, 13 and 14
        // break the event schema, which is the daemon's to judge: they are sent, and come back
        // refused with the daemon's reasons.
        sent: 11,
        accepted: 4,
        skipped: {
          duplicate_order_id: 1,
          duplicate_event_id: 1,
          unknown_affiliate: 1,
          inactive_affiliate: 1,
          recurring_limit_reached: 0,
          attribution_expired: 0,
        },
        rejected: 6,
        stopped: null,
        rejectsFile: `${file}.rejects.ndjson`,
      });
      expect(summary.durationMs).to.be.a('number');
      expect(readRejects(`${file}.rejects.ndjson`)).to.deep.equal(expectedRejects());
      expect(await stored()).to.deep.equal({ events: 4, conversions: 1 });
      const checkpoint = JSON.parse(readFileSync(`${file}.checkpoint.json`, 'utf8'));
      expect(checkpoint).to.include({ line: 16, done: true });
    });

    it('a second run stores nothing and reports the same rejects', async () => {
      await replay([file, '--batch-size', '4']);
      const before = await stored();
      const again = await replay([file, '--batch-size', '4']);
      expect(again.code).to.equal(1);
      const summary = parseJson(again);
      expect(summary.accepted).to.equal(0);
      expect(summary.skipped.duplicate_event_id).to.be.at.least(4);
      expect(summary.rejected).to.equal(6);
      expect(await stored()).to.deep.equal(before);
      expect(readRejects(`${file}.rejects.ndjson`)).to.deep.equal(expectedRejects());
      // Another batch size regroups the lines; the derived ids still match.
      const regrouped = parseJson(await replay([file, '--batch-size', '1000']));
      expect(regrouped.accepted).to.equal(0);
      expect(await stored()).to.deep.equal(before);
    });

    it('--dry-run validates every line and sends nothing', async () => {
      const result = await replay([file, '--dry-run', '--rejects', files.file('dry.ndjson')]);
      expect(result.code).to.equal(1);
      expect(parseJson(result)).to.deep.include({
        lines: 14,
        sent: 0,
        accepted: 0,
        rejected: 5,
        dryRun: true,
      });
      // Only the server knows the key's campaign, so line 12 passes a dry run.
      expect(readRejects(files.file('dry.ndjson'))).to.deep.equal(expectedRejects().filter((r) => r.line !== 12));
      expect(await stored()).to.deep.equal({ events: 0, conversions: 0 });
      expect(existsSync(`${file}.checkpoint.json`)).to.equal(false);
    });

    it('prints a summary for people without --json', async () => {
      const result = await runCli(['events', 'replay', file], { env });
      expect(result.code).to.equal(1);
      expect(result.stdout).to.match(/14 lines/);
      expect(result.stdout).to.match(/accepted\s+4/);
      expect(result.stdout).to.match(/rejected\s+6\s+→ .*events\.ndjson\.rejects\.ndjson/);
    });
  });

  it('exits 0 when every line is accepted or skipped, and leaves no rejects file', async () => {
    const file = files.file('clean.ndjson');
    await writeLines(file, 30, (n) => pageView(merchant.publicId, n % 3 === 0 ? 'NOBODY' : active));
    const result = await replay([file, '--batch-size', '7']);
    expect(result.code, result.stderr).to.equal(0);
    expect(parseJson(result)).to.deep.include({ lines: 30, accepted: 20, rejected: 0, rejectsFile: null });
    expect(parseJson(result).skipped.unknown_affiliate).to.equal(10);
    expect(existsSync(`${file}.rejects.ndjson`)).to.equal(false);
    expect(await stored()).to.deep.equal({ events: 20, conversions: 0 });
  });

  it('usage errors exit 2: batch size, missing file, missing key', async () => {
    const file = files.file('one.ndjson');
    writeFileSync(file, `${pageView(merchant.publicId, active)}\n`);
    const big = await replay([file, '--batch-size', '1001']);
    expect(big.code).to.equal(2);
    expect(big.stderr).to.include('1 to 1000');
    const missing = await replay([files.file('nope.ndjson')]);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include(`file not found: ${files.file('nope.ndjson')}`);
    expect(missing.stderr).to.not.include('ENOENT');
    const noKey = await replay([file], { AFFILIATED_API_KEY: undefined });
    expect(noKey.code).to.equal(2);
    expect(noKey.stderr).to.include('affiliated config set api-key');
    expect(noKey.stderr).to.include('AFFILIATED_API_KEY');
    // A dry run needs no daemon and no key.
    expect((await replay([file, '--dry-run'], { AFFILIATED_API_KEY: undefined })).code).to.equal(0);
  });

  it('a 401 stops the run at once with the server message and the line reached', async () => {
    const file = files.file('auth.ndjson');
    await writeLines(file, 12, () => pageView(merchant.publicId, active));
    const result = await replay([file, '--batch-size', '5'], {
      AFFILIATED_API_KEY: 'afk_wrongwrongwrongwrongwrongwrong1',
    });
    expect(result.code).to.equal(1);
    const summary = parseJson(result);
    expect(summary.stopped).to.deep.include({
      reason: 'unauthorized',
      statusCode: 401,
      messages: ['Invalid or inactive API Key'],
      line: 1,
      checkpointLine: 0,
    });
    expect(summary.requests).to.equal(1);
    expect(result.stderr).to.include('error 401: Invalid or inactive API Key');
    expect(result.stderr).to.include('at line 1');
    expect(await stored()).to.deep.equal({ events: 0, conversions: 0 });
  });

  it('a revoked key (403 on events) stops after the batches already acknowledged', async () => {
    const strict = await startTestDaemon(t.url, { API_KEY_CACHE_MS: '0' });
    try {
      const file = files.file('revoked.ndjson');
      await writeLines(file, 6, () => pageView(merchant.publicId, active));
      await revokeKey(t.db, merchant.keyId);
      const result = await replay([file, '--batch-size', '3'], { AFFILIATED_BASE_URL: strict.url });
      expect(result.code).to.equal(1);
      expect(parseJson(result).stopped).to.deep.include({
        reason: 'forbidden',
        statusCode: 403,
        messages: ['API Key is revoked or inactive'],
      });
      expect(result.stderr).to.include('error 403: API Key is revoked or inactive');
    } finally {
      await strict.close();
    }
  });

  it('paces itself through a short rate-limit window', async () => {
    const limited = await startTestDaemon(t.url, {
      RATE_LIMIT_EVENTS_PER_MIN: '3',
      RATE_LIMIT_WINDOW_MS: '1000',
    });
    try {
      const file = files.file('paced.ndjson');
      await writeLines(file, 20, (n) => pageView(merchant.publicId, active, { session_id: `s${n}` }));
      const result = await replay([file, '--batch-size', '2'], { AFFILIATED_BASE_URL: limited.url });
      expect(result.code, result.stderr).to.equal(0);
      const summary = parseJson(result);
      expect(summary).to.deep.include({ lines: 20, accepted: 20, stopped: null });
      // Ten requests through a window of three: the run waited for resets instead of earning 429s.
      expect(summary.rateLimitWaits).to.be.at.least(2);
      expect(summary.retries.rateLimited).to.equal(0);
      expect(summary.requests).to.equal(10);
      expect(await stored()).to.deep.equal({ events: 20, conversions: 0 });
    } finally {
      await limited.close();
    }
  });

  it('waits out a 429 (Retry-After) and then delivers everything', async () => {
    const limited = await startTestDaemon(t.url, {
      RATE_LIMIT_EVENTS_PER_MIN: '1',
      RATE_LIMIT_WINDOW_MS: '4000',
    });
    try {
      // Use up the window first, so the replay's first request meets a 429.
      await call(limited.url, 'POST', '/v1/events', { key: merchant.key, body: { events: [] } });
      const file = files.file('limited.ndjson');
      await writeLines(file, 3, (n) => pageView(merchant.publicId, active, { session_id: `s${n}` }));
      const result = await replay([file], { AFFILIATED_BASE_URL: limited.url });
      expect(result.code, result.stderr).to.equal(0);
      const summary = parseJson(result);
      expect(summary.accepted).to.equal(3);
      expect(summary.retries.rateLimited).to.be.at.least(1);
      expect(result.stderr).to.include('rate limited (429)');
    } finally {
      await limited.close();
    }
  });

  it('Ctrl-C finishes the batch in flight and saves; --resume loses and doubles nothing', async () => {
    // Two requests a second, so the run is still going when the signal comes.
    const slow = await startTestDaemon(t.url, {
      RATE_LIMIT_EVENTS_PER_MIN: '2',
      RATE_LIMIT_WINDOW_MS: '1000',
    });
    try {
      const file = files.file('long.ndjson');
      const total = 60;
      await writeLines(file, total, (n) => pageView(merchant.publicId, active, { session_id: `s${n}` }));
      const checkpointFile = `${file}.checkpoint.json`;
      const runEnv = { ...env, AFFILIATED_BASE_URL: slow.url };
      const first = spawnCli(['events', 'replay', file, '--batch-size', '5', '--json'], { env: runEnv });
      // Signal once the first batches are acknowledged.
      while (!existsSync(checkpointFile) || JSON.parse(readFileSync(checkpointFile, 'utf8')).line < 10) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      first.child.kill('SIGINT');
      const interrupted = await first.done;
      expect(interrupted.code, interrupted.stderr).to.equal(1);
      const partial = JSON.parse(interrupted.stdout);
      expect(partial.stopped.reason).to.equal('interrupted');
      const reached = partial.stopped.checkpointLine;
      expect(reached).to.be.at.least(10).and.below(total);
      expect(JSON.parse(readFileSync(checkpointFile, 'utf8')).line).to.equal(reached);
      // What is stored is exactly what was acknowledged.
      expect((await stored()).events).to.equal(reached);

      const resumed = await runCli(['events', 'replay', file, '--batch-size', '5', '--json', '--resume'], {
        env: runEnv,
      });
      expect(resumed.code, resumed.stderr).to.equal(0);
      const summary = parseJson(resumed);
      expect(summary.resumedFromLine).to.equal(reached);
      // Totals cover the whole file; nothing was sent twice (no duplicate skips).
      expect(summary).to.deep.include({ lines: total, accepted: total, rejected: 0 });
      expect(summary.skipped.duplicate_event_id).to.equal(0);
      // The resumed run starts blind to the window the first one used up, so it may meet a 429 first.
      expect(summary.requests - summary.retries.rateLimited).to.equal((total - reached) / 5);
      expect(await stored()).to.deep.equal({ events: total, conversions: 0 });
    } finally {
      await slow.close();
    }
  });

  it('--resume after lines were appended sends only the new lines', async () => {
    const file = files.file('growing.ndjson');
    await writeLines(file, 4, (n) => pageView(merchant.publicId, active, { session_id: `g${n}` }));
    expect((await replay([file])).code).to.equal(0);
    appendFileSync(file, `${pageView(merchant.publicId, active, { session_id: 'g5' })}\n`);
    const resumed = await replay([file, '--resume']);
    expect(resumed.code, resumed.stderr).to.equal(0);
    expect(parseJson(resumed)).to.deep.include({ resumedFromLine: 4, lines: 5, accepted: 5, requests: 1 });
    expect(await stored()).to.deep.equal({ events: 5, conversions: 0 });
  });

  it('--resume refuses a checkpoint made for another file', async () => {
    const file = files.file('a.ndjson');
    await writeLines(file, 3, (n) => pageView(merchant.publicId, active, { session_id: `a${n}` }));
    expect((await replay([file])).code).to.equal(0);
    writeFileSync(file, `${pageView(merchant.publicId, active, { session_id: 'other' })}\n`);
    const result = await replay([file, '--resume']);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('belongs to another file');
    expect(result.stderr).to.include('run without --resume to start over');
  });

  it('keeps memory flat: a file 4 times larger peaks at about the same RSS', async function () {
    this.timeout(300_000);
    // ~2 KB a line, so holding the file would show: 40,000 lines is ~80 MB. Both runs reach the
    // steady state of the sending loop (more batches than are in flight, 3 by default, and than
    // the buffers it keeps). The replay holds V8's young generation at its start-up size, so what
    // is left to move the peak is the pool of batch buffers and the old generation's garbage
    // between collections: a few MB. Holding the larger file's 60 MB more of text (twice that as
    // JavaScript strings), or letting the young generation double (16 MB more), fails the bound.
    const padding = 'x'.repeat(2000);
    const line = (n: number) =>
      pageView(merchant.publicId, active, { session_id: `m${n}`, properties: { note: padding } });
    const small = files.file('small.ndjson');
    const large = files.file('large.ndjson');
    await writeLines(small, 10_000, line);
    await writeLines(large, 40_000, (n) => line(n + 1_000_000));
    const smallRun = parseJson(await replay([small, '--batch-size', '250']));
    const largeRun = await replay([large, '--batch-size', '250']);
    expect(largeRun.code, largeRun.stderr).to.equal(0);
    const largeSummary = parseJson(largeRun);
    expect(largeSummary.accepted).to.equal(40_000);
    const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
    console.log(
      `      peak RSS: ${mb(smallRun.maxRssBytes)} MB for ${mb(statSync(small).size)} MB, ` +
        `${mb(largeSummary.maxRssBytes)} MB for ${mb(statSync(large).size)} MB`,
    );
    expect(largeSummary.maxRssBytes).to.be.below(smallRun.maxRssBytes * 1.15);
  });
});
