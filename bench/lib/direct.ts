import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from './figure.js';
import { benchOptions, mysqlUrl } from './options.js';
import { type Part, runsOn, strandedBy } from './part.js';
import { figureLine } from './results.js';

/**
 * Lets a module of bench/ run alone, for work on one area: `node --import tsx bench/reads.ts
 * [sqlite|mysql]… [part]…` runs the named parts (all by default) on the named engines (SQLite,
 * and MySQL/MariaDB when BENCH_MYSQL_URL or TEST_MYSQL_URL is set, by default), with the
 * options of `npm run bench`, and prints each figure. It writes no results file. Needs dist/
 * built (`npm run build`): the daemon is the built CLI. Does nothing when imported.
 */
export async function runIfMain(moduleUrl: string, parts: readonly Part[]): Promise<void> {
  if (!process.argv[1] || fileURLToPath(moduleUrl) !== path.resolve(process.argv[1])) return;
  const args = process.argv.slice(2);
  const names = parts.flatMap((p) => p.names);
  const unknown = args.filter((a) => a !== 'sqlite' && a !== 'mysql' && !names.includes(a));
  const mysql = mysqlUrl();
  if (mysql) process.env.TEST_MYSQL_URL = mysql;
  const named = args.filter((a): a is Engine => a === 'sqlite' || a === 'mysql');
  const engines: Engine[] = named.length > 0 ? named : mysql ? ['sqlite', 'mysql'] : ['sqlite'];
  const refusal =
    unknown.length > 0
      ? `unknown: ${unknown.join(', ')}. Name engines (sqlite, mysql) and parts (${names.join(', ')}).`
      : engines.includes('mysql') && !mysql
        ? 'mysql needs BENCH_MYSQL_URL or TEST_MYSQL_URL: eval "$(bash scripts/test-services.sh)" sets the latter.'
        : undefined;
  if (refusal) {
    console.error(refusal);
    process.exitCode = 1;
    return;
  }
  const asked = args.filter((a) => names.includes(a));
  // A part that measures several things on one stage measures only those asked for.
  const opts = { ...benchOptions(), ...(asked.length > 0 ? { only: asked } : {}) };
  const isAsked = (p: Part) => asked.length === 0 || p.names.some((n) => asked.includes(n));
  for (const p of parts) {
    const reason = strandedBy(p, engines);
    if (reason === undefined || !isAsked(p)) continue;
    console.error(reason);
    process.exitCode = 1;
  }
  for (const engine of engines) {
    for (const p of parts) {
      if (!isAsked(p) || !runsOn(p, engine)) continue;
      for (const figure of await p.run(engine, opts)) console.log(figureLine(figure));
    }
  }
}
