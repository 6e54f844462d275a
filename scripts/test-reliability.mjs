#!/usr/bin/env node
// `npm run test:reliability`: the reliability suite (docs/reliability.md) on SQLite and, when
// TEST_MYSQL_URL is set, on MySQL/MariaDB: fuzzing of every contract route, races, crashes
// (daemon and database killed during a replay), a rolling upgrade from the previous release (MySQL
// only: two daemons of it built from the git history, replaced one at a time under load), then
// the secrets scan of everything they saw, which is why the files run in this order, in one
// process per engine.
// CI=true fixes the seed; FUZZ_SEED=n replays a run; FUZZ_RUNS, RACE_ROUNDS, CRASH_EVENTS,
// DB_CRASH_EVENTS, PAYOUT_CRASH_PAYOUTS (per rail) and PAYOUT_CRASH_KILLS size it; UPGRADE_FROM=<commit> upgrades from another release.
import { spawnSync } from 'node:child_process';

const engines = ['sqlite', ...(process.env.TEST_MYSQL_URL ? ['mysql'] : [])];
if (!process.env.TEST_MYSQL_URL) {
  console.log('TEST_MYSQL_URL is not set: the reliability suite runs on SQLite only (.ci/run sets it).');
}
const files = ['fuzz', 'races', 'crash', 'payoutCrash', 'rollingUpgrade', 'secrets'].map(
  (name) => `test/reliability/${name}.test.ts`,
);
const extra = process.argv.slice(2);

let failed = 0;
for (const engine of engines) {
  console.log(`\n=== reliability (${engine}) ===`);
  const result = spawnSync(
    process.execPath,
    ['node_modules/mocha/bin/mocha.js', '--timeout', '1200000', '--exit', ...files, ...extra],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        TEST_ENGINE: engine,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import tsx`.trim(),
      },
    },
  );
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
