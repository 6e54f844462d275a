import type { Db, Trx } from '../db/knex.js';

/**
 * The plan limits' counters: the campaign's live affiliate count (spec §11, spec §4.1.5) and
 * each month's conversions (spec §10.8), each changed only by a conditional update.
 */

/** spec §10.8: months are calendar months in UTC. */
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
 * intakes, so the limit holds across requests and daemons (spec §10.8). When refused,
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

/**
 * Takes one slot of the plan's affiliate limit (spec §4.1.5) with a single conditional UPDATE:
 * concurrent creates queue on the campaign row and can never overshoot.
 */
export async function reserveAffiliateSlot(trx: Trx, campaignId: number): Promise<boolean> {
  const changed = await trx('campaigns')
    .where('id', campaignId)
    .andWhereRaw(
      'affiliate_count < COALESCE((SELECT max_affiliates FROM plans WHERE plans.id = campaigns.plan_id), 4294967295)',
    )
    .increment('affiliate_count', 1);
  return changed > 0;
}

export async function releaseAffiliateSlot(trx: Trx, campaignId: number): Promise<void> {
  await trx('campaigns').where('id', campaignId).andWhere('affiliate_count', '>', 0).decrement('affiliate_count', 1);
}

export async function affiliateUsage(
  db: Db | Trx,
  campaignId: number,
): Promise<{ count: number; max: number | null; plan: string }> {
  const row = await db('campaigns')
    .join('plans', 'plans.id', 'campaigns.plan_id')
    .where('campaigns.id', campaignId)
    .first<{ affiliate_count: number; max_affiliates: number | null; name: string }>(
      'campaigns.affiliate_count',
      'plans.max_affiliates',
      'plans.name',
    );
  return {
    count: Number(row?.affiliate_count ?? 0),
    max: row?.max_affiliates ?? null,
    plan: row?.name ?? '',
  };
}
