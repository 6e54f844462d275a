import mysql from 'mysql2/promise';
import type { Db } from '../../server/db/knex.js';
import { nodeUrls, reachableOnEveryNode } from '../../test/helpers/cluster.js';
import { createMerchant, type Merchant } from '../../test/helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import type { Child } from './child.js';
import { listenerPid } from './cpu.js';
import { startDaemonChild } from './daemon.js';
import type { BenchOptions } from './options.js';

/** What to do when no cluster is named. */
export const CLUSTER_MISSING =
  'the Galera figures need a cluster: `eval "$(bash scripts/test-cluster.sh)"` starts the test ' +
  'cluster and sets TEST_GALERA_URLS, or set BENCH_GALERA_URLS to one mysql:// URL per node';

const START_IT =
  '`bash scripts/test-cluster.sh status` shows which test nodes run, `bash scripts/test-cluster.sh` starts what is missing';

/** Node n's name in messages: "node 2 (127.0.0.1:24320)", never its password. */
const nodeName = (url: string, index: number) => `node ${index + 1} (${new URL(url).host})`;

/**
 * Checks that every node answers, is a Galera node, is Synced and sees all the others, and
 * answers what they run ("MariaDB 10.11.19, Galera 4.23"). Throws a message that says what to
 * do: a figure measured on a cluster short of a node would be another figure.
 */
export async function checkCluster(nodes: readonly string[]): Promise<string> {
  if (nodes.length === 0) throw new Error(CLUSTER_MISSING);
  let version = '';
  for (const [index, url] of nodes.entries()) {
    const name = nodeName(url, index);
    let connection: mysql.Connection;
    try {
      connection = await mysql.createConnection({ uri: url, connectTimeout: 5000 });
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'no answer';
      throw new Error(`Galera ${name} cannot be reached (${code}): ${START_IT}`, { cause: err });
    }
    try {
      const [rows] = await connection.query<mysql.RowDataPacket[]>(
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_size', 'wsrep_provider_version')",
      );
      const status = Object.fromEntries(rows.map((row) => [String(row.Variable_name), String(row.Value)]));
      const state = status.wsrep_local_state_comment;
      if (state === undefined) throw new Error(`${name} is not a Galera node (wsrep is off): name the cluster's nodes`);
      if (state !== 'Synced') throw new Error(`Galera ${name} is ${state}, not Synced: wait until it is (${START_IT})`);
      const size = Number(status.wsrep_cluster_size);
      if (size !== nodes.length)
        throw new Error(
          `Galera ${name} is in a cluster of ${size} nodes, and ${nodes.length} are named: a node is down or ` +
            `missing from the list (${START_IT})`,
        );
      const [server] = await connection.query<mysql.RowDataPacket[]>('SELECT VERSION() AS v');
      const release = String(server[0]?.v ?? '?').replace(/-MariaDB.*$/i, '');
      const provider = String(status.wsrep_provider_version ?? '?').replace(/\(.*$/, '');
      version = `MariaDB ${release}, Galera ${provider}`;
    } finally {
      await connection.end();
    }
  }
  return version;
}

/** A throwaway database on a cluster, a merchant on the unlimited plan, and a daemon on each node. */
export interface ClusterStage {
  database: TestDatabase;
  db: Db;
  merchant: Merchant;
  /** Daemon i's database is node i. */
  daemons: Child[];
  /** The nodes' mariadbd processes ("node 1"…) when they run on this machine, to watch their CPU. */
  nodeServers: Record<string, number>;
}

/**
 * withStage (bench/lib/stage.ts) on a Galera cluster: the database is made and migrated on
 * node 1, `seed` runs there, and once every node serves it a daemon starts on each node, all
 * at once as an operator would start them. Torn down (daemons, then database) whatever happens.
 */
export async function withClusterStage<T>(
  nodes: readonly string[],
  options: BenchOptions,
  work: (stage: ClusterStage) => Promise<T>,
  seed?: (db: Db, merchant: Merchant) => Promise<void>,
): Promise<T> {
  const started = Date.now();
  const [first] = nodes;
  if (!first) throw new Error(CLUSTER_MISSING);
  const database = await createTestDatabase({ engine: 'mysql', mysqlUrl: first });
  console.log(`  (Galera: database migrated in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const daemons: Child[] = [];
  try {
    const merchant = await createMerchant(database.db, { plan: 'unlimited' });
    if (seed) await seed(database.db, merchant);
    await reachableOnEveryNode(database.url, 30_000, nodes);
    const launched = await Promise.allSettled(
      nodeUrls(database.url, nodes).map((url, i) =>
        startDaemonChild(url, {
          logLevel: options.daemonLogLevel,
          profile: `galera-node${i + 1}`,
          // docs/scaling.md: scheduled approvals in one daemon of a cluster, not in every one.
          env: i === 0 ? {} : { AUTO_APPROVE_INTERVAL_MS: '0' },
        }),
      ),
    );
    // Every daemon that did start is stopped below, even when another did not.
    for (const result of launched) if (result.status === 'fulfilled') daemons.push(result.value);
    const failed = launched.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
    const nodeServers: Record<string, number> = {};
    for (const [i, url] of nodes.entries()) {
      const pid = listenerPid(url);
      if (pid) nodeServers[`node ${i + 1}`] = pid;
    }
    return await work({ database, db: database.db, merchant, daemons, nodeServers });
  } finally {
    await Promise.all(daemons.map((daemon) => daemon.stop()));
    await database.drop();
  }
}
