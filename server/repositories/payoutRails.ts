import type { PayoutRailName } from '../../shared/schemas/payoutRail.js';
import { isUniqueViolation, type Db, type Trx } from '../db/knex.js';
import { type PayoutRailRow, toDate } from '../db/rows.js';

/** A campaign's rail as the API shows it: never its credentials. */
export interface PayoutRailRecord {
  rail: PayoutRailName;
  hasWebhookToken: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The sealed credentials of a rail (services/payouts/rails.ts opens them). */
export interface SealedRail {
  campaignId: number;
  currency: string;
  credentialsEnc: string;
  webhookTokenEnc: string | null;
}

const toRecord = (row: PayoutRailRow): PayoutRailRecord => ({
  rail: row.rail,
  hasWebhookToken: row.webhook_token_enc !== null,
  createdAt: toDate(row.created_at),
  updatedAt: toDate(row.updated_at),
});

/** Connects the rail, or replaces its credentials: the unique (campaign, rail) decides which. */
export async function saveRail(
  db: Db | Trx,
  campaignId: number,
  rail: PayoutRailName,
  sealed: { credentials: string; webhookToken: string | null },
  now: Date,
): Promise<void> {
  try {
    await db('payout_rails').insert({
      campaign_id: campaignId,
      rail,
      credentials_enc: sealed.credentials,
      webhook_token_enc: sealed.webhookToken,
      created_at: now,
      updated_at: now,
    });
    return;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  await db('payout_rails')
    .where({ campaign_id: campaignId, rail })
    .update({ credentials_enc: sealed.credentials, webhook_token_enc: sealed.webhookToken, updated_at: now });
}

export async function findRail(
  db: Db | Trx,
  campaignId: number,
  rail: PayoutRailName,
): Promise<PayoutRailRecord | undefined> {
  const row = await db<PayoutRailRow>('payout_rails').where({ campaign_id: campaignId, rail }).first();
  return row && toRecord(row);
}

export async function listRails(db: Db | Trx, campaignId: number): Promise<PayoutRailRecord[]> {
  const rows = await db<PayoutRailRow>('payout_rails').where('campaign_id', campaignId).orderBy('rail');
  return rows.map(toRecord);
}

/** The rails a campaign has connected, by name. */
export async function connectedRails(db: Db | Trx, campaignId: number): Promise<Set<PayoutRailName>> {
  return new Set((await listRails(db, campaignId)).map((record) => record.rail));
}

export async function deleteRail(db: Db | Trx, campaignId: number, rail: PayoutRailName): Promise<number> {
  return db('payout_rails').where({ campaign_id: campaignId, rail }).delete();
}

type SealedView = Pick<PayoutRailRow, 'campaign_id' | 'credentials_enc' | 'webhook_token_enc'> & { currency: string };

function toSealed(row: SealedView): SealedRail {
  return {
    campaignId: Number(row.campaign_id),
    currency: row.currency,
    credentialsEnc: row.credentials_enc,
    webhookTokenEnc: row.webhook_token_enc,
  };
}

const SEALED_COLUMNS = ['r.campaign_id', 'r.credentials_enc', 'r.webhook_token_enc', 'c.currency'];

async function sealedWhere(db: Db, where: Record<string, unknown>): Promise<SealedRail | undefined> {
  const row = await db('payout_rails as r')
    .join('campaigns as c', 'c.id', 'r.campaign_id')
    .where(where)
    .first<SealedView | undefined>(SEALED_COLUMNS);
  return row && toSealed(row);
}

/** The rail's sealed credentials, for a send or a look-up. */
export function sealedRail(db: Db, campaignId: number, rail: PayoutRailName): Promise<SealedRail | undefined> {
  return sealedWhere(db, { 'r.campaign_id': campaignId, 'r.rail': rail });
}

/** The same, by the campaign's public id: what a provider's callback names. */
export function sealedRailOf(db: Db, publicId: string, rail: PayoutRailName): Promise<SealedRail | undefined> {
  return sealedWhere(db, { 'c.public_id': publicId, 'r.rail': rail });
}
