/**
 * What `GET /v1/reports/affiliates` costs at 1,000,000 events (docs/tracking.md). One run per
 * engine: 1,000 affiliates, then 1,000,000 events sent through `POST /v1/events` in batches of
 * 1,000 (80 % page views, 10 % leads, 10 % conversions, spread over the last 365 days), so the
 * daily counters are filled by the real intake. Then the report over 30, 90 and 365 days (median
 * of REPEAT requests over HTTP), beside the same numbers computed by scanning the events, which is
 * what the counters replace. Also the counter statements alone, per intake.
 *
 *   node --import tsx bench/report.ts            # SQLite, and MariaDB when TEST_MYSQL_URL is set
 *   BENCH_EVENTS=100000 node --import tsx bench/report.ts
 */

import { randomBytes } from 'node:crypto';
import type { Db } from '../server/db/knex.js';
import { inTransaction } from '../server/db/knex.js';
import { createLogger } from '../server/logger.js';
import { startDaemon } from '../server/main.js';
import { toDate } from '../server/db/rows.js';
import { addToDailyStats, type StoredEvent } from '../server/repositories/dailyStats.js';
import { createMerchant, testConfig } from '../test/helpers/daemon.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { call } from '../test/helpers/http.js';
import { median, timeMs as time } from './lib/stats.js';
import { seedCampaign } from './seed.js';

const AFFILIATES = Number(process.env.BENCH_AFFILIATES ?? 1_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 15);
const BATCH = 1_000;
const DAY_MS = 86_400_000;

const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);

/** The report computed the way the counters avoid: from every event of the range. */
function scan(db: Db, campaignId: number, from: string, to: string) {
  return db('tracking_events as e')
    .leftJoin('conversions as c', 'c.tracking_event_id', 'e.id')
    .where('e.campaign_id', campaignId)
    .whereBetween('e.occurred_at', [new Date(`${from}T00:00:00Z`), new Date(`${to}T23:59:59.999Z`)])
    .groupBy('e.affiliate_id')
    .select('e.affiliate_id')
    .count({ events: '*' })
    .sum({ revenue: 'c.order_value_cents' })
    .sum({ commissions: 'c.commission_cents' });
}

