/**
 * `affiliated events replay` of a generated NDJSON file of conversions, the real CLI against a
 * daemon child: events/s beside the daemon's best batched intake in the same run (batches of
 * 500, as many in flight as serve it best, found each run), and the replay's peak RSS at
 * BENCH_REPLAY_LINES_SMALL, BENCH_REPLAY_LINES and BENCH_REPLAY_LINES_LARGE lines (100,000,
 * 400,000 and 1,000,000), which must stay flat. The lines are what an export holds (each its
 * own event_id, order id, session, customer, page, value, one of many products, over every
 * affiliate of the campaign); the baseline sends the same kind.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/replay.ts [sqlite|mysql]`.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { boundOf } from './lib/bound.js';
import { childEnv, profileFlags } from './lib/child.js';
import { type CpuShares, medianShares, watchCpu, whileWatching } from './lib/cpu.js';
import { CLI } from './lib/daemon.js';
import { runIfMain } from './lib/direct.js';
import { EXPORT_PRODUCTS, exportedConversion, exportOrderValue } from '../test/helpers/exportLine.js';
import { activeCodes, sendConversionBatches } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import { memoryShape, runWithPeakRss } from './lib/rss.js';
import { seedAffiliates, type Stage, withStage } from './lib/stage.js';
import { median } from './lib/stats.js';

const RATIO_TARGET = 0.8;
const RSS_TARGET_MB = 100;
/** "Flat": a larger file may cost at most this much more memory than the smaller one. */
const FLAT_TARGET = 1.1;
/** Batches in flight the baseline tries, to find what serves the daemon best. */
const IN_FLIGHT_CHOICES = [1, 2, 3, 4];
/** Batches each choice is tried with (a fifth of a round's, within these bounds): past the first flushes. */
const SWEEP_BATCHES = { min: 10, max: 40 };
const CLI_NAME = 'replay CLI';

interface ReplayRun {
  eventsPerSec: number;
  peakRssMb: number;
  shares: CpuShares;
  memory: string;
}

/** A line of the file (and of the baseline's batches): a conversion of `codes`' n-th affiliate, as an export holds it. */
const exportLine = (publicId: string, codes: readonly string[], tag: string, n: number) =>
  exportedConversion({ campaign: publicId, affiliate: codes[n % codes.length] ?? '', tag, n });

/**
 * Writes `lines` of exportedConversion as JSON, a megabyte at a time. The lines are written from
 * a template rather than by JSON.stringify of each object, which took 4 s per 400,000 lines (40 s
 * of a full run); the first lines are checked against JSON.stringify, so the two cannot drift apart.
 */
