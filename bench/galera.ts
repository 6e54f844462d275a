/**
 * Galera figures (BENCH_GALERA=1): single page views and conversions in batches of 500 through
 * (a) a daemon on each node of a Galera cluster, the load spread over them, and (b) one daemon
 * on one node of the same cluster, each beside (c) one daemon on plain MariaDB (the server of
 * BENCH_MYSQL_URL or TEST_MYSQL_URL), in the same run, rounds interleaved. With the nodes on one
 * machine the ratios are what certification and replication cost, not what more machines give.
 *
 * Run alone (after `npm run build`, the cluster running, a MariaDB URL set):
 * `node --import tsx bench/galera.ts`.
 */
import os from 'node:os';
import { clusterConflicts } from '../test/helpers/cluster.js';
import type { Merchant } from '../test/helpers/daemon.js';
import { boundOf } from './lib/bound.js';
import type { Child } from './lib/child.js';
import { checkCluster, type ClusterStage, withClusterStage } from './lib/cluster.js';
import { type CpuShares, medianShares, watchCpu } from './lib/cpu.js';
import { runIfMain } from './lib/direct.js';
import { activeCodes, pageViewRequest, sendConversionBatches } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import { loadOk } from './lib/load.js';
import { type BenchOptions, galeraUrls } from './lib/options.js';
import type { Part } from './lib/part.js';
import { formatNumber } from './lib/results.js';
import { seedAffiliates, type Stage, withStage } from './lib/stage.js';
import { median } from './lib/stats.js';

/** One way of serving: its daemons, the load spread over them, and what it runs on. */
interface Setup {
  key: 'plain' | 'one' | 'all';
  daemons: Child[];
  merchant: Merchant;
  /** Referral codes of the campaign's active affiliates, and its page view request. */
  codes: string[];
  pageView: Awaited<ReturnType<typeof pageViewRequest>>;
  /** Processes to watch: the daemons first ("daemon", or "daemon 1"…), then the database servers. */
  watch: Record<string, number>;
  /** Galera's conflict counters summed over the nodes (none on plain MariaDB). */
  conflicts?: () => Promise<number>;
}

interface Sample {
  rate: number;
  p99Ms: number;
  shares: CpuShares;
  /**
   * Transactions the cluster refused at commit or aborted to apply another node's during the run,
   * on every node: other work on the cluster counts too.
   */
  conflicts: number;
}

const sum = (xs: readonly number[]) => xs.reduce((total, x) => total + x, 0);

