import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { type Batch, readBatches } from '../../cli/commands/events/replay/batches.js';
import { type Checkpoint, checkpointSaver, readCheckpoint } from '../../cli/commands/events/replay/checkpoint.js';
import type { Clock } from '../../cli/commands/events/replay/clock.js';
import { InOrderCommitter, type Outcome } from '../../cli/commands/events/replay/committer.js';
import type { Delivery } from '../../cli/commands/events/replay/deliver.js';
import { RejectsFile } from '../../cli/commands/events/replay/rejects.js';
import { StopRun } from '../../cli/commands/events/replay/stop.js';
import { emptyTotals } from '../../cli/commands/events/replay/totals.js';

const event = (n: number) =>
  JSON.stringify({ event_type: 'page_view', campaign_id: 'shop', affiliate_id: 'ANA1', session_id: `s${n}` });

/**
 * Eight lines read by the real batch reader, two events a batch: lines 2 and 6 are refused
 * locally (not JSON), the others are events. Batches: lines 1-3, 4-5, 6-8, then the end (empty).
 */
const LINES = [event(1), 'not json', event(3), event(4), event(5), '{broken', event(7), event(8)];

const delivered = (delivery: Partial<Delivery>, sent = 2): Outcome => ({
  kind: 'delivered',
  delivery: { accepted: 0, skipped: [], rejected: [], ...delivery },
  sent,
});
/** The daemon's answers: it refuses lines 1 and 7, and skips line 8 as a duplicate. */
const ANSWERS: Outcome[] = [
  delivered({ accepted: 1, rejected: [{ line: 1, reasons: ['affiliate_id is unknown'] }] }),
  delivered({ accepted: 2 }),
  delivered({
    rejected: [{ line: 7, reasons: ['affiliate_id is unknown'] }],
    skipped: [{ line: 8, reason: 'duplicate_event_id' }],
  }),
  delivered({}, 0),
];

