/**
 * `npm run bench`: every figure of docs/benchmarks.md on SQLite and, when BENCH_MYSQL_URL (or
 * TEST_MYSQL_URL) is set, on MySQL/MariaDB, each beside its baseline measured in the same run,
 * medians of BENCH_REPEATS (3) rounds. Writes bench/results/latest.json and latest.md.
 * BENCH_QUICK=1 is a smoke run; BENCH_ONLY=intake,replay,reads,metrics,list,tenants,clicks,analytics,payouts,merchantDashboard (or part names)
 * and BENCH_ENGINES=sqlite narrow it. BENCH_GALERA=1 adds the Galera figures (bench/galera.ts).
 * Never part of `npm test`.
 */
import os from 'node:os';
import knexFactory from 'knex';
import * as atScale from './atScale.js';
import * as analytics from './analytics.js';
import * as billing from './billing.js';
import * as clicks from './clicks.js';
import * as dashboard from './dashboard.js';
import * as galera from './galera.js';
import * as intake from './intake.js';
import * as metrics from './metrics.js';
import * as payouts from './payouts.js';
import type { Engine } from './lib/figure.js';
import { benchOptions, mysqlUrl } from './lib/options.js';
import { type Part, runsOn, strandedBy, wanted } from './lib/part.js';
import { figureLine, type RunResults, writeResults } from './lib/results.js';
import { WRK_MISSING, wrkAvailable } from './lib/wrk.js';
import * as portal from './portal.js';
import * as reads from './reads.js';
import * as replay from './replay.js';
import * as rules from './rules.js';
import * as tenants from './tenants.js';

/**
 * The modules, in the order they run. A new area is a module exporting `parts` (see
 * docs/benchmarks.md, "Adding a figure"), listed here. Galera's only with BENCH_GALERA=1: it
 * needs a cluster running, which most runs have not.
 */
function modules(options: { galera: boolean }): Array<{ parts: readonly Part[] }> {
  return [
    intake,
    rules,
    replay,
    reads,
    metrics,
    atScale,
    tenants,
    portal,
    dashboard,
    billing,
    clicks,
    analytics,
    payouts,
    ...(options.galera ? [galera] : []),
  ];
}

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
const onlyEngines = (process.env.BENCH_ENGINES ?? '').split(',').filter(Boolean);
const engines = (['sqlite', ...(mysql ? ['mysql'] : [])] as Engine[]).filter(
  (e) => onlyEngines.length === 0 || onlyEngines.includes(e),
);
const parts = modules(opts)
  .flatMap((m) => m.parts)
  .filter((p) => wanted(opts, p));
const nameOf = (p: Part) => p.names.join('+');
if (!wrkAvailable()) console.error(`bench: ${WRK_MISSING}; those figures will fail.`);

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
  parts: [],
};

const save = () => {
  const now = new Date();
  results.finishedAt = now.toISOString();
  results.durationSec = Math.round((now.getTime() - started.getTime()) / 1000);
  // Other work on the machine is what moves the rates most: say how busy it was.
  results.machine['load average at end'] = os.loadavg()[0]?.toFixed(1) ?? '?';
  return writeResults(results);
};

console.log(`bench: ${parts.map(nameOf).join(', ')} on ${engines.join(' and ')}${opts.quick ? ' (quick)' : ''}`);
// A part none of whose engines runs is a failure with its reason, not a silence.
for (const p of parts) {
  const reason = strandedBy(p, engines);
  if (reason === undefined) continue;
  results.failures.push({ group: nameOf(p), engine: p.engines?.join(', ') ?? '', message: reason });
  console.error(`  ${nameOf(p)} not measured: ${reason}`);
}
for (const engine of engines) {
  for (const p of parts) {
    if (!runsOn(p, engine)) continue;
    const t0 = Date.now();
    const load = os.loadavg()[0] ?? Number.NaN;
    try {
      const figures = (await p.run(engine, opts)).map((f) => ({ ...f, loadAverage: Number(load.toFixed(1)) }));
      results.figures.push(...figures);
      for (const f of figures) console.log(figureLine(f));
    } catch (err) {
      const message = (err as Error).message.split('\n')[0] ?? String(err);
      results.failures.push({ group: nameOf(p), engine, message });
      console.error(`  ${engine} ${nameOf(p)} failed: ${(err as Error).stack ?? message}`);
    }
    const seconds = Math.round((Date.now() - t0) / 1000);
    // The load average beside each part: the rates of a part run on a busy machine read lower.
    results.parts.push({ part: nameOf(p), engine, seconds, loadAverage: Number(load.toFixed(1)) });
    console.log(`  (${nameOf(p)} on ${engine}: ${seconds} s, load average ${load.toFixed(1)} at its start)`);
    save();
  }
}
console.log(`\n${save()}`);
console.log(`bench/results/latest.json and latest.md written (${results.durationSec} s).`);
process.exitCode = results.failures.length > 0 ? 1 : 0;