/** `total` split as evenly as whole numbers allow: 64 connections over 3 daemons are 22 + 21 + 21. */
function split(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

async function measure(
  setup: Setup,
  work: () => Promise<{ rate: number; p99Ms: number; wrkCpuMs?: number }>,
): Promise<Sample> {
  const before = (await setup.conflicts?.()) ?? 0;
  const cpu = watchCpu(setup.watch);
  const result = await work();
  const shares = cpu.stop(result.wrkCpuMs === undefined ? {} : { wrk: result.wrkCpuMs });
  const after = (await setup.conflicts?.()) ?? 0;
  return { rate: result.rate, p99Ms: result.p99Ms, shares, conflicts: after - before };
}

/**
 * Page views from `opts.connections` connections in all, split over a wrk per daemon (one thread
 * each when there are several: a wrk needs a few % of a core here): the setup's rate is the sum,
 * its p99 the highest of the wrk runs' (wrk gives percentiles, not the latencies to merge).
 */
function pageViews(setup: Setup, opts: BenchOptions, durationSec: number): Promise<Sample> {
  return measure(setup, async () => {
    const connections = split(opts.connections, setup.daemons.length);
    const runs = await Promise.all(
      setup.daemons.map((daemon, i) =>
        loadOk({
          url: `${daemon.url}/v1/events`,
          ...setup.pageView,
          connections: connections[i] ?? 1,
          durationSec,
          threads: setup.daemons.length > 1 ? 1 : opts.wrkThreads,
        }),
      ),
    );
    return {
      rate: sum(runs.map((r) => r.reqPerSec)),
      p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
      wrkCpuMs: sum(runs.map((r) => r.generatorCpuMs)),
    };
  });
}

/** `count` batches of 500 conversions, `inFlight` at a time, round-robin over the setup's daemons. */
function batches(setup: Setup, opts: BenchOptions, inFlight: number, tag: string, count: number): Promise<Sample> {
  return measure(setup, async () => ({
    rate: await sendConversionBatches(
      setup.daemons.map((daemon) => daemon.url),
      setup.merchant.key,
      setup.merchant.publicId,
      setup.codes,
      { batches: count, size: opts.batchSize, tag: `${setup.key}-${tag}`, inFlight },
    ),
    p99Ms: Number.NaN,
  }));
}

/** Warm-up, then `opts.repeats` rounds, each measuring every setup in turn (so all meet the same machine). */
async function rounds(
  setups: readonly Setup[],
  warmUp: (setup: Setup) => Promise<unknown>,
  run: (setup: Setup, round: number) => Promise<Sample>,
  repeats: number,
): Promise<Map<Setup['key'], Sample[]>> {
  for (const setup of setups) await warmUp(setup);
  const samples = new Map<Setup['key'], Sample[]>(setups.map((s) => [s.key, []]));
  for (let round = 0; round < repeats; round++)
    for (const setup of setups) samples.get(setup.key)?.push(await run(setup, round));
  return samples;
}

/** The medians of a setup's samples, and what bounded its first daemon. */
function summary(samples: readonly Sample[], daemon: string) {
  const shares = medianShares(samples.map((s) => s.shares));
  return {
    rate: median(samples.map((s) => s.rate)),
    p99Ms: median(samples.map((s) => s.p99Ms)),
    conflicts: median(samples.map((s) => s.conflicts)),
    shares,
    bound: boundOf(daemon, shares, 'the database (commits, certification, round trips) or its client'),
  };
}

type Summary = ReturnType<typeof summary>;

/** The three setups: plain MariaDB, one daemon on node 1, a daemon on every node. */
async function setupsOf(plainStage: Stage, galera: ClusterStage, nodes: readonly string[]): Promise<Setup[]> {
  const conflicts = async () => {
    const c = await clusterConflicts(nodes);
    return c.certificationFailures + c.bruteForceAborts;
  };
  const [first] = galera.daemons;
  if (!first) throw new Error('no daemon on the cluster');
  const campaign = {
    merchant: galera.merchant,
    codes: await activeCodes(galera.db, galera.merchant.campaignId),
    pageView: await pageViewRequest(galera.db, galera.merchant),
  };
  const daemons = Object.fromEntries(galera.daemons.map((d, i) => [`daemon ${i + 1}`, d.pid]));
  return [
    {
      key: 'plain',
      daemons: [plainStage.daemon],
      merchant: plainStage.merchant,
      codes: await activeCodes(plainStage.db, plainStage.merchant.campaignId),
      pageView: await pageViewRequest(plainStage.db, plainStage.merchant),
      watch: { daemon: plainStage.daemon.pid, ...plainStage.databaseServer },
    },
    { key: 'one', daemons: [first], ...campaign, watch: { daemon: first.pid, ...galera.nodeServers }, conflicts },
    { key: 'all', daemons: galera.daemons, ...campaign, watch: { ...daemons, ...galera.nodeServers }, conflicts },
  ];
}

/** What the figures say beside their numbers. */
interface Context {
  engine: Engine;
  opts: BenchOptions;
  nodes: number;
  inFlight: number;
  /** "MariaDB 10.11.19, Galera 4.23". */
  cluster: string;
}

const BASELINE = 'one daemon on plain MariaDB, same run';

const conflictText = (c: number) => {
  const count = Math.round(c);
  return `${count.toLocaleString('en')} transaction${count === 1 ? '' : 's'} refused or aborted by certification a round`;
};

/** The figures of one measurement: a daemon on every node, then one daemon on one node, each beside plain MariaDB. */
function figuresOf(
  samples: Map<Setup['key'], Sample[]>,
  ctx: Context,
  what: { name: string; unit: string; note: (key: 'all' | 'one', real: Summary, base: Summary) => string },
): Figure[] {
  const caveat = (key: 'all' | 'one') =>
    `${ctx.nodes} nodes${key === 'all' ? ` (${ctx.cluster})` : ''} and their daemons on one ` +
    `${os.cpus().length}-core machine: the cost of certification, not scale`;
  const setupText = {
    all: `a daemon on each of ${ctx.nodes} Galera nodes, load spread over them`,
    one: 'one daemon on one node of the same cluster',
  };
  const base = summary(samples.get('plain') ?? [], 'daemon');
  return (['all', 'one'] as const).map((key) => {
    const real = summary(samples.get(key) ?? [], key === 'all' ? 'daemon 1' : 'daemon');
    return makeFigure({
      name: `${what.name}, ${setupText[key]}`,
      engine: ctx.engine,
      value: real.rate,
      unit: what.unit,
      baseline: base.rate,
      baselineName: BASELINE,
      note: `${caveat(key)}; ${what.note(key, real, base)}; ${conflictText(real.conflicts)}`,
      bound: `${real.bound}; baseline: ${base.bound}`,
      cpu: { measured: real.shares, baseline: base.shares },
    });
  });
}

function singleFigures(samples: Map<Setup['key'], Sample[]>, ctx: Context): Figure[] {
  const { connections } = ctx.opts;
  return figuresOf(samples, ctx, {
    name: 'one page view per POST /v1/events',
    unit: 'req/s',
    note: (key, real, base) => {
      const p99 = `p99 ${formatNumber(real.p99Ms)} ms, plain ${formatNumber(base.p99Ms)} ms`;
      return key === 'all'
        ? `${connections} connections (${split(connections, ctx.nodes).join(' + ')} over ${ctx.nodes} wrk); ${p99}; ` +
            'every view names one affiliate; each daemon counts it in its own daily counter row'
        : `${connections} connections, one wrk; ${p99}`;
    },
  });
}

function batchFigures(samples: Map<Setup['key'], Sample[]>, ctx: Context): Figure[] {
  const events = (ctx.opts.batches * ctx.opts.batchSize).toLocaleString('en');
  return figuresOf(samples, ctx, {
    name: `conversions in batches of ${ctx.opts.batchSize}`,
    unit: 'events/s',
    note: (key) =>
      key === 'all'
        ? `${events} a round, ${ctx.inFlight} batches in flight, round-robin over the daemons; each daemon ` +
          "adds to its own rows of the month's usage and the daily counters"
        : `${events} a round, ${ctx.inFlight} batches in flight to the one daemon, as on plain MariaDB`,
  });
}

export async function benchGalera(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  const nodes = galeraUrls();
  const cluster = await checkCluster(nodes);
  // The same offered load everywhere: a batch in flight per node, one per daemon on average where
  // there is a daemon per node. One at a time would leave all but one daemon idle: nothing spread.
  const ctx: Context = { engine, opts, nodes: nodes.length, inFlight: nodes.length, cluster };
  const seed = seedAffiliates(100);
  const measureAll = async (plainStage: Stage, galera: ClusterStage) => {
    const setups = await setupsOf(plainStage, galera, nodes);
    const single = await rounds(
      setups,
      (s) => (opts.warmupSec > 0 ? pageViews(s, opts, opts.warmupSec) : Promise.resolve()),
      (s) => pageViews(s, opts, opts.durationSec),
      opts.repeats,
    );
    const batched = await rounds(
      setups,
      (s) => batches(s, opts, ctx.inFlight, 'warm', ctx.inFlight),
      (s, round) => batches(s, opts, ctx.inFlight, `r${round}`, opts.batches),
      opts.repeats,
    );
    return [...singleFigures(single, ctx), ...batchFigures(batched, ctx)];
  };
  return withStage(
    engine,
    opts,
    (plainStage) => withClusterStage(nodes, opts, (galera) => measureAll(plainStage, galera), seed),
    seed,
    'galera-plain',
  );
}

/** Only on MySQL's turn: it compares MariaDB servers, and its baseline is the plain one. */
export const parts: Part[] = [{ names: ['galera'], groups: ['galera'], engines: ['mysql'], run: benchGalera }];

await runIfMain(import.meta.url, parts);
