import { inChunks, insertRows } from '../db/bulk.js';
import type { Trx } from '../db/knex.js';
import { type CampaignCustomerRow, toDate } from '../db/rows.js';

/** A customer's payments in one request: when the first of them occurred, and how many there are. */
export interface CustomerPayments {
  customerHash: string;
  firstOccurredAt: Date;
  /** Payments to count (negative: take back ones that stored nothing). */
  count: number;
}

/** What the campaign holds about a customer: its first attributed payment and how many earned. */
export interface StoredCustomer {
  firstOccurredAt: Date;
  /** The intake that stored the first payment: a request knows it made it by this id. */
  firstIntakeId: string;
  payments: number;
}

const COLUMNS = [
  'campaign_id',
  'customer_hash',
  'first_occurred_at',
  'first_intake_id',
  'payments',
  'created_at',
] as const satisfies readonly (keyof CampaignCustomerRow)[];

/**
 * One multi-row upsert: a customer the campaign does not know yet is inserted with this request's
 * first payment and intake id (the primary key decides who is first, across daemons and Galera
 * nodes alike); one it knows has its payment count moved by `count`. The row stays locked by
 * this transaction until it commits, so the counts it then reads are its own.
 */
export async function countPayments(
  trx: Trx,
  campaignId: number,
  intakeId: string,
  payments: readonly CustomerPayments[],
  now: Date,
): Promise<void> {
  const rows = payments.map((p): CampaignCustomerRow => ({
    campaign_id: campaignId,
    customer_hash: p.customerHash,
    first_occurred_at: p.firstOccurredAt,
    first_intake_id: intakeId,
    payments: p.count,
    created_at: now,
  }));
  await insertRows(trx, 'campaign_customers', COLUMNS, rows, {
    key: ['campaign_id', 'customer_hash'],
    increment: ['payments'],
  });
}

/** The campaign's customers among these hashes, as committed (a locking read: never an older snapshot). */
export async function readCustomers(
  trx: Trx,
  campaignId: number,
  hashes: readonly string[],
): Promise<Map<string, StoredCustomer>> {
  const rows = await inChunks(hashes, (part) =>
    trx('campaign_customers')
      .where('campaign_id', campaignId)
      .whereIn('customer_hash', part)
      .forUpdate()
      .select<CampaignCustomerRow[]>('customer_hash', 'first_occurred_at', 'first_intake_id', 'payments'),
  );
  return new Map(
    rows.map((row) => [
      row.customer_hash,
      {
        firstOccurredAt: toDate(row.first_occurred_at),
        firstIntakeId: row.first_intake_id,
        payments: Number(row.payments),
      },
    ]),
  );
}
