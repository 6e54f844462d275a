import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { readBatches } from '../../cli/commands/events/replay/batches.js';
import type { BatchEvents } from '../../cli/commands/events/replay/body.js';
import type { Position } from '../../cli/commands/events/replay/checkpoint.js';
import type { Clock } from '../../cli/commands/events/replay/clock.js';
import { InOrderCommitter } from '../../cli/commands/events/replay/committer.js';
import type { Delivery } from '../../cli/commands/events/replay/deliver.js';
import { sendBatches, UNRECORDED_PER_SLOT } from '../../cli/commands/events/replay/loop.js';
import { StopRun } from '../../cli/commands/events/replay/stop.js';
import { emptyTotals } from '../../cli/commands/events/replay/totals.js';

const LINES = 40;
const BATCH = 2;
const CONCURRENCY = 3;

/** A promise and the function that settles it. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open: (value: T) => void = () => {};
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
/**
 * Waits until `done()` holds (or 5 s pass), then 50 turns of the event loop more, so whatever
 * else the loop would still send has had its chance. The file is read on libuv's thread pool,
 * which other work in the same process can keep busy: a fixed number of turns is not enough.
 */
async function settle(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
  for (let i = 0; i < 50; i++) await tick();
}

describe('replay: the sending loop', () => {
  let dir: string;
  let file: string;
  const clock: Clock = { now: () => Date.now(), sleep: async () => {} };

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-loop-'));
    file = path.join(dir, 'events.ndjson');
    const line = (n: number) => JSON.stringify({ event_type: 'lead', event_id: `e${n}` });
    writeFileSync(file, Array.from({ length: LINES }, (_, i) => `${line(i + 1)}\n`).join(''));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function run(send: (events: BatchEvents) => Promise<Delivery>, save?: (at: Position) => Promise<void>) {
    const committer = new InOrderCommitter({
      from: { line: 0, bytes: 0 },
      totals: emptyTotals(),
      rejects: { write: async () => {} },
      save: save && ((at) => save(at)),
      clock,
    });
    const controller = new AbortController();
    const done = sendBatches(readBatches({ file, fromByte: 0, fromLine: 0, batchSize: BATCH }), committer, {
      concurrency: CONCURRENCY,
      signal: controller.signal,
      send,
    });
    return { committer, done, abort: () => controller.abort() };
  }
  const delivered = (events: BatchEvents): Delivery => ({ accepted: events.count, skipped: [], rejected: [] });

  it('holds at most UNRECORDED_PER_SLOT × concurrency batches behind a slow one, then records them in order', async () => {
    const firstLines: number[] = [];
    const slow = gate();
    let first = true;
    const { committer, done } = run(async (events) => {
      firstLines.push(events.lineOf(0));
      if (first) {
        first = false;
        // The first batch goes alone; once it is acknowledged, the second is held up.
        return delivered(events);
      }
      if (firstLines.length === 2) await slow.promise;
      return delivered(events);
    });
    await settle(() => firstLines.length >= 1 + UNRECORDED_PER_SLOT * CONCURRENCY);
    // Batch 1 is out and stuck; those after it came back but wait for it to be recorded.
    expect(firstLines.length).to.equal(1 + UNRECORDED_PER_SLOT * CONCURRENCY);
    expect(committer.acknowledged.line).to.equal(BATCH);
    slow.open();
    await done;
    expect(firstLines).to.deep.equal(Array.from({ length: LINES / BATCH }, (_, i) => i * BATCH + 1));
    expect(committer.acknowledged.line).to.equal(LINES);
  });

  it('sends nothing more once a stop comes back, even while an earlier batch is still out', async () => {
    const slow = gate();
    let sent = 0;
    const { committer, done } = run(async (events) => {
      sent++;
      if (sent === 1) return delivered(events);
      if (sent === 2) {
        await slow.promise;
        return delivered(events);
      }
      if (sent === 3) throw new StopRun('forbidden', 'key revoked', 403, ['API key revoked']);
      return delivered(events);
    });
    await settle(() => sent >= 3);
    // The stop (batch 2) came back while batch 1 was out: at most batch 3 went out after it, where
    // three slots would otherwise have let batches out up to UNRECORDED_PER_SLOT × 3 past batch 1.
    expect(sent).to.be.at.most(4);
    slow.open();
    await done;
    expect(committer.stopped).to.include({ reason: 'forbidden', line: 2 * BATCH + 1, checkpointLine: 2 * BATCH });
  });

  it('keeps sending while a checkpoint is being written', async () => {
    const disk = gate();
    let saving = false;
    let sentWhileSaving = 0;
    const { committer, done } = run(
      async (events) => {
        if (saving) sentWhileSaving++;
        return delivered(events);
      },
      async () => {
        if (saving) return;
        saving = true;
        await disk.promise;
        saving = false;
      },
    );
    await settle(() => sentWhileSaving >= CONCURRENCY);
    // The first save (after the first batch) is stuck on the disk; batches still go out.
    expect(sentWhileSaving).to.be.at.least(CONCURRENCY);
    disk.open();
    await done;
    expect(committer.acknowledged.line).to.equal(LINES);
  });
});
