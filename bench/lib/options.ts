/**
 * What a bench run does, read once from the environment (docs/benchmarks.md lists the
 * variables). The defaults keep a full run of both engines under 10 minutes on 2 cores at a
 * load average near 2; BENCH_QUICK=1 is a smoke run of a few minutes.
 */
import { urlList } from '../../test/helpers/cluster.js';

export interface BenchOptions {
  quick: boolean;
  /** Rounds per figure; the figure is the median over them. */
  repeats: number;
  /** Seconds of each load-generator run, and of the warm-up before a figure's rounds. */
  durationSec: number;
  warmupSec: number;
  /** Connections the load generator keeps open, and wrk's threads. */
  connections: number;
  wrkThreads: number;
  /** Sequential requests per latency sample (search, get by id, the list). */
  samples: number;
  /** Batches of `batchSize` conversions per round of the batch figure. */
  batches: number;
  batchSize: number;
  /** Affiliates of the large campaign (search, list), and conversions of the list figure. */
  affiliates: number;
  conversions: number;
  /**
   * Lines of the replay file (the speed figure, and peak memory), of the smaller file peak
   * memory is compared with, and of the larger one that shows whether it stays flat (0: skip).
   */
  replayLines: number;
  replayLinesSmall: number;
  replayLinesLarge: number;
  /** The replay's --concurrency (batches in flight); 0: the CLI's default. */
  replayConcurrency: number;
  /** Conversions the replay's baseline sends a round (its rate is steady long before 50,000). */
  replayBaselineLines: number;
  /** Batches in flight of the replay's baseline, the daemon's best intake; 0: the best of 1 to 4, found each run. */
  intakeInFlight: number;
  /** Creations (bcrypt) sent during the p99 figure. */
  bcryptCreations: number;
  /** The daemon's LOG_LEVEL: `info` logs every request, as a default install does. */
  daemonLogLevel: string;
  /** Which parts or groups of parts to run (intake, single, …); all when empty. */
  only: string[];
  /** BENCH_GALERA=1 (or `galera` in BENCH_ONLY): the Galera figures too (bench/galera.ts), on the nodes of galeraUrls(). */
  galera: boolean;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number (got "${raw}")`);
  return n;
}

const yes = (value: string | undefined) => ['1', 'true', 'yes'].includes(value ?? '');

export function benchOptions(env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const quick = yes(env.BENCH_QUICK);
  const only = (env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    quick,
    repeats: Math.max(1, int(env, 'BENCH_REPEATS', quick ? 1 : 3)),
    durationSec: Math.max(1, int(env, 'BENCH_DURATION', quick ? 2 : 3)),
    warmupSec: int(env, 'BENCH_WARMUP', 1),
    connections: Math.max(1, int(env, 'BENCH_CONNECTIONS', 64)),
    wrkThreads: Math.max(1, int(env, 'BENCH_WRK_THREADS', 2)),
    samples: Math.max(5, int(env, 'BENCH_SAMPLES', quick ? 20 : 50)),
    batches: Math.max(1, int(env, 'BENCH_BATCHES', quick ? 10 : 20)),
    batchSize: 500,
    affiliates: Math.max(100, int(env, 'BENCH_AFFILIATES', quick ? 10_000 : 100_000)),
    conversions: int(env, 'BENCH_CONVERSIONS', quick ? 20_000 : 300_000),
    replayLines: Math.max(1_000, int(env, 'BENCH_REPLAY_LINES', quick ? 10_000 : 400_000)),
    replayLinesSmall: int(env, 'BENCH_REPLAY_LINES_SMALL', quick ? 5_000 : 100_000),
    replayLinesLarge: int(env, 'BENCH_REPLAY_LINES_LARGE', quick ? 0 : 1_000_000),
    replayConcurrency: int(env, 'BENCH_REPLAY_CONCURRENCY', 0),
    replayBaselineLines: Math.max(1_000, int(env, 'BENCH_REPLAY_BASELINE_LINES', quick ? 10_000 : 50_000)),
    intakeInFlight: int(env, 'BENCH_INTAKE_IN_FLIGHT', 0),
    bcryptCreations: int(env, 'BENCH_BCRYPT_CREATIONS', 20),
    daemonLogLevel: env.BENCH_LOG_LEVEL || 'info',
    only,
    // Naming it in BENCH_ONLY asks for it too.
    galera: yes(env.BENCH_GALERA) || only.includes('galera'),
  };
}

/** Whether BENCH_ONLY asks for the part `name` of `group` (everything when it is empty). */
export function wants(options: BenchOptions, group: string, name: string): boolean {
  return options.only.length === 0 || options.only.includes(group) || options.only.includes(name);
}

/** The MySQL/MariaDB server to bench on, if any: BENCH_MYSQL_URL, else TEST_MYSQL_URL. */
export function mysqlUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.BENCH_MYSQL_URL || env.TEST_MYSQL_URL || undefined;
}

/**
 * The Galera nodes to bench on, one mysql:// URL a node: BENCH_GALERA_URLS, else TEST_GALERA_URLS
 * (what `bash scripts/test-cluster.sh` prints), comma-separated; empty when neither is set.
 */
export function galeraUrls(env: NodeJS.ProcessEnv = process.env): string[] {
  return urlList(env.BENCH_GALERA_URLS || env.TEST_GALERA_URLS);
}
