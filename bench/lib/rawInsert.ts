import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db, Trx } from '../../server/db/knex.js';
import { engineOf } from '../../server/db/knex.js';

/** Rows per statement: 500 rows of up to 12 columns stay within both engines' bound-parameter limits. */
const ROWS_PER_STATEMENT = 500;

export interface RawBatch {
  campaignId: number;
  /** Conversion n goes to affiliateIds[n % length], as the intake's referral codes do. */
  affiliateIds: readonly number[];
  orderIds: readonly string[];
  intakeId: string;
  /**
   * Enabled endpoints of the campaign subscribed to `conversion.created`: a message per
   * conversion and a delivery per endpoint go into the webhook outbox, as the intake writes
   * them. None (the default) writes no outbox row, as the intake does for such a campaign.
   */
  webhookEndpointIds?: readonly number[];
}

/** Hand-written multi-row INSERT, bound through Knex's raw on the pool's own driver. */
async function insertMany(
  trx: Trx,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  tail = '',
): Promise<void> {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const part = rows.slice(start, start + ROWS_PER_STATEMENT);
    await trx.raw(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${part.map(() => tuple).join(', ')}${tail}`,
      part.flat() as Knex.RawBinding[],
    );
  }
}

const ORDER_VALUE_CENTS = 4990;
const COMMISSION_CENTS = 499;
/** The explanation intake stores on each conversion (the campaign's rule, docs/commissions.md). */
const RULE = JSON.stringify({ source: 'campaign', commissionType: 'percent', commissionValue: 10 });

/** Rows of a raw SELECT: mysql2 answers [rows, fields], better-sqlite3 the rows. */
function rowsOf(db: Db | Trx, result: unknown): Array<Record<string, unknown>> {
  return (engineOf(db) === 'mysql' ? (result as [unknown[]])[0] : result) as Array<Record<string, unknown>>;
}

/**
 * The floor writes every counter in one shard row, as one daemon does with its own (the daemon's
 * shards are numbered from 1; this one stays apart from them).
 */
const FLOOR_SHARD = 0;

/** This month's usage row of the campaign, which the intake creates before its first conversion. */
export async function ensureUsageRow(db: Db, campaignId: number): Promise<void> {
  await db('monthly_usage')
    .insert({
      campaign_id: campaignId,
      month: new Date().toISOString().slice(0, 7),
      shard: FLOOR_SHARD,
      conversions: 0,
    })
    .onConflict(['campaign_id', 'month', 'shard'])
    .ignore();
}

/**
 * The floor under batched intake: exactly the rows a batch of `orderIds.length` conversions
 * becomes, in one transaction, on the same database, driver and connection settings as the
 * daemon (SQLite: WAL, synchronous=FULL): a tracking event each (their ids read back by intake
 * id, as the conversions need them), the month's usage counter, a pending conversion each,
 * the report's and the overview's daily counter rows (upserts that add), and the outbox's
 * messages and deliveries when the campaign has endpoints. Multi-row statements written by hand, no builder. What the
 * intake does beyond this (HTTP, JSON, validation, the key, the referral lookup, dedupe, the
 * plan limit's condition) is what the ratio measures.
 */
export async function rawInsertBatch(db: Db, batch: RawBatch): Promise<void> {
  const mysql = engineOf(db) === 'mysql';
  const now = new Date();
  const day = now.toISOString().slice(0, 10);
  const affiliateOf = (i: number) => batch.affiliateIds[i % batch.affiliateIds.length] ?? 0;
  const properties = (orderId: string) => JSON.stringify({ order_id: orderId, order_value: 49.9 });
  await db.transaction(async (trx) => {
    await insertMany(
      trx,
      'tracking_events',
      [
        'campaign_id',
        'affiliate_id',
        'event_type',
        'order_id',
        'event_key',
        'order_key',
        'properties',
        'intake_id',
        'occurred_at',
        'created_at',
      ],
      batch.orderIds.map((orderId, i) => [
        batch.campaignId,
        affiliateOf(i),
        'conversion',
        orderId,
        // The dedupe keys as intake writes them: a filler for the absent event_id, `=` and the order id.
        `#${batch.intakeId}.${i}`,
        `=${orderId}`,
        properties(orderId),
        batch.intakeId,
        now,
        now,
      ]),
    );
    const stored = rowsOf(
      trx,
      await trx.raw('SELECT id, affiliate_id, order_id FROM tracking_events WHERE intake_id = ?', [batch.intakeId]),
    ).map((row) => ({ id: Number(row.id), affiliate_id: Number(row.affiliate_id), order_id: String(row.order_id) }));
    await trx.raw(
      'UPDATE monthly_usage SET conversions = conversions + ? WHERE campaign_id = ? AND month = ? AND shard = ?',
      [stored.length, batch.campaignId, day.slice(0, 7), FLOOR_SHARD],
    );
    await insertMany(
      trx,
      'conversions',
      [
        'campaign_id',
        'affiliate_id',
        'tracking_event_id',
        'order_id',
        'order_value_cents',
        'commission_cents',
        'intake_commission_cents',
        'commission_rule',
        'status',
        'properties',
        'occurred_at',
        'created_at',
        'updated_at',
      ],
      stored.map((row) => [
        batch.campaignId,
        row.affiliate_id,
        row.id,
        row.order_id,
        ORDER_VALUE_CENTS,
        COMMISSION_CENTS,
        COMMISSION_CENTS,
        RULE,
        'pending',
        properties(row.order_id),
        now,
        now,
        now,
      ]),
    );
    const perAffiliate = new Map<number, number>();
    for (const row of stored) perAffiliate.set(row.affiliate_id, (perAffiliate.get(row.affiliate_id) ?? 0) + 1);
    const counters = ['conversions', 'revenue_cents', 'commission_cents'];
    const add = counters.map((c) => (mysql ? `${c} = ${c} + VALUES(${c})` : `${c} = ${c} + excluded.${c}`));
    await insertMany(
      trx,
      'affiliate_daily_stats',
      ['campaign_id', 'day', 'affiliate_id', 'shard', ...counters],
      [...perAffiliate]
        .sort(([a], [b]) => a - b)
        .map(([affiliateId, n]) => [
          batch.campaignId,
          day,
          affiliateId,
          FLOOR_SHARD,
          n,
          n * ORDER_VALUE_CENTS,
          n * COMMISSION_CENTS,
        ]),
      mysql
        ? ` ON DUPLICATE KEY UPDATE ${add.join(', ')}`
        : ` ON CONFLICT (campaign_id, day, affiliate_id, shard) DO UPDATE SET ${add.join(', ')}`,
    );
    // The campaign's day, which intake adds the same counters to (the dashboard's overview).
    await insertMany(
      trx,
      'campaign_daily_stats',
      ['campaign_id', 'day', 'shard', ...counters],
      [
        [
          batch.campaignId,
          day,
          FLOOR_SHARD,
          stored.length,
          stored.length * ORDER_VALUE_CENTS,
          stored.length * COMMISSION_CENTS,
        ],
      ],
      mysql
        ? ` ON DUPLICATE KEY UPDATE ${add.join(', ')}`
        : ` ON CONFLICT (campaign_id, day, shard) DO UPDATE SET ${add.join(', ')}`,
    );
    if (batch.webhookEndpointIds && batch.webhookEndpointIds.length > 0)
      await rawOutbox(trx, batch.campaignId, batch.webhookEndpointIds, stored, now);
  });
}

