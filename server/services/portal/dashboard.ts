import type { Db } from '../../db/knex.js';
import { NotFoundError } from '../../errors.js';
import {
  affiliateConversions,
  affiliateFigures,
  affiliatePayout,
  affiliatePayouts,
  type AffiliateFigures,
  type PortalConversion,
  type PortalPayout,
} from '../../repositories/portalDashboard.js';
import { toCents } from '../../../shared/money.js';
import { findAffiliate } from '../../repositories/affiliates.js';
import { findCampaign } from '../../repositories/campaigns.js';
import { listCoupons } from '../../repositories/coupons.js';
import { findGroup } from '../../repositories/groups.js';
import type { AnalyticsService } from '../analytics/index.js';
import type { PortalCampaign, PortalUser } from './types.js';

/** Conversions a dashboard page lists; payouts it lists (the latest). */
export const CONVERSIONS_PER_PAGE = 20;
const PAYOUTS_SHOWN = 12;
/** Conversions a payout's page lists. */
export const PAYOUT_CONVERSIONS_PER_PAGE = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A rate as the portal shows it: a percent of the sale, or an amount in cents. */
export interface TermsRate {
  type: 'percent' | 'fixed';
  /** percent: 10 is 10 %; fixed: cents. */
  value: number;
}

/** The terms an affiliate works under (docs/portal.md#the-dashboard), by the commission rules' precedence. */
export interface Terms {
  /** Whose rate applies: its own, its group's, or the campaign's (spec §12.2). */
  source: 'affiliate' | 'group' | 'campaign';
  rate: TermsRate;
  /** Product rules of the level that decides (none under an own rate). */
  products: { product: string; rate: TermsRate }[];
  cookieDays: number;
  payoutMinimumCents: number;
  /** Days before a pending sale is approved; null: the merchant approves by hand. */
  holdDays: number | null;
}

const termsRate = (rule: { commissionType: 'percent' | 'fixed'; commissionValue: number }): TermsRate => ({
  type: rule.commissionType,
  value: rule.commissionType === 'fixed' ? toCents(rule.commissionValue) : rule.commissionValue,
});

/** One UTC day of the affiliate's chart (docs/portal.md#the-dashboard): people's clicks, bots apart. */
export interface ChartDay {
  /** `YYYY-MM-DD`, a UTC day. */
  day: string;
  clicks: number;
  leads: number;
  conversions: number;
}

export interface Dashboard {
  terms: Terms;
  /** The last 30 UTC days, today included, oldest first, from the analytics rollups. */
  days: ChartDay[];
  /** The shop's address with `?ref=CODE`; null when the campaign has no site URL. */
  link: string | null;
  coupons: string[];
  last30Days: AffiliateFigures;
  allTime: AffiliateFigures;
  conversions: PortalConversion[];
  page: number;
  pages: number;
  payouts: PortalPayout[];
}

/** The referral link: the site's address with `ref` set (any `ref` it had replaced). */
export function referralLink(siteUrl: string | null, code: string): string | null {
  if (siteUrl === null || !URL.canParse(siteUrl)) return null;
  const url = new URL(siteUrl);
  url.searchParams.set('ref', code);
  return url.toString();
}

/** docs/portal.md#the-dashboard: everything is the session's affiliate's own; nothing else is read. */
export async function dashboard(
  { db, analytics }: { db: Db; analytics: AnalyticsService },
  now: Date,
  campaign: PortalCampaign,
  user: PortalUser,
  requestedPage: number,
): Promise<Dashboard> {
  const since = new Date(now.getTime() - 30 * DAY_MS);
  const [days, last30Days, allTime, payouts, coupons, terms] = await Promise.all([
    chartDays(analytics, user),
    affiliateFigures(db, user.affiliateId, since),
    affiliateFigures(db, user.affiliateId),
    affiliatePayouts(db, user.affiliateId, PAYOUTS_SHOWN),
    listCoupons(db, user.campaignId, user.affiliateId),
    termsOf(db, user),
  ]);
  const pages = Math.max(1, Math.ceil(allTime.listed / CONVERSIONS_PER_PAGE));
  const page = Math.min(Math.max(1, requestedPage), pages);
  const conversions = await affiliateConversions(db, user.affiliateId, {
    limit: CONVERSIONS_PER_PAGE,
    offset: (page - 1) * CONVERSIONS_PER_PAGE,
  });
  return {
    terms,
    days,
    link: referralLink(campaign.siteUrl, user.referralId),
    coupons: coupons.map((coupon) => coupon.code),
    last30Days,
    allTime,
    conversions,
    page,
    pages,
    payouts,
  };
}

/**
 * The session's affiliate's own series only (the analytics service filters the rollup by its
 * id). UTC days: a campaign has no time zone of its own.
 */
async function chartDays(analytics: AnalyticsService, user: PortalUser): Promise<ChartDay[]> {
  const series = await analytics.series(
    user.campaignId,
    { metrics: 'clicks,leads,conversions', interval: 'day', timezone: 'UTC' },
    user.affiliateId,
  );
  return (series.series[0]?.points ?? []).map((point) => ({
    day: point.start.slice(0, 10),
    clicks: point.clicks ?? 0,
    leads: point.leads ?? 0,
    conversions: point.conversions ?? 0,
  }));
}

/** The rule that prices the affiliate's sales and the campaign's settings it is paid by. */
async function termsOf(db: Db, user: PortalUser): Promise<Terms> {
  const [found, affiliate] = await Promise.all([
    findCampaign(db, user.campaignId),
    findAffiliate(db, user.campaignId, user.affiliateId),
  ]);
  if (!found || !affiliate) throw new NotFoundError('Affiliate not found');
  const { campaign } = found;
  const group = affiliate.groupId === null ? undefined : await findGroup(db, user.campaignId, affiliate.groupId);
  const level = affiliate.commissionOverride
    ? { source: 'affiliate' as const, rate: affiliate.commissionOverride, products: [] }
    : group
      ? { source: 'group' as const, rate: group, products: group.products }
      : { source: 'campaign' as const, rate: campaign, products: campaign.products };
  return {
    source: level.source,
    rate: termsRate(level.rate),
    products: level.products.map((rule) => ({ product: rule.product, rate: termsRate(rule) })),
    cookieDays: campaign.cookieDays,
    payoutMinimumCents: toCents(campaign.payoutMinimum),
    holdDays: campaign.autoApproveDays,
  };
}

/** One payout's page: its conversions a page at a time (a payout may cover thousands). */
export interface PayoutPage {
  payout: PortalPayout;
  conversions: PortalConversion[];
  /** How many conversions the payout covered, in all. */
  covered: number;
  page: number;
  pages: number;
}

/** One payout of the session's affiliate; another affiliate's id is a 404, as an unknown one. */
export async function payout(db: Db, user: PortalUser, id: number, requestedPage = 1): Promise<PayoutPage> {
  let page = 1;
  let pages = 1;
  const found = await affiliatePayout(db, user.affiliateId, id, (covered) => {
    pages = Math.max(1, Math.ceil(covered / PAYOUT_CONVERSIONS_PER_PAGE));
    page = Math.min(Math.max(1, requestedPage), pages);
    return { limit: PAYOUT_CONVERSIONS_PER_PAGE, offset: (page - 1) * PAYOUT_CONVERSIONS_PER_PAGE };
  });
  if (!found) throw new NotFoundError('Payout not found');
  return { ...found, page, pages };
}
