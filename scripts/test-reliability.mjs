#!/usr/bin/env node
// `npm run test:reliability`: the reliability suite (docs/reliability.md) on SQLite and, when
// TEST_MYSQL_URL is set, on MySQL/MariaDB: fuzzing of every contract route, races, crashes
// (daemon and database killed during a replay), a rolling upgrade from the previous release (MySQL
// only: two daemons of it built from the git history, replaced one at a time under load), then
// the secrets scan of everything they saw, which is why the files run in this order, in one
// process per engine; the two engines run side by side (scripts/mochaRuns.mjs; TEST_JOBS=1 runs
// them in turn).
// CI=true fixes the seed; FUZZ_SEED=n replays a run; FUZZ_RUNS, RACE_ROUNDS, CRASH_EVENTS,
// DB_CRASH_EVENTS, PAYOUT_CRASH_PAYOUTS (per rail) and PAYOUT_CRASH_KILLS size it;
// UPGRADE_FROM=<commit> upgrades from another release.
import { mochaRuns } from './mochaRuns.mjs';

const engines = ['sqlite', ...(process.env.TEST_MYSQL_URL ? ['mysql'] : [])];
if (!process.env.TEST_MYSQL_URL) {
  console.log('TEST_MYSQL_URL is not set: the reliability suite runs on SQLite only (.ci/run sets it).');
}
const files = ['fuzz', 'races', 'crash', 'payoutCrash', 'rollingUpgrade', 'secrets'].map(
  (name) => `test/reliability/${name}.test.ts`,
);
const extra = process.argv.slice(2);

const runs = engines.map((engine) => ({
  name: `reliability (${engine})`,
  engine,
  specs: files,
  timeout: 1_200_000,
}));
process.exit((await mochaRuns(runs, extra)) === 0 ? 0 : 1);
