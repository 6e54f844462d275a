import type { Db, Trx } from '../db/knex.js';

/** product §3.8: months are calendar months in UTC. */
export function monthKey(at: Date): string {
  return at.toISOString().slice(0, 7);
}

export async function readMonthlyUsage(db: Db | Trx, campaignId: number, at: Date) {
  const month = monthKey(at);
  const row = await db('monthly_usage')
    .where({ campaign_id: campaignId, month })
    .first<{ conversions: number } | undefined>('conversions');
  return { month, conversions: Number(row?.conversions ?? 0) };
}

/**
 * Creates the month's counter row when missing. Call it outside the intake transaction: on
 * InnoDB an INSERT IGNORE that meets an existing row takes a shared lock, and concurrent
 * transactions that hold it and then UPDATE the row deadlock one another.
 */
export async function ensureMonthlyUsage(db: Db | Trx, campaignId: number, at: Date): Promise<void> {
  await db('monthly_usage')
    .insert({ campaign_id: campaignId, month: monthKey(at), conversions: 0 })
    .onConflict(['campaign_id', 'month'])
    .ignore();
}

/**
 * Adds `count` conversions to the month's counter only if the total stays within `max`
 * (null = unlimited). One conditional UPDATE: the row lock it takes serialises concurrent
 * intakes, so the limit holds across requests and daemons (product §3.8). When refused,
 * `current` comes from a locking read, so it is the latest count, not a snapshot's.
 */
export async function reserveConversions(
  trx: Trx,
  campaignId: number,
  at: Date,
  count: number,
  max: number | null,
): Promise<{ ok: boolean; current: number }> {
  const month = monthKey(at);
  for (let attempt = 0; attempt < 2; attempt++) {
    const query = trx('monthly_usage').where({ campaign_id: campaignId, month });
    if (max !== null) query.andWhere('conversions', '<=', max - count);
    if ((await query.increment('conversions', count)) > 0) return { ok: true, current: 0 };
    const row = await trx('monthly_usage')
      .where({ campaign_id: campaignId, month })
      .forUpdate()
      .first<{ conversions: number } | undefined>('conversions');
    if (row) return { ok: false, current: Number(row.conversions) };
    // No row yet (ensureMonthlyUsage not called): create it and try once more.
    await ensureMonthlyUsage(trx, campaignId, at);
  }
  return { ok: false, current: 0 };
}
