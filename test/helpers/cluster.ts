import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';

/**
 * The nodes of the Galera cluster `npm run test:cluster` runs on (scripts/test-cluster.sh prints
 * TEST_GALERA_URLS: one URL a node, comma-separated); empty elsewhere.
 */
export const GALERA_URLS = urlList(process.env.TEST_GALERA_URLS);

/** A comma-separated list of URLs (TEST_GALERA_URLS, BENCH_GALERA_URLS), blanks dropped. */
export function urlList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
}

export const ON_CLUSTER = GALERA_URLS.length > 0;

/** The same database through another server: `url` with the host and port of `node`. */
export function throughNode(url: string, node: string): string {
  const target = new URL(url);
  const via = new URL(node);
  target.host = via.host;
  return target.toString();
}

/**
 * A test database through each node of the cluster (the database is created on node 1 and
 * replicated), or the one URL when there is no cluster: what a suite hands to one daemon per node.
 * `nodes` (TEST_GALERA_URLS's by default) lets the bench name its own.
 */
export function nodeUrls(databaseUrl: string, nodes: readonly string[] = GALERA_URLS): string[] {
  return nodes.length > 0 ? nodes.map((node) => throughNode(databaseUrl, node)) : [databaseUrl];
}

/** URLs for `count` daemons: on a cluster one per node in turn, elsewhere all the same database. */
export function daemonUrls(databaseUrl: string, count: number): string[] {
  const nodes = nodeUrls(databaseUrl);
  return Array.from({ length: count }, (_, i) => nodes[i % nodes.length] ?? databaseUrl);
}

/**
 * Waits until every node serves the database (a new database reaches the other nodes a moment
 * after node 1 has created it). Nothing to wait for without a cluster.
 */
export async function reachableOnEveryNode(
  databaseUrl: string,
  timeoutMs = 10_000,
  nodes: readonly string[] = GALERA_URLS,
): Promise<void> {
  for (const url of nodes.length > 0 ? nodeUrls(databaseUrl, nodes) : []) {
    for (const deadline = Date.now() + timeoutMs; ;) {
      try {
        // Connecting fails (ER_BAD_DB_ERROR) until the node has the database.
        await (await mysql.createConnection(url)).end();
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
}

const run = promisify(execFile);
const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/test-cluster.sh');

/**
 * scripts/test-cluster.sh's `kill N` (SIGKILL) or `restart N` (rejoin at the recovered
 * position, until Synced). Answers what the script said, such as how the node rejoined.
 */
export async function clusterNode(action: 'kill' | 'restart', node: number): Promise<string> {
  const { stderr } = await run('bash', [SCRIPT, action, String(node)], { timeout: 180_000 });
  return stderr.trim();
}

/**
 * CHECKSUM TABLE of every table of the database, as the node of `url` holds it, once that node
 * has applied every write the cluster had committed (a read first, under wsrep_sync_wait).
 */
export async function tableChecksums(url: string): Promise<Record<string, number>> {
  const connection = await mysql.createConnection(url);
  try {
    await connection.query('SET SESSION wsrep_sync_wait = 1');
    const [tables] = await connection.query<mysql.RowDataPacket[]>("SHOW FULL TABLES WHERE Table_type = 'BASE TABLE'");
    const sums: Record<string, number> = {};
    for (const row of tables) {
      const table = String(Object.values(row)[0]);
      await connection.query(`SELECT 1 FROM \`${table}\` LIMIT 1`);
      const [checked] = await connection.query<mysql.RowDataPacket[]>(`CHECKSUM TABLE \`${table}\``);
      sums[table] = Number(checked[0]?.Checksum);
    }
    return sums;
  } finally {
    await connection.end();
  }
}

/**
 * Galera's conflict counters summed over the nodes: transactions refused at commit
 * (wsrep_local_cert_failures) and local transactions aborted to apply another node's write
 * (wsrep_local_bf_aborts). Each one is a transaction a daemon had to run again.
 */
export async function clusterConflicts(
  nodes: readonly string[] = GALERA_URLS,
): Promise<{ certificationFailures: number; bruteForceAborts: number }> {
  const totals = { certificationFailures: 0, bruteForceAborts: 0 };
  for (const url of nodes) {
    const connection = await mysql.createConnection(url);
    try {
      const [rows] = await connection.query<mysql.RowDataPacket[]>(
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')",
      );
      for (const row of rows) {
        if (row.Variable_name === 'wsrep_local_cert_failures') totals.certificationFailures += Number(row.Value);
        else totals.bruteForceAborts += Number(row.Value);
      }
    } finally {
      await connection.end();
    }
  }
  return totals;
}
