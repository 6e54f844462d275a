import { randomBytes } from 'node:crypto';
import type { Db, Trx } from '../server/db/knex.js';
import { engineOf } from '../server/db/knex.js';
import { newAffiliateRow } from '../server/repositories/affiliates.js';

/**
 * Bulk rows straight into the tables (the API would spend the run on bcrypt). Affiliates get
 * spread `created_at`s and statuses; conversions all four statuses; some affiliates a paid payout.
 * On SQLite in one transaction: a commit (and its fsync) per chunk of rows made seeding the
 * large campaign take 26 s rather than 15. Not on MariaDB, where one transaction of 400,000
 * rows (and its FULLTEXT index, written at commit) was slower than a commit per chunk.
 */
export function seedCampaign(
  db: Db,
  campaignId: number,
  options: { affiliates: number; conversions: number; tag: string },
): Promise<number[]> {
  return engineOf(db) === 'sqlite'
    ? db.transaction((trx) => seedInto(trx, campaignId, options))
    : seedInto(db, campaignId, options);
}

async function seedInto(
  db: Db | Trx,
  campaignId: number,
  options: { affiliates: number; conversions: number; tag: string },
): Promise<number[]> {
  const chunk = engineOf(db) === 'sqlite' ? 500 : 2000;
  const statuses = ['active', 'active', 'active', 'inactive', 'pending'] as const;
  const start = Date.now() - options.affiliates * 1000;
  const hash = '$2b$04$abcdefghijklmnopqrstuu1234567890123456789012345678901';
  for (let from = 0; from < options.affiliates; from += chunk) {
    const rows = [];
    for (let i = from; i < Math.min(from + chunk, options.affiliates); i++) {
      const at = new Date(start + i * 1000);
      // The repository derives the key and search columns, as it does for the API.
      rows.push(
        newAffiliateRow(
          campaignId,
          {
            email: `aff${i}.${options.tag}@example.com`,
            referralId: `${options.tag}${i.toString(36)}`.toUpperCase(),
            name: `Affiliate ${i} ${options.tag}`,
            phone: null,
            status: statuses[i % statuses.length] ?? 'active',
          },
          hash,
          at,
        ),
      );
    }
    await db('affiliates').insert(rows);
  }
  await db('campaigns').where({ id: campaignId }).update({ affiliate_count: options.affiliates });
  const ids = (await db('affiliates').where({ campaign_id: campaignId }).orderBy('id').pluck('id')).map(Number);

  const conversionStatuses = ['pending', 'approved', 'rejected', 'paid'] as const;
  const now = new Date();
  for (let from = 0; from < options.conversions; from += chunk) {
    const rows = [];
    for (let i = from; i < Math.min(from + chunk, options.conversions); i++) {
      rows.push({
        campaign_id: campaignId,
        affiliate_id: ids[(i * 7919) % ids.length],
        order_id: `${options.tag}-${i}-${randomBytes(3).toString('hex')}`,
        order_value_cents: 10_000 + (i % 5000),
        commission_cents: 1_000 + (i % 500),
        status: conversionStatuses[i % conversionStatuses.length],
        occurred_at: now,
        created_at: now,
        updated_at: now,
      });
    }
    await db('conversions').insert(rows);
  }
  const payouts = [];
  for (let i = 0; i < ids.length; i += 10) {
    payouts.push({
      campaign_id: campaignId,
      affiliate_id: ids[i],
      amount_cents: 5000,
      status: 'paid' as const,
      created_at: now,
      paid_at: now,
    });
  }
  for (let from = 0; from < payouts.length; from += chunk)
    await db('payouts').insert(payouts.slice(from, from + chunk));
  return ids;
}
