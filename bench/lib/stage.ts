import { randomBytes } from 'node:crypto';
import type { Db } from '../../server/db/knex.js';
import { createMerchant, type Merchant } from '../../test/helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import type { Child } from './child.js';
import { listenerPid } from './cpu.js';
import { startDaemonChild } from './daemon.js';
import type { Engine } from './figure.js';
import type { BenchOptions } from './options.js';
import { seedCampaign } from '../seed.js';

/** A throwaway database, a merchant on the unlimited plan, and the real daemon on them. */
export interface Stage {
  engine: Engine;
  database: TestDatabase;
  db: Db;
  merchant: Merchant;
  daemon: Child;
  /**
   * The MariaDB server's process, by name, when it runs on this machine and can be seen
   * (`{}` otherwise): a figure watches its CPU beside the daemon's, which says whether the
   * daemon waited on it or on an fsync.
   */
  databaseServer: Record<string, number>;
}

/**
 * Sets a stage up, runs `work` on it, tears it down (daemon, then database) whatever happens.
 * `seed` runs before the daemon starts, straight into the database. MySQL databases are made on
 * the server of TEST_MYSQL_URL (bench/run.ts sets it from BENCH_MYSQL_URL).
 */
export async function withStage<T>(
  engine: Engine,
  options: BenchOptions,
  work: (stage: Stage) => Promise<T>,
  seed?: (db: Db, merchant: Merchant) => Promise<void>,
  /** The folder name of the daemon's CPU profile under BENCH_CPU_PROF. */
  profile?: string,
): Promise<T> {
  const started = Date.now();
  const database = await createTestDatabase({ engine });
  console.log(`  (${engine}: database migrated in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  let daemon: Child | undefined;
  try {
    const merchant = await createMerchant(database.db, { plan: 'unlimited' });
    if (seed) await seed(database.db, merchant);
    daemon = await startDaemonChild(database.url, {
      logLevel: options.daemonLogLevel,
      profile: profile ?? `daemon-${engine}`,
    });
    const mariadb = engine === 'mysql' ? listenerPid(database.url) : undefined;
    const databaseServer: Record<string, number> = mariadb ? { MariaDB: mariadb } : {};
    return await work({ engine, database, db: database.db, merchant, daemon, databaseServer });
  } finally {
    await daemon?.stop();
    await database.drop();
  }
}

/**
 * A `seed` for withStage: `count` affiliates straight into the table (three in five active), and
 * `conversions` conversions spread over them.
 */
export function seedAffiliates(count: number, conversions = 0): (db: Db, merchant: Merchant) => Promise<void> {
  return async (db, merchant) => {
    await seedCampaign(db, merchant.campaignId, {
      affiliates: count,
      conversions,
      tag: `A${randomBytes(2).toString('hex')}`,
    });
  };
}