/**
 * `conversion.created` for each conversion just written: its message (the conversion as the
 * API shows it, ids read back by order id), and a delivery per endpoint, due now.
 */
async function rawOutbox(
  trx: Trx,
  campaignId: number,
  endpointIds: readonly number[],
  events: ReadonlyArray<{ id: number; affiliate_id: number; order_id: string }>,
  now: Date,
): Promise<void> {
  const byOrder = new Map(events.map((e) => [e.order_id, e]));
  const orderIds = [...byOrder.keys()];
  const messages: unknown[][] = [];
  for (let start = 0; start < orderIds.length; start += ROWS_PER_STATEMENT) {
    const part = orderIds.slice(start, start + ROWS_PER_STATEMENT);
    const conversions = rowsOf(
      trx,
      await trx.raw(
        `SELECT id, order_id FROM conversions WHERE campaign_id = ? AND order_id IN (${part.map(() => '?').join(', ')})`,
        [campaignId, ...part],
      ),
    );
    for (const c of conversions) {
      const orderId = String(c.order_id);
      const data = {
        id: Number(c.id),
        affiliateId: byOrder.get(orderId)?.affiliate_id,
        orderId,
        orderValue: ORDER_VALUE_CENTS / 100,
        commission: COMMISSION_CENTS / 100,
        status: 'pending',
        kind: 'sale',
        sourceConversionId: null,
        commissionRule: JSON.parse(RULE) as unknown,
        flags: [],
        refundedAmount: 0,
        occurredAt: now.toISOString(),
        createdAt: now.toISOString(),
      };
      const payload = JSON.stringify({ type: 'conversion.created', timestamp: now.toISOString(), data });
      messages.push([campaignId, `msg_${randomBytes(16).toString('base64url')}`, 'conversion.created', payload, now]);
    }
  }
  await insertMany(
    trx,
    'webhook_messages',
    ['campaign_id', 'message_id', 'event_type', 'payload', 'created_at'],
    messages,
  );
  const deliveries: unknown[][] = [];
  for (let start = 0; start < messages.length; start += ROWS_PER_STATEMENT) {
    const ids = messages.slice(start, start + ROWS_PER_STATEMENT).map((m) => String(m[1]));
    const stored = rowsOf(
      trx,
      await trx.raw(`SELECT id FROM webhook_messages WHERE message_id IN (${ids.map(() => '?').join(', ')})`, ids),
    );
    for (const message of stored)
      for (const endpointId of endpointIds)
        deliveries.push([endpointId, Number(message.id), 'pending', 0, now, now, now]);
  }
  await insertMany(
    trx,
    'webhook_deliveries',
    ['endpoint_id', 'message_id', 'status', 'attempt_count', 'next_attempt_at', 'created_at', 'updated_at'],
    deliveries,
  );
}
