#!/usr/bin/env node
// `npm test`: unit tests once, then the integration and CLI suites on SQLite and, when
// TEST_MYSQL_URL is set, again on MySQL/MariaDB, side by side (scripts/mochaRuns.mjs; TEST_JOBS=1
// runs them in turn). Mocha's own summary lines stay in the output.
import { spawnSync } from 'node:child_process';
import { mochaRuns } from './mochaRuns.mjs';

const engines = ['sqlite', ...(process.env.TEST_MYSQL_URL ? ['mysql'] : [])];
if (!process.env.TEST_MYSQL_URL) {
  console.log('TEST_MYSQL_URL is not set: integration suites run on SQLite only (.ci/run sets it).');
}
const extra = process.argv.slice(2);
const runs = [
  { name: 'unit', engine: 'sqlite', specs: ['test/unit/**/*.test.ts'], timeout: 10000 },
  ...engines.map((engine) => ({
    name: `integration (${engine})`,
    engine,
    specs: ['test/integration/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/browser/**/*.test.ts'],
    timeout: 60000,
  })),
];

// Chromium and tmux, from Debian's packages when missing: the browser and terminal tests drive them.
if (spawnSync('bash', ['scripts/test-tools.sh'], { stdio: 'inherit' }).status !== 0) process.exit(1);

process.exit((await mochaRuns(runs, extra)) === 0 ? 0 : 1);
