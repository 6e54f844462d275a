#!/usr/bin/env node
// `npm test`: unit tests once, then the integration and CLI suites on SQLite and, when
// TEST_MYSQL_URL is set, again on MySQL/MariaDB. Mocha's own summary lines stay in the output.
import { spawnSync } from 'node:child_process';

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

let failed = 0;
for (const run of runs) {
  console.log(`\n=== ${run.name} ===`);
  const result = spawnSync(
    process.execPath,
    ['node_modules/mocha/bin/mocha.js', '--timeout', String(run.timeout), '--exit', ...run.specs, ...extra],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        TEST_ENGINE: run.engine,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import tsx`.trim(),
      },
    },
  );
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
