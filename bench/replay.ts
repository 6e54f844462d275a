/**
 * `affiliated events replay` of a generated NDJSON file of conversions, the real CLI against a
 * daemon child: events/s beside the same conversions POSTed in batches of 500 one at a time, and
 * the replay's peak RSS (100,000 lines, and 1,000,000 to see whether it stays flat). The lines
 * are what an export holds (an event_id and a session each); the baseline sends the same kind.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/replay.ts [sqlite|mysql]`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeLines } from '../test/helpers/replay.js';
import { childEnv } from './lib/child.js';
import { runIfMain } from './lib/direct.js';
import { CLI } from './lib/daemon.js';
import { activeCodes, conversionEvent, sendConversionBatches } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { runWithPeakRss } from './lib/rss.js';
import { seedAffiliates, type Stage, withStage } from './lib/stage.js';
import { medianOfRounds } from './lib/stats.js';

const RATIO_TARGET = 0.8;
const RSS_TARGET_MB = 120;
/** "Flat": the larger file may cost at most this much more memory than the smaller. */
const FLAT_TARGET = 1.1;

interface ReplayRun {
  eventsPerSec: number;
  peakRssMb: number;
}

/**
 * A line as an export holds it: a conversion with its own event_id (which the intake dedupes
 * on, so it reads back which rows were new) and a session; order ids unique to `tag`.
 */
function exportedConversion(publicId: string, codes: readonly string[], tag: string, n: number) {
  return { ...conversionEvent(publicId, codes, tag, n), event_id: `${tag}-e${n}`, session_id: `s-${tag}-${n % 9973}` };
}

/** Replays `lines` fresh conversions (order ids unique to `tag`) through the built CLI. */
async function replayOnce(
  stage: Stage,
  codes: readonly string[],
  lines: number,
  tag: string,
  opts: BenchOptions,
): Promise<ReplayRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-bench-replay-'));
  try {
    const file = path.join(dir, `${tag}.ndjson`);
    const { publicId, key } = stage.merchant;
    await writeLines(file, lines, (n) => JSON.stringify(exportedConversion(publicId, codes, tag, n)));
    const env = childEnv({
      CI: 'true',
      AFFILIATED_CONFIG: path.join(dir, 'config.json'),
      AFFILIATED_BASE_URL: stage.daemon.url,
      AFFILIATED_API_KEY: key,
    });
    delete env.AFFILIATED_PROFILE;
    const args = [
      '--batch-size',
      String(opts.batchSize),
      ...(opts.replayConcurrency ? ['--concurrency', String(opts.replayConcurrency)] : []),
    ];
    const run = await runWithPeakRss([CLI, 'events', 'replay', file, '--json', ...args], env, dir);
    if (run.code !== 0) throw new Error(`events replay exited ${run.code}: ${(run.stderr || run.stdout).slice(-500)}`);
    const summary = JSON.parse(run.stdout) as { accepted: number; durationMs: number };
    if (summary.accepted !== lines) throw new Error(`events replay accepted ${summary.accepted} of ${lines} lines`);
    return { eventsPerSec: lines / (summary.durationMs / 1000), peakRssMb: run.peakRssMb };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchReplay(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async (stage) => {
      const codes = await activeCodes(stage.db, stage.merchant.campaignId);
      const lines = opts.replayLines;
      // The baseline's rate does not depend on its length past a few batches: it sends as many
      // as the batch figure does, which keeps a full run within its time.
      const direct = (tag: string) =>
        sendConversionBatches(stage.daemon.url, stage.merchant.key, stage.merchant.publicId, codes, {
          batches: Math.min(opts.batches, Math.ceil(lines / opts.batchSize)),
          size: opts.batchSize,
          tag,
          event: (n) => exportedConversion(stage.merchant.publicId, codes, tag, n),
        });
      await direct('warm').catch(() => undefined);
      const m = await medianOfRounds(opts.repeats, async (round) => {
        const replayed = await replayOnce(stage, codes, lines, `replay${round}`, opts);
        return {
          replay: replayed.eventsPerSec,
          rss: replayed.peakRssMb,
          direct: await direct(`direct${round}`),
        };
      });
      const count = lines.toLocaleString('en');
      const figures = [
        makeFigure({
          name: `events replay of ${count} conversions`,
          engine,
          value: m.replay,
          unit: 'events/s',
          baseline: m.direct,
          baselineName: `the same POSTed in batches of ${opts.batchSize}, one at a time`,
          note: `${opts.replayConcurrency ? `--concurrency ${opts.replayConcurrency}` : "the CLI's default --concurrency"}; baseline: ${Math.min(opts.batches * opts.batchSize, lines).toLocaleString('en')} of them a round`,
          target: { on: 'ratio', op: '>=', limit: RATIO_TARGET },
        }),
      ];
      // Memory is the CLI's, whatever the engine: measured once, on SQLite.
      if (engine !== 'sqlite') return figures;
      const idle = await runWithPeakRss([CLI, '--version'], childEnv({ CI: 'true' }));
      figures.push(
        makeFigure({
          name: `events replay peak RSS, ${count} lines`,
          engine,
          value: m.rss,
          unit: 'MB',
          baseline: idle.peakRssMb,
          baselineName: '`affiliated --version`',
          target: { on: 'value', op: '<=', limit: RSS_TARGET_MB },
        }),
      );
      if (opts.replayLinesLarge > lines) {
        const large = await replayOnce(
          stage,
          codes,
          opts.replayLinesLarge,
          `large${randomBytes(2).toString('hex')}`,
          opts,
        );
        figures.push(
          makeFigure({
            name: `events replay peak RSS, ${opts.replayLinesLarge.toLocaleString('en')} lines`,
            engine,
            value: large.peakRssMb,
            unit: 'MB',
            baseline: m.rss,
            baselineName: `${count} lines`,
            target: [
              { on: 'value', op: '<=', limit: RSS_TARGET_MB },
              { on: 'ratio', op: '<=', limit: FLAT_TARGET },
            ],
            note: `one run, ${Math.round(large.eventsPerSec).toLocaleString('en')} events/s`,
          }),
        );
      }
      return figures;
    },
    seedAffiliates(100),
    `replay-${engine}`,
  );
}

await runIfMain(import.meta.url, { replay: benchReplay });
