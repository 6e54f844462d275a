import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import type { Db } from '../../../server/db/knex.js';
import { clientEnv, spawnCli } from '../../helpers/cli.js';
import type { Merchant } from '../../helpers/daemon.js';
import { recorder } from './recorder.js';
import type { ReplayFile } from './replayFile.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function count(db: Db, table: 'conversions' | 'tracking_events', campaignId: number): Promise<number> {
  const row = await db(table).where('campaign_id', campaignId).count({ n: '*' }).first();
  return Number((row as { n?: number | string } | undefined)?.n ?? 0);
}

async function usage(db: Db, campaignId: number): Promise<number> {
  const row = await db('monthly_usage').where('campaign_id', campaignId).sum({ n: 'conversions' }).first();
  return Number((row as { n?: number | string | null } | undefined)?.n ?? 0);
}

/** `affiliated events replay FILE --json` against `baseUrl`, as a child process; its output is scanned too. */
export function replay(file: string, config: string, baseUrl: string, key: string) {
  const cli = spawnCli(['events', 'replay', file, '--json'], { env: clientEnv(config, { baseUrl, apiKey: key }) });
  cli.done.then((result) => {
    for (const line of `${result.stdout}\n${result.stderr}`.split('\n')) recorder.log(line);
  });
  return cli;
}

/** What `events replay --json` prints at the end. */
export interface ReplaySummary {
  accepted: number;
  skipped: Record<string, number>;
  rejected: number;
  retries: object;
}

/** Waits until the campaign holds `share` of `total` conversions (the database may be down meanwhile). */
export async function waitForShare(db: Db, campaignId: number, total: number, share: number, done: () => boolean) {
  while (!done()) {
    try {
      if ((await count(db, 'conversions', campaignId)) >= share * total) return;
    } catch {
      // the database is down or restarting: look again
    }
    await sleep(100);
  }
}

/** The file's distinct conversions and tracking events are stored, each once, and counted once in the month's usage. */
export async function expectExactly(db: Db, merchant: Merchant, file: ReplayFile): Promise<void> {
  const conversions = await count(db, 'conversions', merchant.campaignId);
  const events = await count(db, 'tracking_events', merchant.campaignId);
  recorder.count('crash: rows lost', Math.max(0, file.conversions - conversions) + Math.max(0, file.events - events));
  recorder.count(
    'crash: rows doubled',
    Math.max(0, conversions - file.conversions) + Math.max(0, events - file.events),
  );
  expect(conversions, 'conversions: the file’s distinct orders, no more, no less').to.equal(file.conversions);
  expect(events, 'tracking events: page views, leads and distinct conversions').to.equal(file.events);
  expect(await usage(db, merchant.campaignId), 'the month’s usage counts each conversion once').to.equal(
    file.conversions,
  );
}

/**
 * When the stored rows do not match the file: which of the file's orders have no conversion,
 * and how many of those have no tracking event either (the whole request lost) rather than
 * only the conversion. Printed by a failing test so that a rare failure explains itself.
 */
export async function missingOrders(db: Db, campaignId: number, file: string): Promise<string> {
  const orders = new Set<string>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (line === '') continue;
    const event = JSON.parse(line) as { event_type: string; properties?: { order_id?: string } };
    if (event.event_type === 'conversion' && event.properties?.order_id) orders.add(event.properties.order_id);
  }
  const stored = new Set((await db('conversions').where('campaign_id', campaignId).pluck('order_id')).map(String));
  const tracked = new Set(
    (await db('tracking_events').where('campaign_id', campaignId).whereNotNull('order_id').pluck('order_id')).map(
      String,
    ),
  );
  const missing = [...orders].filter((order) => !stored.has(order));
  const untracked = missing.filter((order) => !tracked.has(order));
  return `${missing.length} orders without a conversion (${untracked.length} without a tracking event either), e.g. ${missing.slice(0, 5).join(', ')}`;
}
