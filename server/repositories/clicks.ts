import { chunks, inChunks, insertRows } from '../db/bulk.js';
import { type Db, engineOf, type Trx } from '../db/knex.js';
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
  'rollup_pending',
] as const satisfies readonly (keyof ClickRow)[];

function clickRow(click: NewClick, pending: boolean): ClickRow {
  return {
    rollup_pending: pending,
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

/**
 * The clicks of one flush of the click writer: one multi-row insert (500 rows a statement),
 * `pending` for the rollup's fold (docs/analytics.md, "The rollups").
 */
export async function insertClicks(trx: Trx, clicks: readonly NewClick[], pending: boolean): Promise<void> {
  await insertRows(
    trx,
    'clicks',
    CLICK_COLUMNS,
    clicks.map((click) => clickRow(click, pending)),
  );
}

/** A click the rollup has yet to count: what the rollup keeps of it. */
export type PendingClick = Pick<
  NewClick,
  'id' | 'campaignId' | 'affiliateId' | 'createdAt' | 'bot' | 'device' | 'country' | 'referrer'
> & { utmSource: string | null };

/** What the fold reads of a click: whose and when it is, whether a bot's, and its rollup dimensions. */
const PENDING_COLUMNS = ['id', 'campaign_id', 'affiliate_id', 'created_at', 'bot'] as const;
const PENDING_DIMENSIONS = ['device', 'country', 'referrer', 'utm_source'] as const;
type PendingRow = Pick<ClickRow, (typeof PENDING_COLUMNS)[number] | (typeof PENDING_DIMENSIONS)[number]>;

/** Whether a click (of the campaign, or of any) waits for the fold: a read that takes no lock. */
export async function hasPendingClicks(db: Db, campaignId?: number): Promise<boolean> {
  const query = db('clicks').where('rollup_pending', true);
  if (campaignId !== undefined) query.andWhere('campaign_id', campaignId);
  return (await query.first('id')) !== undefined;
}

/** How many clicks wait for the fold, and when the oldest of them was stored (null: none waits). */
export async function pendingClickState(db: Db): Promise<{ pending: number; oldest: Date | null }> {
  const row = (await db('clicks').where('rollup_pending', true).count({ n: '*' }).min({ at: 'created_at' }).first()) as
    { n?: number | string; at?: Date | number | string | null } | undefined;
  const at = row?.at;
  return { pending: Number(row?.n ?? 0), oldest: at === null || at === undefined ? null : dateOf(at) };
}

/**
 * Up to `limit` clicks waiting for the fold (of one campaign, or of any), locked on MySQL/MariaDB
 * until the transaction ends, so another daemon's fold waits and then finds them folded; SQLite's
 * one writer needs no lock.
 */
export async function takePendingClicks(
  trx: Trx,
  options: { campaignId?: number; limit: number },
): Promise<PendingClick[]> {
  let query = trx('clicks').where('rollup_pending', true);
  if (options.campaignId !== undefined) query = query.andWhere('campaign_id', options.campaignId);
  query = query.limit(options.limit);
  if (engineOf(trx) === 'mysql') query = query.forUpdate();
  const rows = await query.select<PendingRow[]>(...PENDING_COLUMNS, ...PENDING_DIMENSIONS);
  return rows.map((row) => ({
    id: row.id,
    campaignId: Number(row.campaign_id),
    affiliateId: Number(row.affiliate_id),
    createdAt: dateOf(row.created_at),
    bot: Boolean(row.bot),
    device: row.device,
    country: row.country,
    referrer: row.referrer,
    utmSource: row.utm_source,
  }));
}

/** Clears the flag of these clicks where it is still set; answers how many it cleared. */
export async function markClicksFolded(trx: Trx, ids: readonly string[]): Promise<number> {
  let cleared = 0;
  for (const part of chunks(ids)) {
    cleared += await trx('clicks')
      .whereIn('id', part)
      .andWhere('rollup_pending', true)
      .update({ rollup_pending: false });
  }
  return cleared;
}

/** A click as attribution weighs it: whose, when, and its campaign's window and model. */
export interface ClickForAttribution {
  id: string;
  campaignId: number;
  referralKey: string;
  createdAt: Date;
  cookieDays: number;
  model: 'first_click' | 'last_click';
}

interface ClickAttributionRow {
  id: string;
  campaign_id: number;
  referral_key: string;
  created_at: Date | number | string;
  cookie_days: number;
  attribution: string;
}

/** These clicks (primary-key seeks), with their affiliate's code and their campaign's window and model. */
export async function findClicksForAttribution(trx: Trx, ids: readonly string[]): Promise<ClickForAttribution[]> {
  const rows = await inChunks(ids, (part) =>
    trx('clicks as k')
      .join('affiliates as a', 'a.id', 'k.affiliate_id')
      .join('campaigns as c', 'c.id', 'k.campaign_id')
      .whereIn('k.id', part)
      .select<ClickAttributionRow[]>(
        'k.id',
        'k.campaign_id',
        'a.referral_key',
        'k.created_at',
        'c.cookie_days',
        'c.attribution',
      ),
  );
  return rows.map((row) => ({
    id: row.id,
    campaignId: Number(row.campaign_id),
    referralKey: row.referral_key,
    createdAt: dateOf(row.created_at),
    cookieDays: Number(row.cookie_days),
    model: row.attribution === 'first_click' ? 'first_click' : 'last_click',
  }));
}

/** SQLite keeps milliseconds, MySQL a DATETIME the driver reads as a Date. */
const dateOf = (value: Date | number | string) => (value instanceof Date ? value : new Date(value));

/** A customer of a campaign (a digest of their session or their own id) and a click seen with them. */
export interface CustomerClick {
  campaignId: number;
  customerKey: string;
  clickId: string;
}

/** The first and last click of these customers, by `${campaignId}\n${customerKey}`. */
export async function findCustomerClicks(
  trx: Trx,
  customers: readonly Omit<CustomerClick, 'clickId'>[],
): Promise<Map<string, { first: string; last: string }>> {
  const rows = await inChunks(customers, (part) =>
    trx('customer_clicks')
      .where((where) => {
        for (const { campaignId, customerKey } of part) {
          where.orWhere((one) => one.where('campaign_id', campaignId).andWhere('customer_key', customerKey));
        }
      })
      .select('campaign_id', 'customer_key', 'first_click_id', 'last_click_id'),
  );
  return new Map(
    rows.map((row) => [
      `${Number(row.campaign_id)}\n${row.customer_key}`,
      { first: row.first_click_id, last: row.last_click_id },
    ]),
  );
}

/**
 * Remembers each customer's clicks: click ids sort by time, so the first is the smallest id and
 * the last the largest, merged by the upsert itself (no read first: several daemons may write).
 */
export async function mergeCustomerClicks(trx: Trx, clicks: readonly CustomerClick[]): Promise<void> {
  if (clicks.length === 0) return;
  const mysql = engineOf(trx) === 'mysql';
  // Sorted: concurrent flushes lock the rows in one order.
  const sorted = [...clicks].sort(
    (a, b) =>
      a.campaignId - b.campaignId || (a.customerKey < b.customerKey ? -1 : a.customerKey > b.customerKey ? 1 : 0),
  );
  const tail = mysql
    ? ' ON DUPLICATE KEY UPDATE first_click_id = LEAST(first_click_id, VALUES(first_click_id)), last_click_id = GREATEST(last_click_id, VALUES(last_click_id))'
    : ' ON CONFLICT (campaign_id, customer_key) DO UPDATE SET first_click_id = min(first_click_id, excluded.first_click_id), last_click_id = max(last_click_id, excluded.last_click_id)';
  for (const part of chunks(sorted)) {
    await trx.raw(
      `INSERT INTO customer_clicks (campaign_id, customer_key, first_click_id, last_click_id) VALUES ${part.map(() => '(?, ?, ?, ?)').join(', ')}${tail}`,
      part.flatMap((c) => [c.campaignId, c.customerKey, c.clickId, c.clickId]),
    );
  }
}