describe('replay: the in-order committer', () => {
  let dir: string;
  let input: string;
  let rejects: RejectsFile;
  let now: number;
  const clock: Clock = { now: () => now, sleep: async () => {} };
  let batches: Batch[];

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-committer-'));
    input = path.join(dir, 'events.ndjson');
    writeFileSync(input, LINES.map((line) => `${line}\n`).join(''));
    batches = [];
    for await (const batch of readBatches({ file: input, fromByte: 0, fromLine: 0, batchSize: 2 })) {
      batches.push(batch);
    }
    rejects = await RejectsFile.fresh(path.join(dir, 'rejects.ndjson'), false);
    now = 0;
  });
  afterEach(async () => {
    await rejects.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const batch = (seq: number): Batch => {
    const found = batches[seq];
    if (!found) throw new Error(`no batch ${seq}`);
    return found;
  };
  const checkpointFile = () => path.join(dir, 'events.ndjson.checkpoint.json');
  function committer() {
    return new InOrderCommitter({
      from: { line: 0, bytes: 0 },
      totals: emptyTotals(),
      rejects,
      save: checkpointSaver(checkpointFile(), { file: input, fingerprint: 'f', fingerprintBytes: 0 }, rejects, clock),
      clock,
    });
  }
  const rejectedLines = () =>
    readFileSync(rejects.path, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((row) => (JSON.parse(row) as { line: number }).line);
  async function saved(): Promise<Checkpoint | undefined> {
    const read = await readCheckpoint(checkpointFile());
    return read.kind === 'ok' ? read.checkpoint : undefined;
  }

  it('reads the file as the batches these tests assume', () => {
    expect(batches.map((b) => [b.firstLine, b.lastLine, b.last])).to.deep.equal([
      [1, 3, false],
      [4, 5, false],
      [6, 8, false],
      [0, 8, true],
    ]);
  });

  it('moves the checkpoint and writes rejects only in line order, whatever order answers come in', async () => {
    const c = committer();
    c.accept(batch(2), ANSWERS[2] as Outcome);
    c.accept(batch(3), ANSWERS[3] as Outcome);
    await c.commitReady();
    // The later batches are answered, but the first is not: nothing is recorded yet.
    expect(await saved()).to.equal(undefined);
    expect(rejects.bytes).to.equal(0);
    expect(c.acknowledged.line).to.equal(0);

    c.accept(batch(0), ANSWERS[0] as Outcome);
    await c.commitReady();
    expect(rejectedLines()).to.deep.equal([1, 2]);
    expect((await saved())?.line).to.equal(3);
    expect(c.acknowledged.line).to.equal(3);

    now += 1000;
    c.accept(batch(1), ANSWERS[1] as Outcome);
    await c.commitReady();
    // Batch 1 unblocks the two waiting behind it: every row in line order, local and daemon's mixed.
    expect(rejectedLines()).to.deep.equal([1, 2, 6, 7]);
    const last = await saved();
    expect(last).to.include({ line: 8, bytes: batch(3).end, done: true });
    expect(last?.rejects.bytes).to.equal(rejects.bytes);
    expect(last?.totals).to.deep.include({ lines: 8, sent: 6, accepted: 3, rejected: 4 });
    expect(last?.totals.skipped.duplicate_event_id).to.equal(1);
    expect(c.stopped).to.equal(undefined);
  });

  it('ends at the first stop in line order: later answers are dropped, the checkpoint stays before it', async () => {
    const c = committer();
    c.accept(batch(2), ANSWERS[2] as Outcome);
    c.accept(batch(1), { kind: 'stopped', stop: new StopRun('forbidden', 'key revoked', 403, ['API key revoked']) });
    c.accept(batch(0), ANSWERS[0] as Outcome);
    await c.commitReady();
    c.accept(batch(3), ANSWERS[3] as Outcome);
    await c.commitReady();
    expect(c.stopped).to.deep.equal({
      reason: 'forbidden',
      message: 'key revoked',
      statusCode: 403,
      messages: ['API key revoked'],
      line: 4,
      checkpointLine: 3,
    });
    expect(rejectedLines()).to.deep.equal([1, 2]);
    await c.flush();
    const last = await saved();
    expect(last).to.include({ line: 3, done: false });
    expect(last?.totals).to.deep.include({ lines: 3, accepted: 1, rejected: 2 });
  });

  it('saves at most once a second while batches come, and the rest when flushed', async () => {
    const c = committer();
    c.accept(batch(0), ANSWERS[0] as Outcome);
    await c.commitReady();
    expect((await saved())?.line).to.equal(3);
    now += 500;
    c.accept(batch(1), ANSWERS[1] as Outcome);
    await c.commitReady();
    expect(c.acknowledged.line).to.equal(5);
    expect((await saved())?.line, 'not yet: the last save was half a second ago').to.equal(3);
    c.stop('interrupted', 'interrupted', batch(2).firstLine);
    await c.flush();
    expect(await saved()).to.include({ line: 5, done: false });
    expect(c.stopped).to.include({ reason: 'interrupted', line: 6, checkpointLine: 5 });
  });

  it('keeps an unexpected error for the run to rethrow, and records nothing after it', async () => {
    const c = committer();
    const error = new Error('disk on fire');
    c.accept(batch(0), { kind: 'failed', error });
    c.accept(batch(1), ANSWERS[1] as Outcome);
    await c.commitReady();
    expect(c.failure?.error).to.equal(error);
    expect(c.ended).to.equal(true);
    expect(c.acknowledged.line).to.equal(0);
    await c.flush();
    expect(await saved()).to.equal(undefined);
  });

  it('a stop before any answer names the line after the checkpoint', () => {
    const c = new InOrderCommitter({ from: { line: 40, bytes: 900 }, totals: emptyTotals(), rejects, clock });
    c.stop('network', 'no daemon answers', 0);
    expect(c.stopped).to.include({ line: 41, checkpointLine: 40 });
  });
});