async function benchEngine(engine: 'sqlite' | 'mysql'): Promise<void> {
  const t = await createTestDatabase({ engine });
  const daemon = await startDaemon(testConfig(t.url), { logger: createLogger('error') });
  try {
    const merchant = await createMerchant(t.db, { plan: 'unlimited' });
    await seedCampaign(t.db, merchant.campaignId, { affiliates: AFFILIATES, conversions: 0, tag: 'R' });
    await t.db('affiliates').where({ campaign_id: merchant.campaignId }).update({ status: 'active' });
    const codes = (
      await t.db('affiliates').where({ campaign_id: merchant.campaignId, status: 'active' }).pluck('referral_id')
    ).map(String);

    const intakeStart = Date.now();
    const requests: number[] = [];
    let accepted = 0;
    for (let sent = 0; sent < EVENTS; sent += BATCH) {
      const events = Array.from({ length: Math.min(BATCH, EVENTS - sent) }, (_, i) => {
        const n = sent + i;
        const timestamp = new Date(Date.now() - ((n * 7919) % (365 * 24)) * 3_600_000).toISOString();
        const base = { campaign_id: merchant.publicId, affiliate_id: codes[(n * 31) % codes.length] ?? '' };
        if (n % 10 === 0) {
          const value = 10 + (n % 5000) / 100;
          return {
            ...base,
            event_type: 'conversion',
            properties: { order_id: `o-${n}`, order_value: value, timestamp },
          };
        }
        return { ...base, event_type: n % 10 === 1 ? 'lead' : 'page_view', properties: { timestamp } };
      });
      const started = process.hrtime.bigint();
      const reply = await call(daemon.url, 'POST', '/v1/events', { key: merchant.key, body: { events } });
      requests.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (reply.status !== 200) throw new Error(`intake answered ${reply.status}: ${reply.text.slice(0, 200)}`);
      accepted += (reply.body as { accepted: number }).accepted;
    }
    const intakeSeconds = (Date.now() - intakeStart) / 1000;
    if (engine === 'mysql') await t.db.raw('ANALYZE TABLE tracking_events, conversions, affiliate_daily_stats');
    else await t.db.raw('ANALYZE');

    const statsRows = Number((await t.db('affiliate_daily_stats').count({ n: '*' }).first())?.n ?? 0);
    console.log(
      `\n## ${engine}: ${accepted.toLocaleString('en')} events (${codes.length} active affiliates) stored in ` +
        `${intakeSeconds.toFixed(0)} s (${Math.round(accepted / intakeSeconds).toLocaleString('en')} events/s); ` +
        `${statsRows.toLocaleString('en')} counter rows\n`,
    );
    console.log('| range | counter rows read | report over HTTP (median) | scan of the events (median) |');
    console.log('|---|---|---|---|');
    for (const days of [30, 90, 365]) {
      const from = day(days - 1);
      const to = day(0);
      const rows = Number(
        (
          await t
            .db('affiliate_daily_stats')
            .where('campaign_id', merchant.campaignId)
            .whereBetween('day', [from, to])
            .count({ n: '*' })
            .first()
        )?.n ?? 0,
      );
      const path = `/v1/reports/affiliates?from=${from}&to=${to}`;
      // Warm-up; it may also meet a pooled socket the daemon closed while the scans ran.
      await call(daemon.url, 'GET', path, { key: merchant.key }).catch(() => undefined);
      const http: number[] = [];
      for (let i = 0; i < REPEAT; i++)
        http.push(await time(() => call(daemon.url, 'GET', path, { key: merchant.key })));
      const scans: number[] = [];
      for (let i = 0; i < Math.min(REPEAT, 3); i++)
        scans.push(await time(() => scan(t.db, merchant.campaignId, from, to)));
      console.log(
        `| ${days} days | ${rows.toLocaleString('en')} | ${median(http).toFixed(1)} ms | ${median(scans).toFixed(0)} ms |`,
      );
    }

    // The counters' own cost per intake: the upsert of what the intake stored (intake knows its
    // rows; here they are read first, untimed), inside a transaction that is rolled back, for a
    // batch of 1,000 and for one event.
    const intakes = await t
      .db('tracking_events')
      .where('campaign_id', merchant.campaignId)
      .groupBy('intake_id')
      .select('intake_id')
      .count({ n: '*' })
      .limit(20);
    const full = intakes.filter((row) => Number(row.n) === BATCH).map((row) => String(row.intake_id));
    const storedBy = async (intakeId: string): Promise<StoredEvent[]> => {
      const rows = await t
        .db('tracking_events as e')
        .leftJoin('conversions as c', 'c.tracking_event_id', 'e.id')
        .where('e.intake_id', intakeId)
        .select(
          'e.campaign_id',
          'e.affiliate_id',
          'e.event_type',
          'e.occurred_at',
          'c.order_value_cents',
          'c.commission_cents',
        );
      const cents = (value: unknown) => (value === null ? null : Number(value));
      return rows.map((row) => ({
        campaignId: Number(row.campaign_id),
        affiliateId: Number(row.affiliate_id),
        eventType: String(row.event_type),
        occurredAt: toDate(row.occurred_at),
        orderValueCents: cents(row.order_value_cents),
        commissionCents: cents(row.commission_cents),
      }));
    };
    const counted = async (intakeId: string) => {
      const events = await storedBy(intakeId);
      return time(() =>
        inTransaction(t.db, async (trx) => {
          await addToDailyStats(trx, events);
          await trx.rollback();
        }).catch(() => undefined),
      );
    };
    const costs: number[] = [];
    for (const intakeId of full.slice(0, 10)) costs.push(await counted(intakeId));
    const single = `single-${randomBytes(4).toString('hex')}`;
    const [eventId] = await t.db('tracking_events').insert({
      campaign_id: merchant.campaignId,
      affiliate_id: Number((await t.db('affiliates').where({ campaign_id: merchant.campaignId }).first('id'))?.id),
      event_type: 'page_view',
      intake_id: single,
      occurred_at: new Date(),
      created_at: new Date(),
    });
    const singles: number[] = [];
    for (let i = 0; i < 20; i++) singles.push(await counted(single));
    await t
      .db('tracking_events')
      .where({ id: Number(eventId) })
      .delete();
    console.log(
      `\nCounter statements per intake (in a rolled-back transaction, median): ` +
        `${median(costs).toFixed(1)} ms for 1,000 events (a whole 1,000-event request: ${median(requests).toFixed(0)} ms), ` +
        `${median(singles).toFixed(2)} ms for one event.`,
    );
  } finally {
    await daemon.close();
    await t.drop();
  }
}

const engines: Array<'sqlite' | 'mysql'> = ['sqlite', ...(process.env.TEST_MYSQL_URL ? (['mysql'] as const) : [])];
for (const engine of engines) await benchEngine(engine);
