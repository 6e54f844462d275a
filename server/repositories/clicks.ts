import { insertRows } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import type { ClickRow } from '../db/analyticsRows.js';

/** Where a referral link leads, and whose it is (docs/analytics.md). */
export interface LinkTarget {
  campaignId: number;
  /** The campaign's `--site-url`; null: the campaign has none yet. */
  siteUrl: string | null;
  cookieDays: number;
  /** The active affiliate of the campaign holding the code; null for an unknown, pending or inactive code. */
  affiliateId: number | null;
}

/** A click as the link's service decided it. */
export interface NewClick {
  id: string;
  campaignId: number;
  affiliateId: number;
  createdAt: Date;
  bot: boolean;
  device: string;
  browser: string;
  os: string;
  country: string | null;
  referrer: string | null;
  utm: Readonly<Record<UtmTag, string | null>>;
}

export const UTM_TAGS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;
export type UtmTag = (typeof UTM_TAGS)[number];

interface LinkRow {
  id: number;
  site_url: string | null;
  cookie_days: number;
  affiliate_id: number | null;
  status: string | null;
}

/**
 * A campaign by public id with its affiliate holding the code (upper-cased: codes are unique on
 * that form, spec §10.3), in one query served by the unique indexes on `public_id` and
 * `referral_key`. Undefined when the campaign does not exist.
 */
export async function findLinkTarget(db: Db, publicId: string, referralKey: string): Promise<LinkTarget | undefined> {
  const row = await db('campaigns as c')
    .leftJoin('affiliates as a', (join) => {
      join.on('a.campaign_id', '=', 'c.id').andOn('a.referral_key', '=', db.raw('?', [referralKey]));
    })
    .where('c.public_id', publicId)
    .first<LinkRow | undefined>('c.id', 'c.site_url', 'c.cookie_days', 'a.id as affiliate_id', 'a.status');
  if (!row) return undefined;
  return {
    campaignId: Number(row.id),
    siteUrl: row.site_url,
    cookieDays: Number(row.cookie_days),
    affiliateId: row.affiliate_id !== null && row.status === 'active' ? Number(row.affiliate_id) : null,
  };
}

const CLICK_COLUMNS = [
  'id',
  'campaign_id',
  'affiliate_id',
  'created_at',
  'bot',
  'device',
  'browser',
  'os',
  'country',
  'referrer',
  ...UTM_TAGS,
] as const satisfies readonly (keyof ClickRow)[];

function clickRow(click: NewClick): ClickRow {
  return {
    id: click.id,
    campaign_id: click.campaignId,
    affiliate_id: click.affiliateId,
    created_at: click.createdAt,
    bot: click.bot,
    device: click.device,
    browser: click.browser,
    os: click.os,
    country: click.country,
    referrer: click.referrer,
    ...click.utm,
  };
}

/** The clicks of one flush of the click writer: one multi-row insert (500 rows a statement). */
export async function insertClicks(trx: Trx, clicks: readonly NewClick[]): Promise<void> {
  await insertRows(trx, 'clicks', CLICK_COLUMNS, clicks.map(clickRow));
}
