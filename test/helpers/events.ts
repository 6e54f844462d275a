import type { Db } from '../../server/db/knex.js';
import { newAffiliateRow } from '../../server/repositories/affiliates.js';

let sequence = 0;

/** An affiliate row written straight to the database: event tests need codes, not the affiliates API. */
export async function addAffiliate(
  db: Db,
  campaignId: number,
  options: {
    code?: string;
    status?: 'pending' | 'active' | 'inactive';
    /** The row as stored before 20261122150000_affiliate_search, for a database migrated only that far. */
    beforeSearchIndex?: boolean;
  } = {},
): Promise<{ id: number; code: string }> {
  sequence++;
  const code = options.code ?? `AFF${process.pid}X${sequence}`;
  const email = `affiliate${sequence}@example.com`;
  // The repository derives the key columns, as it does for the API.
  const row = newAffiliateRow(
    campaignId,
    { email, referralId: code, name: null, phone: null, status: options.status ?? 'active' },
    '$2b$04$abcdefghijklmnopqrstuuJkYQ9yS3N6n8fQwP9pCwvF5E2b3HqW6',
    new Date(),
  );
  const {
    search_words: _words,
    group_id: _group,
    commission_override_type: _type,
    commission_override_value: _value,
    parent_affiliate_id: _parent,
    lineage_version: _version,
    ...older
  } = row;
  const [id] = await db('affiliates').insert(options.beforeSearchIndex ? older : row);
  return { id: Number(id), code };
}

export function conversion(
  campaign: string,
  affiliate: string,
  orderId: string,
  orderValue: number,
  extra: Record<string, unknown> = {},
) {
  return {
    event_type: 'conversion',
    campaign_id: campaign,
    affiliate_id: affiliate,
    properties: { order_id: orderId, order_value: orderValue },
    ...extra,
  };
}

export function pageView(campaign: string, affiliate: string, extra: Record<string, unknown> = {}) {
  return { event_type: 'page_view', campaign_id: campaign, affiliate_id: affiliate, ...extra };
}

export function lead(campaign: string, affiliate: string, extra: Record<string, unknown> = {}) {
  return { event_type: 'lead', campaign_id: campaign, affiliate_id: affiliate, ...extra };
}

/** Rows stored for a campaign: what a test asserts on, never the answer alone. */
export async function storedCounts(
  db: Db,
  campaignId: number,
): Promise<{ events: number; conversions: number; usage: number }> {
  const count = async (table: string) => {
    const [row] = await db(table).where('campaign_id', campaignId).count<{ n: number | string }[]>({ n: '*' });
    return Number(row?.n ?? 0);
  };
  const usage = await db('monthly_usage')
    .where('campaign_id', campaignId)
    .sum<{ n: number | string | null }[]>({ n: 'conversions' });
  return {
    events: await count('tracking_events'),
    conversions: await count('conversions'),
    usage: Number(usage[0]?.n ?? 0),
  };
}