export async function writeConversionFile(
  file: string,
  lines: number,
  publicId: string,
  codes: readonly string[],
  tag: string,
) {
  const campaign = JSON.stringify(publicId);
  const quoted = codes.map((code) => JSON.stringify(code));
  const line = (n: number) => {
    const code = quoted[n % quoted.length] ?? '""';
    return (
      `{"event_type":"conversion","campaign_id":${campaign},"affiliate_id":${code},` +
      `"properties":{"order_id":"${tag}-${n}","order_value":${exportOrderValue(n)},"product":"Plano ${n % EXPORT_PRODUCTS}",` +
      `"customer_email":"c${n}@${tag}.example","url":"https://shop.example/checkout/${tag}-${n}?utm_source=${code.slice(1, -1)}"},` +
      `"event_id":"${tag}-e${n}","session_id":"s-${tag}-${n}"}`
    );
  };
  for (const n of [1, 2, 3, 7]) {
    if (line(n) !== JSON.stringify(exportLine(publicId, codes, tag, n))) {
      throw new Error(
        'the replay file template no longer writes exportedConversion (test/helpers/exportLine.ts): update one to match the other',
      );
    }
  }
  const out = await fs.open(file, 'w');
  try {
    let chunk = '';
    for (let n = 1; n <= lines; n++) {
      chunk += `${line(n)}\n`;
      if (chunk.length >= 1 << 20) {
        await out.write(chunk);
        chunk = '';
      }
    }
    await out.write(chunk);
  } finally {
    await out.close();
  }
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
    await writeConversionFile(file, lines, publicId, codes, tag);
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
    const cpu = watchCpu({ daemon: stage.daemon.pid, ...stage.databaseServer });
    const run = await runWithPeakRss(
      [...profileFlags(`replayCli-${stage.engine}`), CLI, 'events', 'replay', file, '--json', ...args],
      env,
      dir,
    );
    const shares = cpu.stop({ [CLI_NAME]: run.cpuMs });
    if (run.code !== 0) throw new Error(`events replay exited ${run.code}: ${(run.stderr || run.stdout).slice(-500)}`);
    const summary = JSON.parse(run.stdout) as { accepted: number; durationMs: number };
    if (summary.accepted !== lines) throw new Error(`events replay accepted ${summary.accepted} of ${lines} lines`);
    return {
      eventsPerSec: lines / (summary.durationMs / 1000),
      peakRssMb: run.peakRssMb,
      shares,
      memory: memoryShape(run),
    };
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
      const intake = (tag: string, batches: number, inFlight: number) =>
        sendConversionBatches(stage.daemon.url, stage.merchant.key, stage.merchant.publicId, codes, {
          batches,
          size: opts.batchSize,
          tag,
          inFlight,
          event: (n) => exportLine(stage.merchant.publicId, codes, tag, n),
        });
      await intake('warm', 6, 2);
      // Its rate is steady long before the replay's 400,000 (no trend from one 25,000 to the next
      // within 100,000): 50,000 a round keeps a full run within its time. It runs right after
      // each replay, on tables of the same size.
      const baselineBatches = Math.ceil(Math.min(lines, opts.replayBaselineLines) / opts.batchSize);
      // The daemon's best intake: as many batches in flight as serve it best, on this machine now.
      const choices = opts.intakeInFlight > 0 ? [opts.intakeInFlight] : IN_FLIGHT_CHOICES;
      const sweepBatches = Math.min(SWEEP_BATCHES.max, Math.max(SWEEP_BATCHES.min, Math.ceil(baselineBatches / 5)));
      const sweep: Array<[number, number]> = [];
      for (const n of choices) sweep.push([n, await intake(`sweep${n}`, sweepBatches, n)]);
      const [inFlight] = sweep.reduce((best, s) => (s[1] > best[1] ? s : best));
      const replays: ReplayRun[] = [];
      const baselines: Array<{ rate: number; shares: CpuShares }> = [];
      for (let round = 0; round < opts.repeats; round++) {
        const replay = await replayOnce(stage, codes, lines, `replay${round}`, opts);
        replays.push(replay);
        const pids = { daemon: stage.daemon.pid, 'bench (client)': process.pid, ...stage.databaseServer };
        const b = await whileWatching(pids, () => intake(`direct${round}`, baselineBatches, inFlight));
        baselines.push({ rate: b.value, shares: b.shares });
        console.log(
          `    (${stage.engine}, round ${round + 1}: replay ${Math.round(replay.eventsPerSec).toLocaleString('en')} events/s, ` +
            `baseline ${Math.round(b.value).toLocaleString('en')} events/s, ratio ${(replay.eventsPerSec / b.value).toFixed(2)})`,
        );
      }
      const replayShares = medianShares(replays.map((r) => r.shares));
      const baselineShares = medianShares(baselines.map((b) => b.shares));
      const count = lines.toLocaleString('en');
      const swept = sweep.map(([n, rate]) => `${n}: ${Math.round(rate).toLocaleString('en')}`).join(', ');
      // Each round's own ratio, so a reader sees how far the rounds agree.
      const perRound = replays.map((r, i) => (r.eventsPerSec / (baselines[i]?.rate ?? Number.NaN)).toFixed(2));
      const figures = [
        makeFigure({
          name: `events replay of ${count} conversions`,
          engine,
          value: median(replays.map((r) => r.eventsPerSec)),
          unit: 'events/s',
          baseline: median(baselines.map((b) => b.rate)),
          baselineName: `the daemon's best intake: the same POSTed in batches of ${opts.batchSize}, ${inFlight} in flight`,
          note:
            `${opts.replayConcurrency ? `--concurrency ${opts.replayConcurrency}` : "the CLI's default --concurrency"}; ` +
            `baseline: ${(baselineBatches * opts.batchSize).toLocaleString('en')} a round; batches in flight tried, events/s: ${swept}; ` +
            `each round's ratio: ${perRound.join(', ')}`,
          target: { on: 'ratio', op: '>=', limit: RATIO_TARGET },
          bound: `${boundOf(CLI_NAME, replayShares, 'the daemon')}; baseline: ${boundOf('daemon', baselineShares)}`,
          cpu: { measured: replayShares, baseline: baselineShares },
        }),
      ];
      // Memory is the CLI's, whatever the engine: measured on SQLite only.
      if (engine !== 'sqlite') return figures;
      return [...figures, ...(await memoryFigures(stage, codes, replays, opts))];
    },
    seedAffiliates(100),
    `replay-${engine}`,
  );
}

