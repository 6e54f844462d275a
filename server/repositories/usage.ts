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
 * Adds `count` conversions to the month's counter only if the total stays within `max`
 * (null = unlimited). One conditional UPDATE: the row lock it takes serialises concurrent
 * intakes, so the limit holds across requests and daemons (product §3.8).
 */
export async function reserveConversions(
  trx: Trx,
  campaignId: number,
  at: Date,
  count: number,
  max: number | null,
): Promise<{ ok: boolean; current: number }> {
  const month = monthKey(at);
  await trx('monthly_usage')
    .insert({ campaign_id: campaignId, month, conversions: 0 })
    .onConflict(['campaign_id', 'month'])
    .ignore();
  const query = trx('monthly_usage').where({ campaign_id: campaignId, month });
  if (max !== null) query.andWhere('conversions', '<=', max - count);
  const changed = await query.increment('conversions', count);
  if (changed > 0) return { ok: true, current: 0 };
  const { conversions } = await readMonthlyUsage(trx, campaignId, at);
  return { ok: false, current: conversions };
}
