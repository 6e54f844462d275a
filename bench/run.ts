/**
 * `npm run bench`: the affiliates list at scale (issue 3). One run seeds, in the same database,
 * a large campaign (100,000 affiliates, 1,000,000 conversions by default) and a baseline campaign
 * (100 affiliates, 1,000 conversions), then times the same requests against both over HTTP on
 * loopback. Reported: medians, and the ratio large / baseline. Runs on SQLite, and on MySQL when
 * BENCH_MYSQL_URL (or TEST_MYSQL_URL) is set. BENCH_AFFILIATES / BENCH_CONVERSIONS scale it down.
 */

import { loadConfig } from '../server/config.js';
import { createLogger } from '../server/logger.js';
import { startDaemon } from '../server/main.js';
import { servicesFor } from '../test/helpers/daemon.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { call } from '../test/helpers/http.js';
import { seedCampaign } from './seed.js';

const AFFILIATES = Number(process.env.BENCH_AFFILIATES ?? 100_000);
const CONVERSIONS = Number(process.env.BENCH_CONVERSIONS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 25);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

async function benchEngine(engine: 'sqlite' | 'mysql'): Promise<void> {
  const t = await createTestDatabase({ engine });
  try {
    const make = async (name: string) => {
      const { campaigns, apiKeys } = servicesFor(t.db);
      const campaign = await campaigns.create({ name, plan: 'unlimited' });
      const key = await apiKeys.create({ campaign: campaign.id });
      return { id: campaign.id, key: key.key };
    };
    const big = await make('large');
    const small = await make('baseline');
    const seeded = Date.now();
    const bigIds = await seedCampaign(t.db, big.id, {
      affiliates: AFFILIATES,
      conversions: CONVERSIONS,
      tag: 'L',
    });
    const smallIds = await seedCampaign(t.db, small.id, { affiliates: 100, conversions: 1000, tag: 'S' });
    const seedSeconds = ((Date.now() - seeded) / 1000).toFixed(1);
    if (engine === 'mysql') await t.db.raw('ANALYZE TABLE affiliates, conversions, payouts');
    else await t.db.raw('ANALYZE');

    const config = loadConfig({
      DATABASE_URL: t.url,
      PORT: '0',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_DEFAULT_PER_MIN: '1000000',
    });
    const daemon = await startDaemon(config, { logger: createLogger('silent') });
    try {
      const cases: Array<[string, (ids: number[], total: number) => string]> = [
        ['list, page 1 of 100', () => '/v1/affiliates?limit=100'],
        [
          'list, middle page of 100',
          (_ids, total) => `/v1/affiliates?limit=100&page=${Math.max(1, Math.floor(total / 200))}`,
        ],
        ['list, status=inactive', () => '/v1/affiliates?limit=100&status=inactive'],
        ['list, search (few matches)', () => '/v1/affiliates?limit=100&search=aff7'],
        ['get by id', (ids) => `/v1/affiliates/${ids[Math.floor(ids.length / 2)]}`],
      ];
      console.log(
        `\n## ${engine}: ${AFFILIATES} affiliates / ${CONVERSIONS} conversions vs 100 / 1000 (seeded in ${seedSeconds} s)`,
      );
      console.log('| request | baseline median ms | large median ms | ratio |');
      console.log('|---|---|---|---|');
      for (const [label, path] of cases) {
        const time = async (key: string, p: string) => {
          const samples: number[] = [];
          for (let i = 0; i < REPEAT + 3; i++) {
            const started = process.hrtime.bigint();
            const res = await call(daemon.url, 'GET', p, { key });
            const ms = Number(process.hrtime.bigint() - started) / 1e6;
            if (res.status !== 200) throw new Error(`${p}: ${res.status} ${res.text}`);
            if (i >= 3) samples.push(ms); // the first three warm caches
          }
          return median(samples);
        };
        // Interleave so both see the same machine noise.
        const base = await time(small.key, path(smallIds, 100));
        const large = await time(big.key, path(bigIds, AFFILIATES));
        console.log(
          `| ${label} | ${base.toFixed(2)} | ${large.toFixed(2)} | ${(large / base).toFixed(1)}× |`,
        );
      }
    } finally {
      await daemon.close();
    }
  } finally {
    await t.drop();
  }
}

const engines: Array<'sqlite' | 'mysql'> = ['sqlite'];
const mysqlUrl = process.env.BENCH_MYSQL_URL ?? process.env.TEST_MYSQL_URL;
if (mysqlUrl) {
  process.env.TEST_MYSQL_URL = mysqlUrl;
  engines.push('mysql');
}
for (const engine of engines) await benchEngine(engine);
