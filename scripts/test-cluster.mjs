#!/usr/bin/env node
// `npm run test:cluster`: the suites that prove one database, on a 3-node MariaDB Galera cluster
// (docs/scaling.md). scripts/test-cluster.sh starts the cluster when it is not running (and
// installs MariaDB and Galera from Debian's packages when missing), then:
//   1. the integration and CLI suites, on a daemon whose database is node 1 (but for the tests
//      that use no database or only SQLite: notOnNode1 below);
//   2. with a daemon on each node (TEST_GALERA_URLS): three daemons starting at once, webhooks
//      delivered exactly once, the same search answers through every node, the race rounds of
//      the reliability suite (RACE_ROUNDS), concurrent writes to the counters every request updates
//      (test/cluster/hotRows.test.ts), node 3 SIGKILLed during a replay and rejoining
//      (CLUSTER_CRASH_EVENTS), payouts sent, run and called back through every node at once
//      and each paid once (test/cluster/payouts.test.ts), then the secrets scan of all they saw;
// Extra arguments go to every mocha run. The cluster is left running for the next run;
// `bash scripts/test-cluster.sh stop` removes it.
import { spawnSync } from 'node:child_process';

const extra = process.argv.slice(2);

const cluster = spawnSync('bash', ['scripts/test-cluster.sh'], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
const urls = /TEST_GALERA_URLS=(\S+)/.exec(cluster.stdout ?? '')?.[1];
if (cluster.status !== 0 || !urls) {
  console.error('The Galera cluster did not start (scripts/test-cluster.sh): see its messages above.');
  process.exit(1);
}
const [node1] = urls.split(',');
console.log(`Galera cluster: ${urls.split(',').length} nodes, ${urls}`);

function mocha(name, { specs, timeout, env, args = [] }) {
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const result = spawnSync(
    process.execPath,
    ['node_modules/mocha/bin/mocha.js', '--timeout', String(timeout), '--exit', ...specs, ...args, ...extra],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        TEST_ENGINE: 'mysql',
        TEST_MYSQL_URL: node1,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import tsx`.trim(),
        ...env,
      },
    },
  );
  console.log(
    `=== ${name}: ${result.status === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s ===`,
  );
  return result.status === 0;
}

// Left out of the node-1 run: tests whose outcome cannot depend on the database server being a
// Galera node, because they use no database at all or only SQLite whatever TEST_ENGINE says.
// Each still runs in `npm test` on both engines (and the MariaDB run there covers what they
// touch of MySQL), so here they would only repeat that run at the cost of the cluster's.
// Nothing that reads or writes the test's MySQL database through what it asserts is left out.
const notOnNode1 = [
  // The rails' HTTP clients against loopback fakes of Asaas, PayPal and Stripe: no daemon, no database.
  'test/integration/payoutProviders.test.ts',
  // A real Prometheus scraping /metrics: the HTTP and metrics layers; its one database figure is
  // the daemon's own pool setting (10 on MySQL), the same on a Galera node as on MariaDB.
  'test/integration/metrics.test.ts',
  // `events replay --dry-run` reading 100,000 and 300,000 lines: no daemon, no database.
  'test/cli/replayMemory.test.ts',
  // The README's alias line run in a shell: no database.
  'test/cli/readme.test.ts',
  // One daemon per SQLite file: skips itself on MySQL.
  'test/cli/serveLock.test.ts',
];
// Suites (by title) of files that otherwise stay: help texts, usage errors, --version and bash
// completion (no database), and operator commands in a folder with no DATABASE_URL (SQLite at
// its default path whatever the engine). Both in test/cli/usability.test.ts.
const suitesNotOnNode1 = ['help, usage errors, version and completion', 'the CLI from a folder with no database'];

// Node 1 only: the same suites `npm test` runs on MariaDB, through one node of the cluster.
const onNode1 = mocha('integration and CLI suites, daemon on node 1', {
  specs: ['test/integration/**/*.test.ts', 'test/cli/**/*.test.ts'],
  timeout: 60_000,
  env: { TEST_GALERA_URLS: '' },
  args: [
    ...notOnNode1.flatMap((file) => ['--ignore', file]),
    '--grep',
    `^(${suitesNotOnNode1.join('|')}) `,
    '--invert',
  ],
});

// The files run in this order in one process: the secrets scan covers what the others saw.
const clusterSpecs = [
  'test/integration/startup.test.ts',
  'test/integration/webhookDurability.test.ts',
  'test/reliability/races.test.ts',
  'test/cluster/search.test.ts',
  'test/cluster/hotRows.test.ts',
  'test/cluster/nodeCrash.test.ts',
  'test/cluster/payouts.test.ts',
  'test/reliability/secrets.test.ts',
];
const onNodes = mocha('a daemon on each node', {
  specs: clusterSpecs,
  timeout: 1_200_000,
  env: { TEST_GALERA_URLS: urls },
});

process.exit(onNode1 && onNodes ? 0 : 1);
