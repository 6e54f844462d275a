/**
 * What a bench run does, read once from the environment (docs/benchmarks.md lists the
 * variables). The defaults keep a full run of both engines under 15 minutes on 2 cores;
 * BENCH_QUICK=1 is a smoke run of a minute or two.
 */
export interface BenchOptions {
  quick: boolean;
  /** Rounds per figure; the figure is the median over them. */
  repeats: number;
  /** Seconds of each load-generator run, and of the warm-up before a figure's rounds. */
  durationSec: number;
  warmupSec: number;
  /** Connections the load generator keeps open. */
  connections: number;
  /** Sequential requests per latency sample (search, get by id, the list). */
  samples: number;
  /** Batches of `batchSize` conversions per round of the batch figure. */
  batches: number;
  batchSize: number;
  /** Affiliates of the large campaign (search, list), and conversions of the list figure. */
  affiliates: number;
  conversions: number;
  /** Lines of the replay file, and of the larger file that shows whether memory stays flat (0: skip). */
  replayLines: number;
  replayLinesLarge: number;
  /** The replay's --concurrency (batches in flight); 0: the CLI's default. */
  replayConcurrency: number;
  /** Creations (bcrypt) sent during the p99 figure. */
  bcryptCreations: number;
  /** The daemon's LOG_LEVEL: `info` logs every request, as a default install does. */
  daemonLogLevel: string;
  /** Which groups of figures to run (intake, reads, replay, list); all when empty. */
  only: string[];
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number (got "${raw}")`);
  return n;
}

export function benchOptions(env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const quick = ['1', 'true', 'yes'].includes(env.BENCH_QUICK ?? '');
  return {
    quick,
    repeats: Math.max(1, int(env, 'BENCH_REPEATS', quick ? 1 : 3)),
    durationSec: Math.max(1, int(env, 'BENCH_DURATION', quick ? 2 : 5)),
    warmupSec: int(env, 'BENCH_WARMUP', 1),
    connections: Math.max(1, int(env, 'BENCH_CONNECTIONS', 64)),
    samples: Math.max(5, int(env, 'BENCH_SAMPLES', quick ? 20 : 50)),
    batches: Math.max(1, int(env, 'BENCH_BATCHES', quick ? 10 : 20)),
    batchSize: 500,
    affiliates: Math.max(100, int(env, 'BENCH_AFFILIATES', quick ? 10_000 : 100_000)),
    conversions: int(env, 'BENCH_CONVERSIONS', quick ? 20_000 : 300_000),
    replayLines: Math.max(1_000, int(env, 'BENCH_REPLAY_LINES', quick ? 10_000 : 100_000)),
    replayLinesLarge: int(env, 'BENCH_REPLAY_LINES_LARGE', quick ? 0 : 1_000_000),
    replayConcurrency: int(env, 'BENCH_REPLAY_CONCURRENCY', 0),
    bcryptCreations: int(env, 'BENCH_BCRYPT_CREATIONS', 20),
    daemonLogLevel: env.BENCH_LOG_LEVEL || 'info',
    only: (env.BENCH_ONLY ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
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