/**
 * Peak RSS at the smaller file (beside the program loaded and idle), at the speed figure's
 * file (the median of its rounds) and at the larger file (one run), each of the last two beside
 * the smaller: flat means memory does not depend on the file's length.
 */
async function memoryFigures(
  stage: Stage,
  codes: readonly string[],
  replays: readonly ReplayRun[],
  opts: BenchOptions,
): Promise<Figure[]> {
  const engine = stage.engine;
  const idle = await runWithPeakRss([CLI, '--version'], childEnv({ CI: 'true' }));
  // The round whose peak is the median: the one the figure quotes.
  const middle = [...replays].sort((a, b) => a.peakRssMb - b.peakRssMb)[Math.floor(replays.length / 2)];
  const atLines = median(replays.map((r) => r.peakRssMb));
  const figures: Figure[] = [];
  const idleName = '`affiliated --version`';
  /** Against the idle program: the target is the value; against a smaller file, also flatness. */
  const rssFigure = (lines: number, run: ReplayRun | undefined, value: number, baseline: number, baseName: string) =>
    makeFigure({
      name: `events replay peak RSS, ${lines.toLocaleString('en')} lines`,
      engine,
      value,
      unit: 'MB',
      baseline,
      baselineName: baseName,
      target:
        baseName === idleName
          ? { on: 'value', op: '<=', limit: RSS_TARGET_MB }
          : [
              { on: 'value', op: '<=', limit: RSS_TARGET_MB },
              { on: 'ratio', op: '<=', limit: FLAT_TARGET },
            ],
      bound: run?.memory,
    });
  if (opts.replayLinesSmall > 0 && opts.replayLinesSmall < opts.replayLines) {
    const small = await replayOnce(stage, codes, opts.replayLinesSmall, `small${randomBytes(2).toString('hex')}`, opts);
    figures.push(rssFigure(opts.replayLinesSmall, small, small.peakRssMb, idle.peakRssMb, idleName));
    const base = `${opts.replayLinesSmall.toLocaleString('en')} lines`;
    figures.push(rssFigure(opts.replayLines, middle, atLines, small.peakRssMb, base));
    if (opts.replayLinesLarge > opts.replayLines) {
      const large = await replayOnce(
        stage,
        codes,
        opts.replayLinesLarge,
        `large${randomBytes(2).toString('hex')}`,
        opts,
      );
      const figure = rssFigure(opts.replayLinesLarge, large, large.peakRssMb, small.peakRssMb, base);
      figure.note = `one run, ${Math.round(large.eventsPerSec).toLocaleString('en')} events/s`;
      figures.push(figure);
    }
  } else {
    figures.push(rssFigure(opts.replayLines, middle, atLines, idle.peakRssMb, idleName));
  }
  return figures;
}

export const parts: Part[] = [part('replay', 'replay', benchReplay)];

await runIfMain(import.meta.url, parts);
