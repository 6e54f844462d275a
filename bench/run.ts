/**
 * `npm run bench`: every figure of docs/benchmarks.md on SQLite and, when BENCH_MYSQL_URL (or
 * TEST_MYSQL_URL) is set, on MySQL/MariaDB, each beside its baseline measured in the same run,
 * medians of BENCH_REPEATS (3) rounds. Writes bench/results/latest.json and latest.md.
 * BENCH_QUICK=1 is a smoke run; BENCH_ONLY=intake,replay,reads,list,tenants (or single figure names)
 * and BENCH_ENGINES=sqlite narrow it. Never part of `npm test`.
 */
import os from 'node:os';
import knexFactory from 'knex';
import { benchBatches, benchSingleEvents } from './intake.js';
import { benchList } from './list.js';
import type { Engine, Figure } from './lib/figure.js';
import { type BenchOptions, benchOptions, mysqlUrl, wants } from './lib/options.js';
import { figureLine, type RunResults, writeResults } from './lib/results.js';
import { withCampaignsAtScale } from './lib/scale.js';
import { benchBcryptP99, benchGetById, benchSearch } from './reads.js';
import { benchReplay } from './replay.js';
import { benchHostileTenant } from './tenants.js';

interface Entry {
  /** The parts it measures, as BENCH_ONLY names them: [group, name]. */
  parts: Array<[string, string]>;
  run: (engine: Engine, opts: BenchOptions) => Promise<Figure[]>;
}

/** search and list on one pair of seeded campaigns: seeding is the slow part of both. */
function benchAtScale(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withCampaignsAtScale(
    engine,
    opts,
    async (stage) => [
      ...(wants(opts, 'reads', 'search') ? await benchSearch(stage, opts) : []),
      ...(wants(opts, 'list', 'list') ? await benchList(stage, opts) : []),
    ],
    `atScale-${engine}`,
  );
}

const ENTRIES: Entry[] = [
  { parts: [['intake', 'single']], run: benchSingleEvents },
  { parts: [['intake', 'batches']], run: benchBatches },
  { parts: [['replay', 'replay']], run: benchReplay },
  { parts: [['reads', 'getById']], run: benchGetById },
  {
    parts: [
      ['reads', 'search'],
      ['list', 'list'],
    ],
    run: benchAtScale,
  },
  { parts: [['reads', 'bcrypt']], run: benchBcryptP99 },
  { parts: [['tenants', 'tenants']], run: benchHostileTenant },
];
const nameOf = (entry: Entry) => entry.parts.map(([, name]) => name).join('+');

async function engineVersion(engine: Engine, url: string | undefined): Promise<string> {
  if (engine === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(':memory:');
    const row = db.prepare('select sqlite_version() as v').get() as { v: string };
    db.close();
    return `SQLite ${row.v}`;
  }
  const db = knexFactory({ client: 'mysql2', connection: { uri: url }, pool: { min: 0, max: 1 } });
  try {
    const [rows] = (await db.raw('select version() as v')) as [Array<{ v: string }>];
    const v = rows[0]?.v ?? '?';
    return `${/mariadb/i.test(v) ? 'MariaDB' : 'MySQL'} ${v.replace(/-MariaDB.*$/i, '')}`;
  } finally {
    await db.destroy();
  }
}

const opts = benchOptions();
const mysql = mysqlUrl();
if (mysql) process.env.TEST_MYSQL_URL = mysql;
const only = (process.env.BENCH_ENGINES ?? '').split(',').filter(Boolean);
const engines = (['sqlite', ...(mysql ? ['mysql'] : [])] as Engine[]).filter(
  (e) => only.length === 0 || only.includes(e),
);
const entries = ENTRIES.filter((e) => e.parts.some(([group, name]) => wants(opts, group, name)));

const started = new Date();
const cpus = os.cpus();
const results: RunResults = {
  startedAt: started.toISOString(),
  finishedAt: started.toISOString(),
  durationSec: 0,
  machine: {
    cpu: `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown'}`,
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    'load average at start': os.loadavg()[0]?.toFixed(1) ?? '?',
    node: process.version,
    engines: (await Promise.all(engines.map((e) => engineVersion(e, mysql)))).join(', '),
  },
  options: opts,
  figures: [],
  failures: [],
};

const save = () => {
  const now = new Date();
  results.finishedAt = now.toISOString();
  results.durationSec = Math.round((now.getTime() - started.getTime()) / 1000);
  // Other work on the machine is what moves the rates most: say how busy it was.
  results.machine['load average at end'] = os.loadavg()[0]?.toFixed(1) ?? '?';
  return writeResults(results);
};

console.log(`bench: ${entries.map(nameOf).join(', ')} on ${engines.join(' and ')}${opts.quick ? ' (quick)' : ''}`);
for (const engine of engines) {
  for (const entry of entries) {
    const t0 = Date.now();
    try {
      const figures = await entry.run(engine, opts);
      results.figures.push(...figures);
      for (const f of figures) console.log(figureLine(f));
    } catch (err) {
      const message = (err as Error).message.split('\n')[0] ?? String(err);
      results.failures.push({ group: nameOf(entry), engine, message });
      console.error(`  ${engine} ${nameOf(entry)} failed: ${(err as Error).stack ?? message}`);
    }
    console.log(`  (${nameOf(entry)} on ${engine}: ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    save();
  }
}
console.log(`\n${save()}`);
console.log(`bench/results/latest.json and latest.md written (${results.durationSec} s).`);
process.exitCode = results.failures.length > 0 ? 1 : 0;
